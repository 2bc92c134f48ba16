"""The terms that carry a question (docs/method.md, answers): what `coverage` looks up in the library.

They are its identifiers and acronyms ("TSCA", "IFRS 17", "Guideline 37"), its proper names
("Schnieper", "Smith-Wilson", a hyphenated pair is one phrase), the words of a short parenthesised
name ("the symmetric adjustment (equity dampener)") and its content words. With a thesaurus or a
bilingual glossary, a term inside a recognised label also gets the label's other forms (synonyms,
translations) as variants that count as mentions. A fiscal or reporting period ("FY2023", "fourth
quarter of fiscal 2023", "T4", `understanding.periods`) is one term whose variants are the ways
documents write that period ("fiscal 2023", "exercice 2023", "2023"): a filing that says "fiscal
2023" mentions the question's "FY2023".

The question's own scaffolding is no term: a later sentence that only says how to write the answer
("Format your answer as YYYY-MM-DD."), the capitals of a question written in capitals (its words may
be abbreviations, never names or identifiers), a reference word without its number ("the Section
Warnings", like "Page") and the generic head of a name of three capitalised words or more ("College
Board Search Platform": documents drop it when they name the thing again) count as plain words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rag_core.text import ASKING_VERBS, STOP_WORDS, fold
from rag_core.understanding.glossary import Glossary
from rag_core.understanding.glossary import spans as glossary_spans
from rag_core.understanding.periods import Period, find_periods, surface_forms
from rag_core.understanding.thesaurus import Thesaurus

Kind = Literal["identifier", "abbreviation", "name", "alias", "word", "period"]

MIN_ACRONYM_CHARS = 4  # TSCA, IFRS, IBNER count when absent; USP, TP do not (see `_short`)
MAX_ALIAS_WORDS = 2
REFERENCE_WORDS = frozenset(
    "article articles guideline guidelines section chapter chapitre table tableau figure "
    "example exemple exhibit annex annexe appendix paragraph paragraphe recital "
    "orientation".split()
)
# Words that say where in a document, not what: "Page 12", "p. 4" (a page number is printed in the page's
# furniture, never in its text, so the pair is no term of the question).
LOCATOR_WORDS = frozenset("page pages p pp".split())
TOKEN = re.compile(r"\w+")  # a word, in questions and passages alike
_ROMAN = re.compile(r"^[IVXLCDM]+$")
_ELISIONS = frozenset("l d qu n s j c m t jusqu lorsqu puisqu quoiqu".split())
_SENTENCE_END = re.compile(r"[.?!:;(\[«\"]\s*$")
# A later sentence that only says how to write the answer ("Please write the answer in int format.",
# "Answer 'yes' or 'no'.", "Format your answer as YYYY-MM-DD."): the question's scaffolding, no term.
_INSTRUCTION = re.compile(
    r"(?<=[.?!])\s*(?:please\s+|merci\s+de\s+|veuillez\s+)?"
    r"(?:write|format|answer|give|express|round|return|respond|provide|list|use|r[ée]pond|donne|[ée]cri|indique)"
    r"[^.?!]*?\b(?:answers?|format|r[ée]ponses?|oui|yes)\b[^?!]*$",
    re.IGNORECASE,
)
# A format placeholder ("YYYY-MM-DD", "YYYY-MM", "JJ/MM/AAAA", "YYYY") says how to write a date, never what
# the documents hold: its parts are Y/M/D letters (A/J in French) repeated, and at least one is a year's.
_PLACEHOLDER_PART = re.compile(r"^(?:[ya]{2,4}|m{1,2}|[dj]{1,2})$", re.IGNORECASE)
_PLACEHOLDER_YEAR = re.compile(r"^[ya]{4}$", re.IGNORECASE)
# Words that only say where to look ("in the French reserving report", "dans le rapport de provisionnement"): a
# preposition, an article, at most three words, and a word for a document. They name no fact the passages must hold,
# so they are no term: the document they point at is searched like any other, and never refused for them. An
# acronym among them ("in the ISFA slides") stays one: it is the document's own name, which its text writes.
_WHERE = re.compile(
    r"\b(?:in|from|within|according\s+to|dans|selon|d'après|d'apres)\s+(?:the|this|that|our|le|la|les|l'|ce|cette|"
    r"notre)\s*(?:[\w'-]+\s+){0,3}?(?:report|document|paper|guide|guidelines?|slides?|presentation|deck|filing|note|"
    r"study|text|rapport|document|mémoire|memoire|étude|etude|présentation|presentation|diaporama|note|texte)s?\b"
    r"(?:\s+(?:français|francais|anglais|annuel|final|technique)\b)?",
    re.IGNORECASE,
)
SHOUTED = 0.8  # share of a question's letters in capitals above which its capitals say nothing


@dataclass(frozen=True)
class Term:
    text: str  # as the question writes it
    kind: Kind
    words: tuple[str, ...]  # folded, stop words removed
    variants: tuple[tuple[str, ...], ...] = ()  # thesaurus labels (folded words) that count as mentions
    # a metric computed from others (the thesaurus' computedFrom): each part's forms; the metric counts as
    # mentioned where every part is (a filing reports operating income and depreciation, not EBITDA)
    parts: tuple[tuple[tuple[str, ...], ...], ...] = ()

    @property
    def forms(self) -> tuple[tuple[str, ...], ...]:
        return (self.words, *self.variants)


@dataclass(frozen=True)
class _Token:
    raw: str
    start: int
    end: int
    index: int  # position among all word tokens (the thesaurus' positions)


def _groups(question: str) -> list[tuple[list[_Token], bool]]:
    """Word tokens joined by hyphens into groups; elided articles and possessive 's dropped.
    Each group says whether it opens a sentence (its capital then proves nothing)."""
    tokens = [_Token(m.group(), m.start(), m.end(), i) for i, m in enumerate(TOKEN.finditer(question))]
    groups: list[tuple[list[_Token], bool]] = []
    previous: _Token | None = None
    for tok in tokens:
        between = question[previous.end : tok.start] if previous else ""
        if previous is not None and between in ("'", "’") and tok.raw.lower() == "s":
            previous = tok
            continue  # Mack's
        if tok.raw.lower() in _ELISIONS and question[tok.end : tok.end + 1] in ("'", "’"):
            previous = tok
            continue  # l'assurance, d'IBNR
        if previous is not None and between == "-" and groups and groups[-1][0][-1] is previous:
            groups[-1][0].append(tok)
        else:
            opens = previous is None or bool(_SENTENCE_END.search(question[: tok.start]))
            groups.append(([tok], opens))
        previous = tok
    return groups


def _acronym(raw: str) -> bool:
    """TSCA, IBNER, MSEP, ACT2008, MackChainLadder: two capitals or more; not a Roman numeral (Solvency II)."""
    upper = sum(c.isupper() for c in raw)
    return upper >= 2 and not _ROMAN.match(raw)


def _short(raw: str) -> bool:
    """USP, TP, DTAs: an abbreviation of three letters or fewer is often used without the documents
    ever writing it (they spell it out); its absence proves little."""
    return len(raw[:-1] if raw.endswith("s") and raw[:-1].isupper() else raw) < MIN_ACRONYM_CHARS


def _alias_spans(question: str) -> list[tuple[int, int]]:
    """Short parenthesised names, "the symmetric adjustment (equity dampener)": the question names its
    subject there, so even plain words inside carry it."""
    return [
        (m.start(1), m.end(1))
        for m in re.finditer(r"\(([^()]{2,60})\)", question)
        if 0 < len(_content(fold(w) for w in TOKEN.findall(m.group(1)))) <= MAX_ALIAS_WORDS
    ]


def _content(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in STOP_WORDS and not w.isdigit() and len(w) > 1)


def _period_words(text: str) -> tuple[str, ...]:
    """A period's written form as folded words, numbers kept ("fiscal 2023" -> ("fiscal", "2023"))."""
    return tuple(w for w in (fold(t) for t in TOKEN.findall(text)) if w not in STOP_WORDS and w not in _ELISIONS)


