"""Answers on the development sets, in the mode configured (extractive without an LLM key).

    .venv/bin/python -m benchmarks.answers_dev --data-dir DIR [--questions FILE.jsonl ...] [--out FILE.json]
    .venv/bin/python -m benchmarks.answers_dev --data-dir DIR --terms-only     # the term check alone, fast

DIR must hold a library with the set's PDFs (e.g. the one `benchmarks/eval_dev.py` built; all 19
corpus PDFs are the search space). Prints, per set: refusals of unanswerable questions (and the
terms named), false refusals of answerable ones (with the terms that caused them), the share of
answers whose cited sources contain the expected quote (normalised) and include an expected page,
the mean answer length (words, paragraphs), how many answers show code or R console text
(an independent ruler, not the filter the answers use), and, for a set whose questions carry their
expected answer (`answer`: the outside sets' figures and names), how many answers hold it in their
text, anywhere and in the paragraph they lead with (`holds_answer`: a figure equal once written out,
a name or each item of a list as written; small figures match by chance, so compare runs paired).
`--terms-only` runs only the question's term check against the library (no search, no answer):
what tuning the refusal rules needs.
Runs on an older checkout too (fields it lacks count as absent), which gives the "before" figures.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.question import coverage_scope
from rag_core.services.documents import readable_document_ids
from rag_core.text import contains_quote

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
EVAL = SHARED / "eval"
# Code or console output, read independently of rag_core.answering.evidence: an R prompt or
# assignment, a matrix index ([1,]), an accessor (fit$Totals), a call with named arguments, or a
# run of six bare figures (printed output or a table row flattened into a sentence).
CONSOLE = re.compile(
    r"(^|\s)>\s?[\w.]+\s*\(|<-|\[\d+,\]|\[,\d+\]|\w\$\w|\b[\w.]+\([^()]*=[^()]*\)"
    r"|(-?\d[\d.,]*\s+){5}-?\d"
)


def expected_pages(q: dict) -> set[tuple[str, int]]:
    if q.get("evidence"):
        return {(e["pdf"], e["page"]) for e in q["evidence"]}
    return {(q["pdf"], p) for p in q.get("pages", [])} if isinstance(q.get("pdf"), str) else set()


def expected_files(q: dict) -> set[str]:
    return {pdf for pdf, _ in expected_pages(q)} | ({q["pdf"]} if isinstance(q.get("pdf"), str) else set())


_FIGURE = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _figure(text: str) -> float | None:
    """The value of an expected answer that is one figure ("18.40%", "$453.25", "435000000"); else None."""
    bare = text.strip().strip("$€£%").replace(",", "").strip()
    try:
        return float(bare)
    except ValueError:
        return None


def holds_answer(text: str, answer: str) -> bool:
    """`text` holds the expected `answer`: its figure (any writing: "18.4%" for "18.40%", "435,000,000"),
    else each item of a list answer, else the answer's words in order (case and spacing aside)."""
    answer = answer.strip()
    if not answer:
        return False
    if answer.startswith("["):
        try:
            items = ast.literal_eval(answer)
        except (ValueError, SyntaxError):
            items = None
        if isinstance(items, list) and items:
            return all(holds_answer(text, str(item)) for item in items)
    value = _figure(answer)
    if value is not None:
        return any(_figure(m) == value for m in _FIGURE.findall(text))
    return " ".join(answer.lower().split()) in " ".join(text.lower().split())


