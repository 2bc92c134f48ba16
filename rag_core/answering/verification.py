"""Citation checks shared by LLM and extractive answers (docs/method.md, answers).

The model's source ids are resolved against the registry built by `citations.build_sources`:
unknown ids are removed, a paragraph left without a valid source is dropped (and reported),
and a quote that does not occur in a cited source marks the paragraph "partially_supported" (with the
"quote" mark, shown like every guard-rail mark: `answering.guardrails`).
This module only checks; it neither calls a model nor builds sources.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from rag_core.models import Mark, Paragraph, Source
from rag_core.text import collapse_ws, contains_quote

_MESSAGES = {
    "en": {
        "unknown": "Removed citation(s) of unknown source(s): {ids}.",
        "no_quote": "No supporting quote was given.",
        "quote_absent": "The quote was not found in the cited source(s).",
        "dropped_empty": "Paragraph {n} was empty.",
        "dropped_unsourced": "Paragraph {n} (\u201c{start}\u201d) cited no retrieved source{unknown}; it was removed.",
        "unknown_suffix": " (unknown: {ids})",
        "dropped_echo": "Paragraph {n} (\u201c{start}\u201d) copied the answer format's own wording instead of "
        "answering; it was removed.",
    },
    "fr": {
        "unknown": "Citation(s) de source(s) inconnue(s) retirée(s) : {ids}.",
        "no_quote": "Aucune citation textuelle n'appuie ce paragraphe.",
        "quote_absent": "La citation ne figure pas dans la ou les sources citées.",
        "dropped_empty": "Le paragraphe {n} était vide.",
        "dropped_unsourced": "Le paragraphe {n} (« {start} ») ne citait aucune source retrouvée{unknown} ; "
        "il a été retiré.",
        "unknown_suffix": " (inconnues : {ids})",
        "dropped_echo": "Le paragraphe {n} (« {start} ») recopiait le libellé du format de réponse au lieu de "
        "répondre ; il a été retiré.",
    },
}

QUOTE_MARK = Mark(name="quote", level="caution", key="mark.quote.partial", explains=True)
_BRACKETS = re.compile(r"^[\s\[\](){}<>\"'`]+|[\s\[\](){}<>\"'`.,;:]+$")


@dataclass(frozen=True)
class Verified:
    paragraphs: list[Paragraph]
    dropped: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    uncited: list[Source] = field(default_factory=list)


def _messages(language: str) -> dict[str, str]:
    return _MESSAGES.get(language, _MESSAGES["en"])


def resolver(sources: Sequence[Source], aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every accepted spelling of a source id (its id, its prompt alias, case-folded) -> its id."""
    table: dict[str, str] = {}
    for s in sources:
        table[s.id] = s.id
        table[s.id.casefold()] = s.id
    for alias, sid in (aliases or {}).items():
        table[alias] = sid
        table[alias.casefold()] = sid
    return table


def _resolve(raw: str, table: Mapping[str, str]) -> str | None:
    key = _BRACKETS.sub("", raw)
    return table.get(key) or table.get(key.casefold())


def _supported(quote: str, cited: Sequence[Source]) -> bool:
    return any(contains_quote(s.text, quote) or (s.caption and contains_quote(s.caption, quote)) for s in cited)


def verify_citations(
    paragraphs: Sequence[Paragraph],
    sources: Sequence[Source],
    language: str = "en",
    aliases: Mapping[str, str] | None = None,
    echoes: Collection[str] = (),
) -> Verified:
    """Check each paragraph's citations against the registry; see the module docstring. `echoes`: texts that are
    no answer (the answer format's own descriptions, which a small model may copy), case-folded and collapsed."""
    msg = _messages(language)
    by_id = {s.id: s for s in sources}
    table = resolver(sources, aliases)
    kept: list[Paragraph] = []
    dropped: list[str] = []
    cited_order: list[str] = []
    for n, para in enumerate(paragraphs, start=1):
        text = para.text.strip()
        if not text:
            dropped.append(msg["dropped_empty"].format(n=n))
            continue
        if collapse_ws(text).casefold().rstrip(".") in echoes:
            dropped.append(msg["dropped_echo"].format(n=n, start=collapse_ws(text)[:60]))
            continue
        valid: list[str] = []
        unknown: list[str] = []
        for raw in para.source_ids:
            sid = _resolve(raw, table)
            if sid is None:
                unknown.append(raw)
            elif sid not in valid:
                valid.append(sid)
        if not valid:
            start = collapse_ws(text)[:60] + ("…" if len(collapse_ws(text)) > 60 else "")
            suffix = msg["unknown_suffix"].format(ids=", ".join(unknown)) if unknown else ""
            dropped.append(msg["dropped_unsourced"].format(n=n, start=start, unknown=suffix))
            continue
        notes = [para.note] if para.note else []
        if unknown:
            notes.append(msg["unknown"].format(ids=", ".join(unknown)))
        status = "supported"
        if not para.quote.strip():
            status = "partially_supported"
            notes.append(msg["no_quote"])
        elif not _supported(para.quote, [by_id[sid] for sid in valid]):
            status = "partially_supported"
            notes.append(msg["quote_absent"])
        marks = [m for m in para.marks if m.name != "quote"]
        if status == "partially_supported":
            marks.append(QUOTE_MARK)
        kept.append(
            para.model_copy(
                update={"text": text, "source_ids": valid, "status": status, "note": " ".join(notes), "marks": marks}
            )
        )
        cited_order.extend(sid for sid in valid if sid not in cited_order)
    cited = [by_id[sid] for sid in cited_order]
    # A section counts as cited when it or one of its tables/figures/formulas is cited.
    cited_parents = {by_id[sid].parent_id for sid in cited_order}
    uncited = [s for s in sources if s.kind == "parent" and s.parent_id not in cited_parents]
    return Verified(paragraphs=kept, dropped=dropped, sources=cited, uncited=uncited)
