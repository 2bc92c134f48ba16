"""Answers on a question set, in the mode configured (extractive without an LLM key).

    .venv/bin/python benchmarks/answers_dev.py --data-dir DIR [--questions FILE.jsonl ...]

DIR must hold a library with the set's PDFs (e.g. the one `python -m rag_core evaluate`
built). Prints, per set: refusal rate on unanswerable questions, false refusals on answerable
ones, the share of answers whose cited sources contain the expected quote (normalised), and
the share whose cited sources include an expected page.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rag_core import pipeline  # noqa: E402
from rag_core.access import Principal  # noqa: E402
from rag_core.config import Settings  # noqa: E402
from rag_core.text import contains_quote  # noqa: E402

EVAL = REPO.parent / "shared" / "eval"


def expected_pages(q: dict) -> set[tuple[str, int]]:
    if q.get("evidence"):
        return {(e["pdf"], e["page"]) for e in q["evidence"]}
    return {(q["pdf"], p) for p in q.get("pages", [])} if isinstance(q.get("pdf"), str) else set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--questions", nargs="+",
                        default=[str(EVAL / "dev_questions.jsonl"), str(EVAL / "dev_hard_questions.jsonl")])
    args = parser.parse_args()
    settings = Settings(data_dir=Path(args.data_dir))
    for qfile in args.questions:
        questions = [json.loads(line) for line in Path(qfile).read_text().splitlines() if line.strip()]
        unans = refused_unans = answerable = false_refusals = quoted = paged = 0
        mode = ""
        failures = []
        for q in questions:
            answer = pipeline.ask(q["question"], settings, principal=Principal.local_operator())
            mode = mode or answer.mode
            refused = answer.mode == "refused"
            if q["type"] == "unanswerable":
                unans += 1
                refused_unans += refused
                continue
            answerable += 1
            false_refusals += refused
            cited = answer.sources
            if q.get("quote") and any(contains_quote(s.text, q["quote"]) for s in cited):
                quoted += 1
            else:
                failures.append(q["id"])
            want = expected_pages(q)
            if any((s.file_name, p) in want for s in cited for p in s.pages):
                paged += 1
        print(f"\n{Path(qfile).name}: {len(questions)} questions ({answerable} answerable, {unans} unanswerable)")
        if unans:
            print(f"  refusal rate on unanswerable questions: {refused_unans}/{unans} = {refused_unans / unans:.2f}")
        print(f"  false refusals on answerable questions: {false_refusals}/{answerable} = "
              f"{false_refusals / answerable:.2f}")
        print(f"  cited sources contain the expected quote: {quoted}/{answerable} = {quoted / answerable:.2f}")
        print(f"  cited sources include an expected page:   {paged}/{answerable} = {paged / answerable:.2f}")
        print(f"  quote not cited: {', '.join(failures[:40])}{' ...' if len(failures) > 40 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