# Before a year, what makes it a citation's or an identifier's: "Mack (2006)", "Mack's 2006", "ACT-2008"
_CITED = re.compile(r"(?:\b[A-Z][\w-]*(?:['’]s)?\s*\(?|[-/])$")


def _asked_year(question: str, period: Period) -> bool:
    """A bare year the question asks about ("accident year 2005", "in 2010"), not a citation's ("Mack
    (2006)", "Mack's 2006"), nor part of an identifier ("ACT-2008", "Regulation (EU) 2015/35")."""
    before, after = question[: period.start], question[period.end : period.end + 1]
    return not _CITED.search(before) and after not in ("/", "-")


def period_term(period: Period) -> Term:
    """The term of a period: as the question writes it, with each way documents write it as a variant.
    A period with a year counts like an identifier when absent; a part without a year ("Q4") like a word."""
    words = _period_words(period.text)
    variants = tuple(dict.fromkeys(v for f in surface_forms(period.key) if (v := _period_words(f)) and v != words))
    return Term(period.text, "period" if period.year is not None else "word", words, variants)


def _shouted(question: str) -> bool:
    """A question written in capitals ("WHAT IS THE LAST YEAR IN THE TABLE?"): no word of it is a
    name by its capitals, and a word in capitals may be an abbreviation, whose absence proves nothing."""
    letters = [c for c in question if c.isalpha()]
    return len(letters) >= 12 and sum(c.isupper() for c in letters) >= SHOUTED * len(letters)


