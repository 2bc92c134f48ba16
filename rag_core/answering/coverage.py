"""Does the library even mention what the question is about? (docs/method.md, answers)

A careful analyst first checks that the documents name the things a question asks about.
The terms that carry a question (`coverage_terms.question_terms`) are its identifiers and
acronyms ("TSCA", "IFRS 17", "Guideline 37"), its proper names ("Schnieper", "Smith-Wilson",
a hyphenated pair is one phrase) and its content words. Each is looked up with the full-text index (`Lookup`: the
passages of the accessible scope that hold all its words after Snowball stemming, the same
analysis as search), a phrase then checked word by word in order in those passages. The
thesaurus counts: a term inside a recognised concept is mentioned when any label of that
concept (its synonyms and its translations) is; so does the bilingual glossary: a term inside a
glossary term is mentioned when one of its translations is ("tardifs" by "IBNR", "late claims").

- A term that no accessible passage mentions is *missing*: the question is refused by name.
  Identifiers and names always count; a plain content word counts only when the scope holds
  documents in the question's language (a French question about English documents must not
  be refused because its French words are absent) and it is long enough not to be a
  paraphrase's filler (`policy`).
- A term the library mentions but the retrieved passages do not is *not retrieved*: only
  identifiers, periods, names and rare words (fewer than `RARE_PASSAGES` passages) count.
- A term whose words all occur in the scope's page furniture (running headers and footers, which
  the index leaves out) or in its documents' titles and file names is neither: the question is
  then naming the document or pasting its page furniture ("Page", "Annual Report"), not asking
  about something the documents lack (`furniture`, from `understanding.furniture`).
This module decides nothing about answers and does not search: the caller passes `Lookup` (the full-text
index) and, when `coverage_retry` asks for one more search, runs it and gives the result to `use_retry`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from rag_core.answering.coverage_case import as_written
from rag_core.answering.coverage_joint import apart, constraints
from rag_core.answering.coverage_terms import TOKEN, Term, question_terms
from rag_core.answering.typos import read_as
from rag_core.models import RetrievedParent, SearchResult
from rag_core.stemming import both_stems
from rag_core.text import fold
from rag_core.understanding.glossary import Glossary
from rag_core.understanding.thesaurus import Thesaurus

# (folded words, limit) -> folded texts holding them all; None when the library cannot tell (no index yet)
Lookup = Callable[[tuple[str, ...], int], list[str] | None]

RARE_PASSAGES = 12  # a word in fewer passages than this carries the question (checked in the retrieved ones)
PHRASE_CANDIDATES = 200  # passages read to find a phrase's words next to each other
MAX_GAP = 2  # words allowed between two words of a phrase ("taxe sur les conventions")
# A formula's Greek subscript glued to its name by the PDF's text layer ("VaRκ(X)" is VaR_κ(X)).
_GLUED_SUBSCRIPT = re.compile(r"(?<=[a-z])(?=[\u03b1-\u03c9\u03d0-\u03f5])")


@dataclass(frozen=True)
class Coverage:
    """What the library and the retrieved passages say about the question's terms."""

    terms: tuple[Term, ...] = ()
    missing: tuple[str, ...] = ()  # no accessible passage mentions them
    not_retrieved: tuple[str, ...] = ()  # in the library, not in the retrieved passages
    passages: dict[str, int] = field(default_factory=dict)  # term -> passages mentioning it (capped)
    read_as: tuple[tuple[str, str], ...] = ()  # (misspelt term, the passages' word it was read as)
    apart: tuple[str, ...] = ()  # constraints no retrieved passage holds with the others (`coverage_joint`)
    together: tuple[str, ...] = ()  # the constraints the best passage does hold

    @property
    def refuses(self) -> bool:
        return bool(self.missing or self.apart)


# ----- mentions ----------------------------------------------------------------------------------
def _stem_sequence(text: str) -> list[frozenset[str]]:
    return [both_stems(w) for w in TOKEN.findall(_GLUED_SUBSCRIPT.sub(" ", text))]


def _has_phrase(sequence: Sequence[frozenset[str]], words: tuple[str, ...]) -> bool:
    """The words in order, at most `MAX_GAP` other words between two of them."""
    wanted = [both_stems(w) for w in words]
    for i, stems in enumerate(sequence):
        if not stems & wanted[0]:
            continue
        at, ok = i, True
        for target in wanted[1:]:
            nxt = next((j for j in range(at + 1, min(at + 2 + MAX_GAP, len(sequence))) if sequence[j] & target), None)
            if nxt is None:
                ok = False
                break
            at = nxt
        if ok:
            return True
    return False


