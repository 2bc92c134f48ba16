"""Evidence for an answer without a model: the sentences of the context that answer the question.

Every sentence of the context parents (the budget's parents, nothing more) is a candidate,
except code, console output and formula source text (`is_code_like`): they stay citable
sources, visible in the viewer, but are never offered as an answer sentence. A candidate's
relevance is the share of the question's weight it covers: each question word (Snowball
stems, French and English, so "provisions" meets "provision") weighs its inverse frequency
among the candidates, and the thesaurus labels the search added (synonyms, translations)
count at half weight; the passage the search chose adds a little, and so does the question's
language when two candidates are otherwise equal. Sentences under the relevance floor are
dropped; the rest are chosen by maximal marginal relevance (Carbonell & Goldstein, SIGIR
1998), so that a sentence repeating a chosen one gives way to a new one.
Nothing here is generated and nothing is searched.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.answering.coverage_terms import question_terms
from rag_core.models import Paragraph, RetrievedParent
from rag_core.stemming import both_stems
from rag_core.text import ASKING_VERBS, STOP_WORDS, fold
from rag_core.understanding.references import named

# Measured on the dev sets (85 + 40 answerable questions, same searches; expected quote among the cited
# sources, mean answer words): floors 0.2/0.4 and 4 sentences: 55/85, 9/40, 82 words; 0.1/0.25 and 5:
# 61/85, 10/40, 132 words; 0.05/0.1 and 8: 61/85, 13/40, 188 words. Every context parent cited whole
# (before the evidence sentences were chosen): 63/85, 13/40, about 250 words.
MAX_SENTENCES = 5  # of the whole answer
MAX_PER_PARENT = 3
MAX_SENTENCE_CHARS = 700  # a whole table row or a run-on list item is not a readable sentence
MIN_RELEVANCE = 0.1  # share of the question's weight a sentence must cover
RELATIVE_FLOOR = 0.25  # ... and this share of the best sentence's relevance
MMR_LAMBDA = 0.7
BEST_CHILD_BONUS = 0.05
LANGUAGE_BONUS = 0.02
THESAURUS_WEIGHT = 0.5
PROSE_WORDS = 0.6  # share of word tokens above which a sentence with inline math letters is prose

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[A-ZÀ-ÖØ-Ý0-9«\"(\[$\\])")
_TABLE_RULE = re.compile(r"^[\s|:\-+=]*$")
_FIGURE_RUN = re.compile(r"(?<!\S)(?:[-+(]?\d[\d.,]*%?\)?\s+){5,}[-+(]?\d[\d.,]*%?\)?(?!\S)")  # six figures or more
_WORD = re.compile(r"\w+")

# Code, console output and formula source (R, Python, LaTeX): what never reads as an answer.
_CODE_MARKERS = re.compile(
    r"(<-|->|==|!=|:=|\w\$\w|\w::\w|\[\d+,?\]|\[,\d+\]|\\[a-zA-Z]+\{|\^\{|_\{|\{\s*$|^\s*\}"
    r"|\b(library|function|return|require|print|summary|plot|import|def)\s*\(|\w\(\s*\)|\w\([^()\s]*=[^()]*\))"
)
_PROMPT = re.compile(r"^\s*(>|\+ |R>|\$ |>>>|In \[\d+\]|Out\[\d+\])")
_MATH_CHARS = re.compile(r"[=+*/^_<>≤≥∑∏∫√∞±×÷∂≈≠∈∀∃{}\[\]|\\]")


def is_code_like(sentence: str) -> bool:
    """Code, console output or formula source: a prompt, assignment or call syntax, or a line that is
    mostly figures and symbols rather than words."""
    text = sentence.strip()
    if not text:
        return True
    if _PROMPT.match(text) or _CODE_MARKERS.search(text):
        return True
    tokens = text.split()
    words = [t for t in tokens if re.fullmatch(r"[^\W\d_]{2,}[.,;:!?)]?", t)]
    numbers = [t for t in tokens if re.fullmatch(r"[-+(]?[\d.,]+%?\)?", t)]
    if len(tokens) >= 4 and (len(numbers) >= max(3, 0.5 * len(tokens)) or len(numbers) >= max(6, 0.4 * len(tokens))):
        return True  # a line of output or of a table (a table's rows flattened into one "sentence")
    symbols = len(_MATH_CHARS.findall(text))
    if symbols >= 3 and symbols > 0.15 * len(text.replace(" ", "")):
        return True
    if len(tokens) >= 3 and len(words) < 0.4 * len(tokens):
        return True  # formula flattened from a PDF: single letters, indices, operators
    # Unicode mathematical italic letters (𝑥, 𝜆) are what a PDF's formula text layer holds; a sentence
    # that is mostly words is prose with inline symbols ("Let 𝑈(𝑡) denote the surplus at time 𝑡")
    math_letters = sum(0x1D400 <= ord(c) <= 0x1D7FF for c in text)
    return math_letters >= 3 and len(words) < PROSE_WORDS * len(tokens)


def _figure_runs_apart(piece: str) -> list[str]:
    """A run of figures (a table's rows flattened by the text layer) is its own piece, so that the
    words glued after it ("… 99.69 Total 105.58 3.4 Clark's methods …") are judged on their own."""
    out, last = [], 0
    for m in _FIGURE_RUN.finditer(piece):
        out += [piece[last : m.start()], m.group()]
        last = m.end()
    return [*out, piece[last:]]


def split_sentences(text: str) -> list[str]:
    """Verbatim pieces of `text`: lines, then sentences, runs of figures apart; table rules and empty
    pieces removed."""
    out: list[str] = []
    for line in text.splitlines():
        if _TABLE_RULE.match(line):
            continue
        for sentence in _SENTENCE_END.split(line):
            for piece in _figure_runs_apart(sentence):
                piece = piece.strip()
                if len(re.findall(r"\w", piece)) >= 3:
                    out.append(piece)
    return out


def clip(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    cut = sentence[:MAX_SENTENCE_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def stem_set(text: str) -> frozenset[str]:
    """Content stems of a text (French and English Snowball stems of its folded words)."""
    out: set[str] = set()
    for word in _WORD.findall(fold(text)):
        if word not in STOP_WORDS and len(word) > 1 and not word.isdigit():
            out |= both_stems(word)
    return frozenset(out)


def _word_stems(text: str, skip: frozenset[str] = frozenset()) -> list[frozenset[str]]:
    """One stem set per content word (none of `skip`): a word counts once whatever its two stems."""
    words = dict.fromkeys(_WORD.findall(fold(text)))
    return [both_stems(w) for w in words if w not in STOP_WORDS and w not in skip and len(w) > 1]


@dataclass(frozen=True)
class Candidate:
    parent: int  # index of the parent in the context
    order: tuple[int, int]  # (child index, position in child): document order
    text: str
    stems: frozenset[str]
    relevance: float
    line: int = -1  # the line of the parent's text that holds it (`units.parent_lines`)
    terms: frozenset[tuple[int, float]] = frozenset()  # the question's terms it holds: (term, share of weight)


def candidates(
    hits: Sequence[RetrievedParent], question: str, language: str = "", extra_terms: Sequence[str] = ()
) -> list[Candidate]:
    """Every prose sentence of the context parents, with its relevance to the question."""
    raw: list[tuple[int, tuple[int, int], str, frozenset[str], bool, str, int]] = []
    stating = {id(h) for h in stating_parents(hits, question)}
    for p, hit in enumerate(hits):
        if id(hit) not in stating:
            continue  # a list of works cited says what others wrote, not what this document states
        line_no = 0
        for child in hit.children or [hit.best_child]:
            pos = 0
            for line in child.text.splitlines():
                for sentence in split_sentences(line):
                    pos += 1
                    if is_code_like(sentence):
                        continue
                    raw.append(
                        (
                            p,
                            (child.index, pos),
                            clip(sentence),
                            stem_set(sentence),
                            child.id == hit.best_child.id,
                            hit.document.language,
                            line_no,
                        )
                    )
                line_no += 1
    if not raw:
        return []
    n = len(raw)

    def idf(stems: frozenset[str]) -> float:
        df = sum(1 for r in raw if r[3] & stems)
        return math.log(1 + n / (1 + df))

    held = _named_parts(hits, question)
    for p, words in _heading_names(hits, question).items():
        held[p] = held.get(p, frozenset()) | words
    query = [(stems, 1.0) for stems in _word_stems(question, ASKING_VERBS)]
    asked = frozenset().union(*(s for s, _ in query)) if query else frozenset()
    for term in extra_terms:
        query += [(stems, THESAURUS_WEIGHT) for stems in _word_stems(term) if not stems & asked]
    weights = [(stems, w * idf(stems)) for stems, w in query]
    total = sum(w for _, w in weights) or 1.0
    out = []
    for p, order, text, stems, best, doc_language, line_no in raw:
        words_held = stems | held.get(p, frozenset())
        terms = frozenset((i, w / total) for i, (words, w) in enumerate(weights) if words & words_held)
        covered = sum(w for _, w in terms)
        bonus = (BEST_CHILD_BONUS if best and covered else 0.0) + (
            LANGUAGE_BONUS if covered and doc_language == language else 0.0
        )
        out.append(Candidate(p, order, text, stems, covered + bonus, line_no, terms))
    return out


# The headings of a list of works cited, and the words of a question that asks for one.
_REFERENCE_LIST = re.compile(
    r"^\s*(?:[\dIVX]+\.?\s+)?(?:references?|bibliograph(?:y|ie)|r[ée]f[ée]rences(?: bibliographiques)?|"
    r"works cited|literature|further reading|sources)\s*$",
    re.IGNORECASE,
)
_WORKS = re.compile(
    r"\b(?:references?|bibliograph\w*|r[ée]f[ée]rences?|cite[sd]?|citing|cit[ée]e?s?|paper|article by|"
    r"published|publi[ée]e?s?|authors?|auteurs?|journal|revue)\b",
    re.IGNORECASE,
)


def is_reference_list(heading_path: Sequence[str]) -> bool:
    """The parent sits under a list of works cited ("References", "Bibliographie", "4. Literature")."""
    return any(_REFERENCE_LIST.match(h) for h in heading_path)


def _asks_for_works(question: str) -> bool:
    return bool(_WORKS.search(question))


def stating_parents(hits: Sequence[RetrievedParent], question: str) -> list[RetrievedParent]:
    """The parents whose sentences and tables may answer: all but lists of works cited, unless the question
    asks about works (their authors, what a document cites)."""
    if _asks_for_works(question):
        return list(hits)
    return [h for h in hits if not is_reference_list(h.parent.heading_path)]


def _named_parts(hits: Sequence[RetrievedParent], question: str) -> dict[int, frozenset[str]]:
    """The words of a numbered part the question names ("Guideline 37C", « ligne directrice 37C »), held by
    every sentence of a context parent the search found to be that part (`RetrievedParent.named`): its
    sentences need not repeat their own heading to answer "what does Guideline 37C say?"."""
    refs = named(question)
    if not refs or not any(hit.named for hit in hits):
        return {}
    words = frozenset().union(*(stem_set(r.mention) for r in refs))
    return {p: words for p, hit in enumerate(hits) if hit.named}


def _heading_names(hits: Sequence[RetrievedParent], question: str) -> dict[int, frozenset[str]]:
    """The stems of the names the question gives ("Bühlmann") that a context parent's headings hold
    ("4 Modèle de crédibilité de Bühlmann › Prime de crédibilité"): every sentence under that heading is
    about the name, though none repeats it (the premium's formula says "z", not "Bühlmann")."""
    names = [both_stems(w) for t in question_terms(question) if t.kind == "name" for w in t.words]
    if not names:
        return {}
    out = {}
    for p, hit in enumerate(hits):
        heading = stem_set(" ".join(hit.parent.heading_path))
        found = frozenset().union(*(stems for stems in names if stems & heading))
        if found:
            out[p] = found
    return out


def _similarity(a: Candidate, b: Candidate) -> float:
    union = a.stems | b.stems
    return len(a.stems & b.stems) / len(union) if union else 0.0


def select(cands: Sequence[Candidate], limit: int = MAX_SENTENCES, per_parent: int = MAX_PER_PARENT) -> list[Candidate]:
    """The relevant sentences, by maximal marginal relevance, above the floors; in (parent, document) order."""
    if not cands:
        return []
    top = max(c.relevance for c in cands)
    pool = [c for c in cands if c.relevance >= max(MIN_RELEVANCE, RELATIVE_FLOOR * top)]
    chosen: list[Candidate] = []
    while pool and len(chosen) < limit:

        def gain(c: Candidate) -> float:
            redundancy = max((_similarity(c, s) for s in chosen), default=0.0)
            return MMR_LAMBDA * c.relevance - (1 - MMR_LAMBDA) * redundancy

        best = max(pool, key=lambda c: (gain(c), -c.parent, [-x for x in c.order]))
        pool.remove(best)
        if sum(1 for c in chosen if c.parent == best.parent) >= per_parent or any(c.text == best.text for c in chosen):
            continue
        chosen.append(best)
    return sorted(chosen, key=lambda c: (c.parent, c.order))


def mark_stated(paragraphs: Sequence[Paragraph]) -> list[Paragraph]:
    """Numbers found in a sentence of code or console output stay traced but are not stated as facts."""
    out = []
    for para in paragraphs:
        numbers = [
            n.model_copy(update={"stated": False})
            if n.location is not None and n.location.kind == "sentence" and is_code_like(n.location.text)
            else n
            for n in para.numbers
        ]
        out.append(para.model_copy(update={"numbers": numbers}))
    return out