def load(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def terms_only(questions: list[dict], settings: Settings) -> list[dict]:
    from rag_core.answering.coverage import check_coverage

    library = coverage_scope(settings, readable_document_ids(settings, principal=Principal.local_operator()))
    # an older checkout's library has no glossary
    extra: dict[str, Any] = {"glossary": library.glossary} if hasattr(library, "glossary") else {}
    rows = []
    for q in questions:
        coverage = check_coverage(
            q["question"],
            library.lookup,
            [],
            q["language"],
            library.languages,
            library.thesaurus,
            library.passages,
            **extra,
        )
        rows.append(
            {
                "id": q["id"],
                "type": q["type"],
                "refused": coverage.refuses,
                "missing": list(coverage.missing),
                "terms": [f"{t.text}:{t.kind}:{coverage.passages.get(t.text)}" for t in coverage.terms],
            }
        )
    return rows


def answer_all(questions: list[dict], settings: Settings) -> list[dict]:
    rows = []
    for q in questions:
        started = time.perf_counter()
        a = pipeline.ask(q["question"], settings, principal=Principal.local_operator())
        text = " ".join(p.text for p in a.paragraphs)
        by_id = {s.id: s for s in a.sources}
        cited = [[by_id[i] for i in p.source_ids if i in by_id] for p in a.paragraphs]
        files = expected_files(q)
        reading = getattr(a, "reading", None)
        # the lead: the first paragraph, and the one after it when the first is the reader's short answer
        first = a.paragraphs[: 2 if reading is not None and reading.short_answer else 1]
        lead_text = " ".join(p.text for p in first)
        lead_pages = [
            (by_id[i].file_name, n) for p in first for i in p.source_ids[:1] if i in by_id for n in by_id[i].pages[:1]
        ]
        rows.append(
            {
                "id": q["id"],
                "type": q["type"],
                "mode": a.mode,
                "refused": a.mode == "refused",
                "missing": list(getattr(a, "missing_terms", [])),
                "retried": list(getattr(a, "retried_terms", [])),
                "quoted": bool(q.get("quote")) and any(contains_quote(s.text, q["quote"]) for s in a.sources),
                "holds_answer": bool(q.get("answer")) and holds_answer(text, str(q["answer"])),
                "lead_holds_answer": bool(q.get("answer") and a.paragraphs)
                and holds_answer(a.paragraphs[0].text, str(q["answer"])),
                "paged": any((s.file_name, p) in expected_pages(q) for s in a.sources for p in s.pages),
                # the lead states the gold fact: the expected answer (outside sets) or quote (dev sets) in it
                "lead_states": bool(first)
                and (
                    holds_answer(lead_text, str(q["answer"]))
                    if q.get("answer") and len(str(q["answer"])) <= 80
                    else bool(q.get("quote")) and contains_quote(lead_text, q["quote"])
                ),
                "lead_paged": any(x in expected_pages(q) for x in lead_pages),
                "reading_best": reading.best if reading is not None else None,
                "reading_s": reading.elapsed_s if reading is not None else 0.0,
                "short": reading.short_answer if reading is not None else "",
                "words": len(text.split()),
                # per paragraph: does it cite an expected document / an expected page (answer precision)
                "on_document": [any(s.file_name in files for s in c) for c in cited],
                "on_page": [any((s.file_name, n) in expected_pages(q) for s in c for n in s.pages) for c in cited],
                "paragraphs": len(a.paragraphs),
                "console": [
                    p.text[:120] for p in a.paragraphs if CONSOLE.search(p.text) and getattr(p, "table", None) is None
                ],
                "elapsed_s": time.perf_counter() - started,
            }
        )
    return rows


def report(name: str, rows: list[dict], full: bool) -> None:
    unans = [r for r in rows if r["type"] == "unanswerable"]
    answerable = [r for r in rows if r["type"] != "unanswerable"]
    print(f"\n{name}: {len(rows)} questions ({len(answerable)} answerable, {len(unans)} unanswerable)")
    if unans:
        refused = [r for r in unans if r["refused"]]
        print(
            f"  unanswerable refused: {len(refused)}/{len(unans)}  "
            + "; ".join(f"{r['id']} {r['missing']}" for r in unans)
        )
    false = [r for r in answerable if r["refused"]]
    print(
        f"  false refusals: {len(false)}/{len(answerable)} = {len(false) / len(answerable):.3f}  "
        + "; ".join(f"{r['id']} {r['missing']}" for r in false)
    )
    if not full:
        return
    shown = [r for r in answerable if not r["refused"]]
    n = len(answerable)
    print(
        f"  cited sources contain the expected quote: {sum(r['quoted'] for r in answerable)}/{n} = "
        f"{sum(r['quoted'] for r in answerable) / n:.2f} (of answers given: "
        f"{sum(r['quoted'] for r in shown)}/{len(shown)})"
    )
    print(f"  cited sources include an expected page:   {sum(r['paged'] for r in answerable) / n:.2f}")
    with_answer = [r for r in answerable if "holds_answer" in r]
    if any(r["holds_answer"] for r in with_answer):
        print(
            f"  answer text holds the expected answer: {sum(r['holds_answer'] for r in with_answer)}/{n}, "
            f"in its first paragraph: {sum(r['lead_holds_answer'] for r in with_answer)}/{n}"
        )
    if shown:
        print(
            f"  answer length: {sum(r['words'] for r in shown) / len(shown):.0f} words, "
            f"{sum(r['paragraphs'] for r in shown) / len(shown):.1f} paragraphs (mean of answers given)"
        )
    paragraphs = [(r, i) for r in shown for i in range(len(r.get("on_document", [])))]
    if paragraphs:
        off = sum(not r["on_document"][i] for r, i in paragraphs)
        print(
            f"  paragraphs citing no expected document: {off}/{len(paragraphs)} = {off / len(paragraphs):.3f}; "
            f"citing an expected page: {sum(r['on_page'][i] for r, i in paragraphs) / len(paragraphs):.3f}"
        )
    console = [r for r in rows if r.get("console")]
    print(f"  answers with code or console text: {len(console)}  " + "; ".join(r["id"] for r in console))
    retried = [r for r in rows if r.get("retried")]
    print(f"  searches retried with terms the passages lacked: {len(retried)}")
    print(f"  seconds per question: {sum(r['elapsed_s'] for r in rows) / len(rows):.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument(
        "--questions", nargs="+", default=[str(EVAL / "dev_questions.jsonl"), str(EVAL / "dev_hard_questions.jsonl")]
    )
    parser.add_argument("--terms-only", action="store_true")
    parser.add_argument("--out", help="write the per-question rows as JSON")
    args = parser.parse_args()
    settings = Settings(data_dir=Path(args.data_dir))
    every = {}
    for qfile in args.questions:
        questions = load(qfile)
        rows = terms_only(questions, settings) if args.terms_only else answer_all(questions, settings)
        every[Path(qfile).stem] = rows
        report(Path(qfile).name, rows, not args.terms_only)
    if args.out:
        Path(args.out).write_text(json.dumps(every, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
