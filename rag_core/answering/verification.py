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
from rag_core.text import collapse_ws, contains_quote, written_in
from rag_core.understanding.followups import content_stems

MESSAGES = {
    "en": {
        "unknown": "Removed citation(s) of unknown source(s): {ids}.",
        "no_quote": "No supporting quote was given.",
        "quote_absent": "The quote was not found in the cited source(s).",
        "dropped_empty": "Paragraph {n} was empty.",
        "dropped_unsourced": "Paragraph {n} (\u201c{start}\u201d) cited no retrieved source{unknown}; it was removed.",
        "unknown_suffix": " (unknown: {ids})",
        "dropped_echo": "Paragraph {n} (\u201c{start}\u201d) copied the answer format's own wording instead of "
        "answering; it was removed.",
        "dropped_repeat": "Paragraph {n} repeated paragraph {m}; it was removed.",
        "dropped_over": "Paragraph {n} went past the {limit} paragraph(s) asked for; it was removed.",
        "dropped_denial": "Paragraph {n} (\u201c{start}\u201d) said the sources do not give what another paragraph "
        "states with its figure; it was removed.",
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
        "dropped_repeat": "Le paragraphe {n} répétait le paragraphe {m} ; il a été retiré.",
        "dropped_over": "Le paragraphe {n} dépassait les {limit} paragraphe(s) demandé(s) ; il a été retiré.",
        "dropped_denial": "Le paragraphe {n} (« {start} ») disait que les sources ne donnent pas ce qu'un autre "
        "paragraphe énonce avec son chiffre ; il a été retiré.",
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
    return MESSAGES.get(language, MESSAGES["en"])


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


_NUMBERED = re.compile(r"(?i)^(?:sources?|src|s|ref(?:erence)?|#)?\s*(\d{1,3})$")
_PAGE = re.compile(r"(?i)^(?:p|pp|page|pages|pg)\.?\s*(\d{1,4})$")


def _resolve(raw: str, table: Mapping[str, str], sources: Sequence[Source] = ()) -> str | None:
    """The id `raw` names: an id or alias as given, else a form a model writes for one when it names a single
    source: "[1]", "Source 2" (the prompt's S1, S2...), "P. 3" (the one source on that page), a file name (the
    one source from that file). An ambiguous form names nothing."""
    key = _BRACKETS.sub("", raw)
    found = table.get(key) or table.get(key.casefold())
    if found or not key:
        return found
    numbered = _NUMBERED.match(key)
    if numbered:
        return table.get(f"s{int(numbered.group(1))}")
    page = _PAGE.match(key)
    parents = [s for s in sources if s.kind == "parent"]
    if page:
        on_page = {s.id for s in parents if int(page.group(1)) in s.pages}
        return on_page.pop() if len(on_page) == 1 else None
    named = {s.id for s in parents if s.file_name and s.file_name.casefold() == key.casefold()}
    return named.pop() if len(named) == 1 else None


def _supported(quote: str, cited: Sequence[Source]) -> bool:
    return any(contains_quote(s.text, quote) or (s.caption and contains_quote(s.caption, quote)) for s in cited)


def held_to_contract(
    paragraphs: Sequence[Paragraph], limit: int, language: str = "en"
) -> tuple[list[Paragraph], list[str]]:
    """A model's paragraphs as asked: at most `limit`, none repeating an earlier one (compared without case and
    spacing), each written in another language than the question's labelled with its language. What is left
    out is said, in `language`."""
    msg = _messages(language)
    kept: list[Paragraph] = []
    dropped: list[str] = []
    seen: dict[str, int] = {}
    for n, para in enumerate(paragraphs, start=1):
        key = collapse_ws(para.text).casefold()
        if key and key in seen:
            dropped.append(msg["dropped_repeat"].format(n=n, m=seen[key]))
            continue
        if len(kept) >= limit:
            dropped.append(msg["dropped_over"].format(n=n, limit=limit))
            continue
        seen[key] = n
        written = written_in(para.text)
        if not para.language and written is not None and written != language:
            para = para.model_copy(update={"language": written})
        kept.append(para)
    return kept, dropped


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
            sid = _resolve(raw, table, sources)
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


# "X is not provided", "the text does not give X", « X n'est pas indiqué », « ne précise pas X »
_DENIAL = re.compile(
    r"(?i)\b(not (provided|given|stated|mentioned|available|specified|reported|included)|"
    r"(does|do|did) not (say|give|provide|mention|state|specify|report|include)|no (information|mention|figure)|"
    r"n'(est|sont) pas (fourni|donn|indiqu|précis|mentionn|disponible)\w*|"
    r"ne (donne|précise|fournit|mentionne|indique)n?t? pas|aucune? (information|mention|chiffre|valeur))"
)
_FIGURE = re.compile(r"\d[\d\s.,\u00a0\u202f]*\d|\d")
# the words of a denial itself ("not provided in the text"), which say nothing of what is denied
_FILLER = content_stems(
    "provided given stated mentioned available specified reported included information mention figure text "
    "sources document context passage provide state specify report include fourni donné indiqué précisé "
    "mentionné disponible texte contexte chiffre valeur donne précise fournit indique"
)


def _subject(sentence: str) -> set[str]:
    return content_stems(sentence) - _FILLER


def denies_a_stated_figure(sentence: str, stated: Sequence[str]) -> bool:
    """`sentence` says the sources do not give something that one of the `stated` paragraphs gives with a
    figure (every content word of the denial's subject is in that paragraph)."""
    if not _DENIAL.search(sentence):
        return False
    subject = _subject(_DENIAL.sub(" ", sentence))
    own = set(_FIGURE.findall(sentence))
    return bool(subject) and any(set(_FIGURE.findall(p)) - own and subject <= _subject(p) for p in stated)


def without_denials(
    paragraphs: Sequence[Paragraph], missing: str, language: str = "en"
) -> tuple[list[Paragraph], str, list[str]]:
    """The paragraphs and the missing information without what denies a figure another paragraph states: a
    paragraph that only says "X is not provided" next to the paragraph giving X's figure, and such a sentence of
    the missing information. Returns what is left and the dropped paragraphs' reasons."""
    msg = _messages(language)
    texts = [p.text for p in paragraphs]
    kept, dropped = [], []
    for n, para in enumerate(paragraphs, start=1):
        others = texts[: n - 1] + texts[n:]
        if denies_a_stated_figure(para.text, others):
            dropped.append(msg["dropped_denial"].format(n=n, start=collapse_ws(para.text)[:60]))
            continue
        kept.append(para)
    sentences = re.split(r"(?<=[.!?])\s+", missing.strip()) if missing.strip() else []
    left = " ".join(s for s in sentences if not denies_a_stated_figure(s, [p.text for p in kept]))
    return kept, left, dropped
