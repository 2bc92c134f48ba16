"""User-facing strings in French (default) and English.

The strings themselves live in `ui/strings/`, one module per page or area; only our own strings
are there: document text is never translated nor formatted as markdown.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

from ui.strings import merged

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