def _name_heads(question: str, groups: list[tuple[list[_Token], bool]]) -> set[int]:
    """The last word of a name of three capitalised words or more ("College Board Search Platform",
    "Erstwhile ITC Hotels Limited"): its generic head, which documents drop when they name it again
    ("the College Board Search"); it carries the question like a plain word. Indexes into `groups`."""
    heads: set[int] = set()
    run: list[int] = []
    for g, (group, opens) in enumerate(groups):
        capital = len(group) == 1 and group[0].raw[:1].isupper() and group[0].raw.isalpha() and not opens
        follows = bool(run) and question[groups[g - 1][0][-1].end : group[0].start].isspace()
        if capital and (follows or not run):
            run.append(g)
            continue
        if len(run) >= 3:
            heads.add(run[-1])
        run = [g] if capital else []
    if len(run) >= 3:
        heads.add(run[-1])
    return heads


def asked_part(question: str) -> str:
    """The question without its later sentences on how to write the answer (`_INSTRUCTION`)."""
    found = _INSTRUCTION.search(question)
    return question[: found.start()] if found else question


def _word_term(raw: str, text: str, number: str, opens: bool, shouted: bool, head: bool, inside: bool) -> Term | None:
    """The term of one word `raw` (`number`: the number written after it, `opens`: it opens a sentence,
    `head`: the last word of a long name, `inside`: within a short parenthesised name); None if none."""
    word = fold(raw)
    if raw.isdigit() or len(raw) < 2 or (number and word in LOCATOR_WORDS):
        return None
    if _acronym(raw) and word not in STOP_WORDS:  # not a shouted "WHAT IS THE"
        kind: Kind = "abbreviation" if _short(raw) or shouted else "identifier"
        return Term(f"{text} {number}", kind, (word, number)) if number else Term(text, kind, (word,))
    if word in STOP_WORDS or word in ASKING_VERBS or len(word) <= 2:
        return None
    if raw[0].isupper() and raw.isalpha() and not opens and not shouted:
        if number and word in REFERENCE_WORDS:  # Guideline 37, Article 77 (not "Mack 2006", "Poisson(10)")
            return Term(f"{text} {number}", "identifier", (word, number))
        # "the Section Warnings" says where, like "Page"; a long name's head is dropped when named again
        return Term(text, "word" if word in REFERENCE_WORDS or head else "name", (word,))
    return Term(text, "alias" if inside and raw.isalpha() else "word", (word,))  # not X_ind, not (2,1)


def _placeholder(question: str, group: list[_Token]) -> bool:
    """`group` and the parts written after it with "/" or "-" form a date format's placeholder."""
    parts = [t.raw for t in group]
    end = group[-1].end
    while (m := re.match(r"[/-](\w+)", question[end:])) and _PLACEHOLDER_PART.match(m.group(1)):
        parts.append(m.group(1))
        end += m.end()
    return all(_PLACEHOLDER_PART.match(p) for p in parts) and any(_PLACEHOLDER_YEAR.match(p) for p in parts)