def _joined_numbers(form: tuple[str, ...]) -> re.Pattern[str] | None:
    """Numbers written as one ("2018-19", "2018/19": a split fiscal year), never "2018: 19 %"; None
    unless every word of `form` is a number."""
    if len(form) < 2 or not all(w.isdigit() for w in form):
        return None
    return re.compile(r"\b" + r"\s?[-/\u2013]\s?".join(form) + r"\b")


def _says(form: tuple[str, ...], text: str, sequence: Sequence[frozenset[str]]) -> bool:
    """`text` (folded; `sequence` its stems) mentions `form`."""
    if (joined := _joined_numbers(form)) is not None:
        return bool(joined.search(text))
    return bool(both_stems(form[0]) & frozenset().union(*sequence)) if len(form) == 1 else _has_phrase(sequence, form)


def mentions(form: tuple[str, ...], texts: Iterable[str]) -> int:
    """How many of `texts` (folded) mention `form` (a word, or a phrase in order)."""
    if (joined := _joined_numbers(form)) is not None:
        return sum(1 for t in texts if joined.search(t))
    if len(form) == 1:
        wanted = both_stems(form[0])
        return sum(1 for t in texts if any(s & wanted for s in _stem_sequence(t)))
    return sum(1 for t in texts if _has_phrase(_stem_sequence(t), form))


def library_passages(term: Term, lookup: Lookup) -> int | None:
    """Passages of the accessible library that mention the term or one of its variants (capped);
    None when the library cannot tell."""
    best = 0
    for form in term.forms:
        texts = lookup(form, RARE_PASSAGES if len(form) == 1 else PHRASE_CANDIDATES)
        if texts is None:
            return None
        found = len(texts) if len(form) == 1 else mentions(form, texts)
        best = max(best, found)
        if best >= RARE_PASSAGES:
            break
    return best


MIN_WORD_CHARS = 5
# Below this many passages in scope, a plain word's absence says little (a 5-page library lacks most words).
MIN_PASSAGES_FOR_WORDS = 300


def counts_when_absent(term: Term, question_language: str, scope_languages: Iterable[str], passages: int) -> bool:
    """Identifiers and names carry the question; a plain word only inside a short parenthesised name,
    in its own language's scope, long enough, and in a scope large enough for its absence to mean
    something. Measured on the dev sets (benchmarks/answers_dev.py --terms-only): absent plain words
    are everywhere in paraphrased questions (31 of 85 dev questions held one), and so are short
    abbreviations the documents spell out (USP, TP, DTA)."""
    if term.kind in ("identifier", "name", "period"):
        return True
    if term.kind != "alias":
        return False
    return (
        question_language in set(scope_languages)
        and passages >= MIN_PASSAGES_FOR_WORDS
        and all(len(w) >= MIN_WORD_CHARS for w in term.words)
    )


def check_coverage(
    question: str,
    lookup: Lookup,
    passages: Sequence[str],
    question_language: str,
    scope_languages: Iterable[str],
    thesaurus: Thesaurus | None = None,
    scope_passages: int = 0,
    glossary: Glossary | None = None,
    furniture: frozenset[str] = frozenset(),
) -> Coverage:
    """Missing and not-retrieved terms of `question`; `passages` are the retrieved context texts,
    `scope_passages` the number of passages in the accessible scope, `furniture` the folded words of
    its page headers and footers and of its documents' titles (never a reason to refuse)."""
    furniture_stems = frozenset(s for w in furniture for s in both_stems(w))
    terms = [t for t in question_terms(question, thesaurus, glossary) if not _furniture(t, furniture_stems)]
    terms = as_written(terms, passages, question)  # a Title Case word the passages write in lower case names nothing
    languages = set(scope_languages)
    folded = [fold(p) for p in passages]
    missing: list[str] = []
    not_retrieved: list[str] = []
    counts: dict[str, int] = {}
    read: list[tuple[str, str]] = []
    for index, term in enumerate(terms):
        n = library_passages(term, lookup)
        if n is None:
            break  # no full-text index to ask: nothing can be said, nothing is refused
        counts_absent = counts_when_absent(term, question_language, languages, scope_passages)
        # only a word whose absence would refuse is read as a typo: a paraphrase's word is no slip
        if n == 0 and counts_absent and (fixed := _misspelt(term, folded, furniture)) is not None:
            read.append((term.text, _as_written(fixed.words, passages)))
            term = terms[index] = fixed
            if _furniture(term, furniture_stems):
                continue  # read as a title's word ("Neflix": the filing's company): names the document
            n = library_passages(term, lookup) or 1  # the passages hold it, whatever the index says
        if n == 0 and term.parts and _reported(term, lookup):
            terms[index] = replace(term, kind="word")  # computed from figures the library reports: no constraint
            continue
        counts[term.text] = n
        if n == 0:
            if counts_absent:
                missing.append(term.text)
            continue
        carries = term.kind in ("identifier", "abbreviation", "name", "period") or (n < RARE_PASSAGES and counts_absent)
        if carries and not any(mentions(form, folded) for form in term.forms):
            not_retrieved.append(term.text)
    named = [t.text for t in terms if t.text in missing and t.kind in ("identifier", "name", "period")]
    held = _held(constraints(terms, counts), folded) if not missing else []
    lacking, together = apart(terms, counts, held, question)
    # A missing name or identifier says it all; the words are named only when they are the whole reason.
    return Coverage(tuple(terms), tuple(named or missing), tuple(not_retrieved), counts, tuple(read), lacking, together)


