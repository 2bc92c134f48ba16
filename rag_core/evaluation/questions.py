"""Question sets (shared/eval/README.md format) and their graded relevant pages.

Grades: a page that holds the question's quote is grade 2, any other listed page grade 1
(nDCG@10 with linear gain, docs/method.md, "Evaluation"). Cross-document questions take their pages from
`evidence`; every evidence page holds a quote, so each is grade 2. Unanswerable questions
have no relevant page. This module does not search.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rag_core.errors import InputError
from rag_core.text import contains_quote

PageKey = tuple[str, int]  # (pdf file name, 1-based physical page)


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    language: str
    type: str
    pdfs: tuple[str, ...]
    relevant: dict[PageKey, int] = field(default_factory=dict)
    quote: str | None = None

    @property
    def answerable(self) -> bool:
        return bool(self.relevant)


def read_question_lines(lines: Iterable[str]) -> list[dict]:
    """Parse JSON lines; a bad line names its number instead of a traceback."""
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError.of("eval.bad_json", number=number, detail=err.msg) from err
        if not isinstance(row, dict) or not str(row.get("question", "")).strip():
            raise InputError.of("eval.no_question", number=number)
        rows.append(row)
    return rows


def load_rows(path: Path) -> list[dict]:
    if not Path(path).is_file():
        raise InputError.of("eval.no_set", path=path)
    return read_question_lines(Path(path).read_text(encoding="utf-8").splitlines())


def build_question(row: dict, page_text: Callable[[str, int], str | None] | None = None) -> Question:
    """One question with its graded pages; `page_text(pdf, page)` finds the quote's page when given."""
    quote = row.get("quote") or None
    relevant: dict[PageKey, int] = {}
    if row.get("evidence"):
        for ev in row["evidence"]:
            relevant[(str(ev["pdf"]), int(ev["page"]))] = 2
        pdfs = tuple(dict.fromkeys(str(ev["pdf"]) for ev in row["evidence"]))
    else:
        pdf = row.get("pdf")
        pdfs = tuple(pdf) if isinstance(pdf, list) else ((str(pdf),) if pdf else ())
        pages = [int(p) for p in row.get("pages") or []]
        if pdfs and pages:
            holding = [p for p in pages if quote and page_text and _holds(page_text(pdfs[0], p), quote)]
            best = set(holding) or {pages[0]}
            relevant = {(pdfs[0], p): (2 if p in best else 1) for p in pages}
    return Question(
        id=str(row.get("id") or f"q{abs(hash(row['question'])) % 10**8}"),
        question=str(row["question"]),
        language=str(row.get("language") or "en"),
        type=str(row.get("type") or "unknown"),
        pdfs=pdfs,
        relevant=relevant,
        quote=quote,
    )


def _holds(text: str | None, quote: str) -> bool:
    return bool(text) and contains_quote(text or "", quote)