def where_spans(question: str) -> list[tuple[int, int]]:
    """The spans of `question` that only say where to look (`_WHERE`)."""
    return [m.span() for m in _WHERE.finditer(question)]


def question_terms(question: str, thesaurus: Thesaurus | None = None, glossary: Glossary | None = None) -> list[Term]:
    """The terms that carry `question`, in order (see the module docstring)."""
    question = asked_part(question)
    where = where_spans(question)
    shouted = _shouted(question)
    groups = _groups(question)
    heads = _name_heads(question, groups)
    aliases = _alias_spans(question)
    periods = [p for p in find_periods(question) if not p.text.isdigit() or _asked_year(question, p)]
    terms: list[tuple[Term, list[int]]] = []
    for g, (group, opens) in enumerate(groups):
        period = next((p for p in periods if p.start < group[-1].end and group[0].start < p.end), None)
        if period is not None:  # the period's words make one term, added at its first word
            if not any(t.text == period.text for t, _ in terms):
                terms.append((period_term(period), [t.index for t in group]))
            continue
        raws = [t.raw for t in group]
        if _placeholder(question, group):
            continue
        if any(a <= group[0].start and group[-1].end <= b for a, b in where) and not any(map(_acronym, raws)):
            continue  # says where to look; an acronym there ("in the ISFA slides") still names a document's own
        folded = tuple(fold(r) for r in raws)
        text = question[group[0].start : group[-1].end]
        positions = [t.index for t in group]
        following = groups[g + 1][0] if g + 1 < len(groups) else []
        spaced = bool(following) and question[group[-1].end : following[0].start].isspace()  # not "VaR}]/(1"
        number = following[0].raw if spaced and len(following) == 1 and following[0].raw.isdigit() else ""
        if len(group) > 1:
            words = _content(folded)
            alpha = [r for r in raws if not r.isdigit()]
            kind: Kind = "name" if alpha and all(r[0].isupper() for r in alpha) and not shouted else "word"
            if words:
                terms.append((Term(text, kind, words), positions))
            continue
        inside = any(a <= group[0].start < b for a, b in aliases)
        term = _word_term(raws[0], text, number, opens, shouted, g in heads, inside)
        if term is not None:
            terms.append((term, positions))
    if thesaurus is not None or glossary is not None:
        terms = _with_variants(question, terms, thesaurus, glossary)
    unique: dict[tuple[str, ...], Term] = {}
    for term, _ in terms:
        unique.setdefault(term.words, term)
    return list(unique.values())


def _with_variants(
    question: str, terms: list[tuple[Term, list[int]]], thesaurus: Thesaurus | None, glossary: Glossary | None
) -> list[tuple[Term, list[int]]]:
    """Give each term that lies inside a recognised label the label's other forms: a thesaurus concept's
    synonyms and translations, a glossary term's translations. The whole term must lie inside: a label
    covering half of "Benktander-Hovinen" says nothing of the other half."""
    words = [fold(m.group()) for m in TOKEN.finditer(question)]
    found = thesaurus.spans(words) if thesaurus is not None else []
    spans = [
        (start, end, [label for concept in concepts for label in (*concept.pref_labels, *concept.alt_labels)])
        for start, end, concepts in found
    ]
    if glossary is not None:
        spans += [(start, end, list(forms)) for start, end, forms in glossary_spans(glossary, words)]
    out = []
    for term, positions in terms:
        labels: list[tuple[str, ...]] = []
        for start, end, forms in spans:
            if all(start <= p < end for p in positions):
                for label in forms:
                    key = _label_key(label)
                    if key and key != term.words and key not in labels:
                        labels.append(key)
        parts = tuple(
            tuple(k for label in (*part.pref_labels, *part.alt_labels) if (k := _label_key(label)))
            for start, end, concepts in found
            if all(start <= p < end for p in positions)
            for concept in concepts
            for part in (thesaurus.parts(concept) if thesaurus is not None else [])
        )
        variants = tuple(dict.fromkeys((*term.variants, *labels)))
        out.append((Term(term.text, term.kind, term.words, variants, parts) if labels or parts else term, positions))
    return out


def _label_key(label: str) -> tuple[str, ...]:
    return _content(fold(w) for w in TOKEN.findall(label))
