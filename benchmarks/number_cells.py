"""Number questions answered from the cell: how many answers give the expected figure from its table cell.

    .venv/bin/python -m benchmarks.number_cells --library DIR [--questions benchmarks/data/number_questions.jsonl]

DIR is a library holding the set's PDFs (the 19 corpus PDFs are the search space); it is COPIED to
a temporary directory first and never written. No language model is configured (extractive
answers). For each question of the set (its `answer` is the expected figure, `pages` the page of
its table, `kind` "cell" or a computation such as "ratio"), prints whether the answer's FIRST
paragraph states the expected figure traced to a table cell on the expected page (or computed
and checked, for a computation), whether ANY paragraph does, and the first paragraph's text.
Runs on an older checkout too, which gives the "before" figures. The set was written from the
tables before the cell answer was built; the rules were not tuned on it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering.numbers import extract_numbers, rounds_to, same_value
from rag_core.config import Settings
from rag_core.models import NumberTrace, Paragraph

os.environ.setdefault("HF_HUB_OFFLINE", "1")
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_LLM__API_KEY", "RAG_LLM__BASE_URL"):
    os.environ.pop(_var, None)  # extractive mode, whatever the shell says
REPO = Path(__file__).resolve().parents[1]


def right(q: dict, n: NumberTrace) -> bool:
    """The expected figure, stated, from a cell of the expected page (or computed and checked)."""
    expected = extract_numbers(q["answer"], q["language"])[:1]
    if not expected or not n.stated:
        return False
    (want,) = expected
    equal = any(same_value(v, n.value) for v in want.values()) or rounds_to(want, n.value)
    if not equal:
        return False
    if n.status == "computed":
        return q.get("kind", "cell") != "cell"
    loc = n.location
    return (
        n.status == "quoted" and loc is not None and loc.kind == "cell" and any(b.page in q["pages"] for b in loc.boxes)
    )


def good(q: dict, p: Paragraph) -> bool:
    return any(right(q, n) for n in p.numbers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, required=True, help="data dir to copy (never written)")
    parser.add_argument("--questions", type=Path, default=REPO / "benchmarks" / "data" / "number_questions.jsonl")
    args = parser.parse_args()
    if not (args.library / "lancedb").exists():
        raise SystemExit(f"{args.library} holds no library (lancedb/ missing)")
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="number-cells-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(args.library, data)
        settings = Settings(data_dir=data)
        lead = anywhere = 0
        for q in questions:
            a = pipeline.ask(q["question"], settings, principal=Principal.local_operator())
            first = bool(a.paragraphs) and good(q, a.paragraphs[0])
            some = any(good(q, p) for p in a.paragraphs)
            lead += first
            anywhere += some
            shown = a.paragraphs[0].text.replace("\n", " / ")[:160] if a.paragraphs else f"({a.mode})"
            print(f"{q['id']}\t{'LEAD' if first else 'any' if some else '-'}\texpected {q['answer']}\t{shown}")
        n = len(questions)
        print(
            f"\n{args.questions.name}: {n} questions; expected figure from its cell in the first paragraph: "
            f"{lead}/{n}; in any paragraph: {anywhere}/{n}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
