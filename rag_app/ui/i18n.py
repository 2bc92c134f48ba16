"""User-facing strings in French (default) and English.

The strings themselves live in `ui/strings/`, one module per page or area; only our own strings
are there: document text is never translated nor formatted as markdown.
"""

from __future__ import annotations

import re
from typing import Literal

import streamlit as st

from rag_app.ui.strings import merged
from rag_core.pipeline import ENGLISH_MESSAGES, NO_CAPTION, NO_HEADING, recognise

Lang = Literal["fr", "en"]
LANG_KEY = "lang"
DEFAULT_LANG: Lang = "fr"

STRINGS: dict[str, dict[str, str]] = merged()


def lang() -> Lang:
    value = st.session_state.get(LANG_KEY, DEFAULT_LANG)
    return "en" if value == "en" else "fr"


def t(key: str, **values: object) -> str:
    """Translated string for `key` in the current language; missing keys show the key (visible, not fatal)."""
    entry = STRINGS.get(key)
    text = entry[lang()] if entry else key
    return text.format(**values) if values else text


_KIND_PART = re.compile(r"(Table|Figure|Formula): (.*)", re.DOTALL)


def label_text(label: str) -> str:
    """A source label as rag_core builds it (parts joined by " · ", a table's or figure's part written
    "Table: caption") in the page's language; the document's own words stay as written."""
    if lang() == "en":
        return label
    parts = []
    for part in label.split(" · "):
        found = _KIND_PART.fullmatch(part)
        if part == NO_HEADING:
            part = t("label.no_heading")
        elif found:
            caption = t("label.no_caption") if found.group(2) == NO_CAPTION else found.group(2)
            part = f"{t('label.kind.' + found.group(1))} : {caption}"
        parts.append(part)
    return " · ".join(parts)


def user_message(err: BaseException | str) -> str:
    """A message from rag_core in the page's language: by the error's key, or by recognising a stored
    English text (a job's result); a message without a key is shown as written."""
    text = str(err)
    key = getattr(err, "key", "")
    values: dict[str, object] = dict(getattr(err, "values", {}) or {})
    if not key:
        found = recognise(text)
        if found is None:
            return text
        key, values = found[0], dict(found[1])
    entry = STRINGS.get(f"msg.{key}")
    if entry is None or (lang() == "en" and entry["en"] == ENGLISH_MESSAGES.get(key)):
        return text  # rag_core's English is the page's: as written
    for name, value in values.items():  # a value that is itself a word of ours ("Ingested", "glossary")
        if f"msg.{name}.{value}" in STRINGS:
            values[name] = t(f"msg.{name}.{value}")
    return entry[lang()].format(**values)
