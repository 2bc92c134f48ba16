"""Prompts for the answering model, in French or English.

The system message holds every instruction; the user message holds the question and the
sources inside one delimited data block. Source text is data: anything in it that looks
like the block's own tags is neutralised so a document cannot close the block and speak
as the user. This module builds messages; it does not call any model.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_core.citations import page_range
from rag_core.models import Source

# The system prompt of an answer, one file per language: its line breaks are part of the prompt.
PROMPTS_DIR = Path(__file__).resolve().parents[1] / "assets" / "prompts"
SYSTEM_PROMPT = {
    language: (PROMPTS_DIR / f"answer_system.{language}.txt").read_text(encoding="utf-8").rstrip("\n")
    for language in ("en", "fr")
}

_LABELS = {
    "en": {
        "question": "Question",
        "history": "Earlier conversation (context only, not a source)",
        "image": "Image of source",
        "absent": "Checked by the code: no source mentions {terms}. Say so in `missing_information`; "
        "do not answer about them from memory.",
    },
    "fr": {
        "question": "Question",
        "history": "Échanges précédents (contexte seulement, pas une source)",
        "image": "Image de la source",
        "absent": "Vérifié par le code : aucune source ne mentionne {terms}. Dites-le dans `missing_information` ; "
        "ne répondez pas à leur sujet de mémoire.",
    },
}

# Anything that could open or close one of our blocks: <source, </sources>, <conversation ...
_TAG_LIKE = re.compile(r"<(\s*/?\s*)(sources?|conversation|question|collection)\b", re.IGNORECASE)


def escape_data(text: str) -> str:
    """Neutralise our delimiters inside data; the rest of the text stays verbatim for quoting."""
    return _TAG_LIKE.sub(lambda m: "&lt;" + m.group(1) + m.group(2), text)


def _attr(value: str) -> str:
    return html.escape(" ".join(value.split()), quote=True)


@dataclass(frozen=True)
class PromptSource:
    """A source as the model sees it: a short alias ('S1'), the registered source, and the text sent when it is
    not the source's whole text (a parent cut to fit the endpoint's context: verbatim passages of it)."""

    alias: str
    source: Source
    text: str | None = None


def number_sources(sources: Sequence[Source]) -> list[PromptSource]:
    """Short, numbered ids for the model: long document ids are easy to mis-copy."""
    return [PromptSource(alias=f"S{i}", source=s) for i, s in enumerate(sources, start=1)]


def render_source(ps: PromptSource) -> str:
    s = ps.source
    attrs = f'id="{ps.alias}" kind="{s.kind}" document="{_attr(s.title)}" section="{_attr(s.section)}"'
    if s.language:
        attrs += f' language="{s.language}"'
    pages = page_range(s.pages)
    if pages:
        attrs += f' pages="{_attr(pages)}"'
    if s.caption:
        attrs += f' caption="{_attr(s.caption)}"'
    text = s.text if ps.text is None else ps.text
    return f"<source {attrs}>\n{escape_data(text)}\n</source>"


_COLLECTIONS = {
    "en": (
        "The sources come from {n} collections, grouped below by collection. Do not blend facts from "
        "different collections in one paragraph; when a paragraph compares them, name each collection."
    ),
    "fr": (
        "Les sources viennent de {n} collections, regroupées ci-dessous par collection. Ne mélangez pas dans "
        "un paragraphe des faits de collections différentes ; quand un paragraphe les compare, nommez chaque "
        "collection."
    ),
}


def sources_block(sources: Sequence[PromptSource], language: str) -> str:
    """The sources, grouped by collection (and said so) when they come from more than one."""
    groups: dict[str, list[PromptSource]] = {}
    for ps in sources:
        groups.setdefault(ps.source.collection, []).append(ps)
    if len(groups) < 2:
        return "\n".join(render_source(ps) for ps in sources)
    parts = [_COLLECTIONS.get(language, _COLLECTIONS["en"]).format(n=len(groups))]
    for name, members in groups.items():
        inner = "\n".join(render_source(ps) for ps in members)
        parts.append(f'<collection name="{_attr(name)}">\n{inner}\n</collection>')
    return "\n".join(parts)


def system_prompt(language: str) -> str:
    return SYSTEM_PROMPT.get(language, SYSTEM_PROMPT["en"])


def user_prompt(
    question: str,
    sources: Sequence[PromptSource],
    language: str,
    history: Sequence[tuple[str, str]] | None = None,
    absent_terms: Sequence[str] = (),
) -> str:
    """The user message: earlier turns (if any), the sources block, the terms of the question that no
    source mentions (`answering.coverage`), then the question."""
    labels = _LABELS.get(language, _LABELS["en"])
    parts: list[str] = []
    if history:
        turns = []
        for asked, answered in list(history)[-3:]:
            turns.append(f"Q: {escape_data(asked[:1000])}\nA: {escape_data(answered[:1500])}")
        parts.append(f"{labels['history']}:\n<conversation>\n" + "\n\n".join(turns) + "\n</conversation>")
    parts.append(f"<sources>\n{sources_block(sources, language)}\n</sources>")
    if absent_terms:
        parts.append(labels["absent"].format(terms=", ".join(f'"{escape_data(t)}"' for t in absent_terms)))
    parts.append(f"{labels['question']}: {escape_data(question)}")
    return "\n\n".join(parts)


def image_caption(alias: str, source: Source, language: str) -> str:
    labels = _LABELS.get(language, _LABELS["en"])
    return f"{labels['image']} {alias} ({_attr(source.caption) or source.kind})"
