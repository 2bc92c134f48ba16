"""A question's capitals name an entity only where the documents write the word with one (docs/method.md).

`coverage_terms` reads a capitalised word as a proper name ("Schnieper", "Netflix"): a constraint one
retrieved passage must hold with the question's other constraints (`coverage_joint`). A question written in
Title Case names no entity by its capitals: "After-tax Return on Average Equity", "Gross Profit to Total
Assets" are a metric's title, whose inputs a filing reports in two statements. Here such words become
plain words: a word that names a computation (`COMPUTATION_WORDS`), one that compares figures outside a run of
capitals ("the Highest revenue": `COMPARISON_WORDS`), a word the retrieved passages write in
lower case at least as often as with a capital after a lower-case word, and every word of a Title Case run
of the question that holds one of those ("Total Assets": the run is one title). Pure functions over the
question, its terms and the retrieved passages' text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from rag_core.answering.coverage_terms import TOKEN, Term
from rag_core.text import fold

# Words that name an operation on the documents' figures, not an entity: a metric's title writes them with
# capitals ("Interest Expense to Average Long-Term Debt Ratio"), and a filing reports the inputs, not the
# ratio. Never a name, so never a constraint a passage must hold.
COMPUTATION_WORDS = frozenset(
    "ratio ratios margin margins return returns average averages total totals growth change difference "
    "proportion percentage turnover coverage yield multiple cagr "
    "marge marges taux rendement moyenne variation ecart pourcentage croissance".split()
)
# Words that compare figures ("the Highest revenue", "the Lowest ratio"): they pick a figure and name nothing,
# unless they stand in a run of capitalised words, which may be a name ("Best Buy").
COMPARISON_WORDS = frozenset(
    "highest lowest largest smallest biggest greatest maximum minimum higher lower larger smaller "
    "maximal maximale minimal minimale eleve elevee eleves elevees".split()
)

# A word's capital is its style, not a name, where the passages write it in lower case: "After-tax Return
# on Average Equity" (a metric's title) against "Netflix" or "Mexico" (capitals wherever they are written).
_AFTER_WORD = re.compile(r"(\w+)[,;]?[ \t]+$")  # the word before, on the same line (a comma between)
_IN_ADDRESS = re.compile(r"[./@]\w")  # "netflix.com", "ir.netflix": a word of an address, not of prose


def _after_lower(text: str, start: int) -> bool:
    """A word in lower case comes before `start` on its line: a capital there is a name's ("at Netflix"),
    not a sentence's, a heading's or a Title Case run's ("Total Assets")."""
    before = _AFTER_WORD.search(text, max(0, start - 40), start)
    return before is not None and before.group(1).isalpha() and before.group(1).islower()


# what joins the capitalised words of one title ("Return on Capital Employed", "Gross Profit to Total Assets")
_JOINERS = frozenset("to on before after per over".split())  # not "of", "for", "in": they lead to the entity


def title_runs(question: str) -> list[set[str]]:
    """The folded words of each run of capitalised words in `question`, joined by spaces, a hyphen
    ("After-tax", "Long-Term") or a joining word between two capitals; runs of one word are left out."""
    runs: list[list[str]] = []
    current: list[str] = []
    tokens = list(TOKEN.finditer(question))
    for i, m in enumerate(tokens):
        raw, gap = m.group(), question[tokens[i - 1].end() : m.start()] if i else ""
        capital = raw[:1].isupper()
        joined = bool(current) and (gap.isspace() or gap == "-")
        following = tokens[i + 1].group() if i + 1 < len(tokens) else ""
        if capital and (joined or not current):
            current.append(fold(raw))
        elif joined and gap == "-":
            current.append(fold(raw))  # "After-tax": the lower-case half of a capitalised compound
        elif joined and raw in _JOINERS and following[:1].isupper():
            continue  # "Return on Capital": the joining word keeps the run open
        else:
            runs.append(current)
            current = [fold(raw)] if capital else []
    runs.append(current)
    return [set(r) for r in runs if len(r) >= 2]


def as_written(terms: Iterable[Term], passages: Iterable[str], question: str = "") -> list[Term]:
    """The terms, a name made plain word where each of its words names a computation (`COMPUTATION_WORDS`)
    or the passages write it in lower case at least as often as with a capital after a lower-case word (a
    sentence's, a heading's, a table cell's or a Title Case run's capital says nothing): the question's Title Case
    ("Return on Average Equity", "Total Assets") names no entity, and a plain word is no constraint. So is
    every word of a title run of `question` that holds such a word. Another capitalised word stays a name."""
    terms = list(terms)
    wanted = {w for t in terms if t.kind == "name" for w in t.words}
    if not wanted:
        return terms
    lower: dict[str, int] = {}
    capital: dict[str, int] = {}
    for text in passages:
        for m in TOKEN.finditer(text):
            word = fold(m.group())
            if (
                word not in wanted
                or _IN_ADDRESS.match(text, m.end())
                or text[max(0, m.start() - 1) : m.start()] in (".", "/", "@")
            ):
                continue
            raw = m.group()
            if raw.islower():
                lower[word] = lower.get(word, 0) + 1
            elif raw[:1].isupper() and not raw.isupper() and _after_lower(text, m.start()):
                capital[word] = capital.get(word, 0) + 1
    plain = {w for w in wanted if w in COMPUTATION_WORDS or (lower.get(w, 0) and lower[w] >= capital.get(w, 0))}
    named = {w for w in wanted if capital.get(w, 0) > lower.get(w, 0)}  # "at Northwind": the passages' name
    runs = title_runs(question)
    for run in runs:
        if run & plain:
            plain |= (run & wanted) - named  # one title: "Total Assets" is a plain phrase when "Total" is
    plain |= {w for w in wanted & COMPARISON_WORDS if not any(w in run for run in runs)}
    return [replace(t, kind="word") if t.kind == "name" and set(t.words) <= plain else t for t in terms]