def _reported(term: Term, lookup: Lookup) -> bool:
    """The library mentions every part a metric is computed from (`Term.parts`)."""
    return all(library_passages(Term("", "word", part[0], part[1:]), lookup) for part in term.parts if part)


def _held(terms: Sequence[Term], folded: Sequence[str]) -> list[set[str]]:
    """For each passage, the texts of the terms it mentions (a word, or a phrase in order)."""
    out = []
    for text in folded if terms else ():
        sequence = _stem_sequence(text)
        out.append({t.text for t in terms if any(_says(f, text, sequence) for f in t.forms)})
    return out


def _as_written(words: Sequence[str], passages: Sequence[str]) -> str:
    """The folded words as the passages write them (their capitals and accents)."""
    written = {fold(t): t for p in passages for t in TOKEN.findall(p)}
    return " ".join(written.get(w, w) for w in words)


def _misspelt(term: Term, folded: Sequence[str], titles: frozenset[str] = frozenset()) -> Term | None:
    """The term with each of its words the passages lack read as the passages' word one edit away
    (`typos.read_as`), or as a word of the scope's titles, file names and page furniture (`titles`: a
    company's name a filing writes on its cover and file name more than in its passages, "Neflix");
    None unless every such word has one and the passages then mention the term (or it is all titles')."""
    words = [w for p in folded for w in TOKEN.findall(p)]
    vocabulary = set(words) | titles
    fixed = []
    for word in term.words:
        near = word if word in vocabulary else read_as(word, [*words, *sorted(titles)])
        if near is None:
            return None
        fixed.append(near)
    corrected = Term(term.text, term.kind, tuple(fixed))
    if tuple(fixed) == term.words:
        return None
    return corrected if mentions(corrected.words, folded) or all(w in titles for w in fixed) else None


def _furniture(term: Term, stems: frozenset[str]) -> bool:
    """All the term's words occur in the page furniture or the titles (stemmed as the index does)."""
    return bool(stems) and term.kind != "period" and all(both_stems(w) & stems for w in term.words)


# ----- the check within a question's path --------------------------------------------------------
@dataclass(frozen=True)
class CoverageScope:
    """The accessible scope as the check sees it: the full-text lookup, its documents' languages, the
    thesaurus and the bilingual glossary."""

    lookup: Lookup
    languages: frozenset[str]
    thesaurus: Thesaurus | None = None
    passages: int = 0  # children in scope
    glossary: Glossary | None = None
    furniture: frozenset[str] = frozenset()  # folded words of page headers/footers and document titles

    def check(self, question: str, hits: Sequence[RetrievedParent], language: str) -> Coverage:
        """The question's terms (`language`: the question's) against the library and these passages."""
        return check_coverage(
            question,
            self.lookup,
            [passage_text(h) for h in hits],
            language,
            self.languages,
            self.thesaurus,
            self.passages,
            self.glossary,
            self.furniture,
        )


def passage_text(hit: RetrievedParent) -> str:
    """What a retrieved parent says: its section headings, its text and its items' captions."""
    return "\n".join([*hit.parent.heading_path, hit.parent.text, *(i.caption for i in hit.parent.items)])


def _mentions_all(hit: RetrievedParent, terms: Sequence[Term]) -> bool:
    text = [fold(passage_text(hit))]
    return all(any(mentions(form, text) for form in term.forms) for term in terms)


@dataclass(frozen=True)
class Retry:
    """One more search the check asks for: the question with the terms its passages lack."""

    query: str
    k: int
    wanted: tuple[Term, ...]


def coverage_retry(question: str, coverage: Coverage, context_k: int) -> Retry | None:
    """When the library mentions terms the first `context_k` parents do not (and none is missing from
    the library), the search to run once more: the question with those terms added; else None."""
    if coverage.missing or not coverage.not_retrieved:
        return None  # constraints apart may come together in the retry's passages: it is still run
    wanted = tuple(t for t in coverage.terms if t.text in coverage.not_retrieved)
    return Retry(f"{question} {' '.join(t.text for t in wanted)}", max(context_k, 10), wanted)


def use_retry(
    question: str,
    result: SearchResult,
    coverage: Coverage,
    retry: Retry,
    retried: SearchResult,
    context_k: int,
    library: CoverageScope,
    language: str,
) -> tuple[SearchResult, Coverage, tuple[str, ...]]:
    """The retry's parents that mention all the wanted terms first, then the others; kept only when
    its passages miss fewer of those terms and none that the first passages mentioned (a retry for one
    term must not cost another). Returns (result, coverage, terms retried)."""
    first = [h for h in retried.parents if _mentions_all(h, retry.wanted)]
    if not first:
        return result, coverage, coverage.not_retrieved
    ordered = first + [h for h in retried.parents if h not in first]
    parents = [h.model_copy(update={"fused_rank": i}) for i, h in enumerate(ordered, start=1)]
    checked = library.check(question, parents[:context_k], language)
    if not set(checked.not_retrieved) < set(coverage.not_retrieved):
        return result, coverage, coverage.not_retrieved  # the retry lost a term the first passages mentioned
    return result.model_copy(update={"parents": parents}), checked, coverage.not_retrieved


# ----- what the reader is told -------------------------------------------------------------------
SAY = {
    "en": {
        "missing": "None of the documents you can access mentions {terms}.",
        "not_in_passages": "The passages used do not mention {terms}, although the library does.",
        "retried": "The search was repeated requiring {terms}.",
        "read_as": "Read '{written}' as '{read}', the word the documents write.",
        "apart": "No passage found mentions {terms} together with {others}, though the documents mention each.",
        "apart_alone": "No passage found for this question mentions {terms}, though the documents do.",
        "quote": "'{}'",
        "or": " or ",
        "and": " and ",
    },
    "fr": {
        "missing": "Aucun des documents auxquels vous avez accès ne mentionne {terms}.",
        "not_in_passages": "Les passages utilisés ne mentionnent pas {terms}, que la bibliothèque contient pourtant.",
        "retried": "La recherche a été refaite en exigeant {terms}.",
        "read_as": "« {written} » a été lu « {read} », le mot qu'écrivent les documents.",
        "apart": "Aucun passage trouvé ne mentionne {terms} avec {others}, que les documents mentionnent.",
        "apart_alone": "Aucun passage trouvé ne mentionne {terms}, que les documents contiennent pourtant.",
        "quote": "« {} »",
        "or": " ni ",
        "and": " et ",
    },
}


def _listed(terms: Sequence[str], language: str, both: bool = False) -> str:
    say = SAY.get(language, SAY["en"])
    quoted = [say["quote"].format(t) for t in terms]
    join = say["and"] if both else say["or"]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + join + quoted[-1]


def missing_message(terms: Sequence[str], language: str) -> str:
    """ "None of the documents you can access mentions 'TSCA'." """
    return SAY.get(language, SAY["en"])["missing"].format(terms=_listed(terms, language))


def apart_message(terms: Sequence[str], others: Sequence[str], language: str) -> str:
    """ "No passage found mentions '2005' together with 'Mack', though the documents mention each." (the
    question's constraints that no one passage holds together)"""
    say = SAY.get(language, SAY["en"])
    if not others:
        return say["apart_alone"].format(terms=_listed(terms, language, True))
    return say["apart"].format(terms=_listed(terms, language, True), others=_listed(others, language, True))


def coverage_notes(
    not_in_passages: Sequence[str], retried: Sequence[str], language: str, read: Sequence[tuple[str, str]] = ()
) -> list[str]:
    """The sentences that mark an answer whose passages miss some of the question's terms, or that
    read a misspelt word as the passages' word."""
    say = SAY.get(language, SAY["en"])
    notes = [say["read_as"].format(written=w, read=r) for w, r in read]
    if retried:
        notes.append(say["retried"].format(terms=_listed(retried, language)))
    if not_in_passages:
        notes.append(say["not_in_passages"].format(terms=_listed(not_in_passages, language)))
    return notes
