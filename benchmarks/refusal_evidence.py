"""Which refusal rule separates answerable from unanswerable questions: the term check's evidence.

    HF_HUB_OFFLINE=1 nice python -m benchmarks.refusal_evidence --data-dir LIBRARY Q.jsonl [Q2.jsonl ...]

Each question is asked through `pipeline.ask` (no language model), within its own PDF when the row
names one (`pdf` or `scope_pdf`); the term check it runs is recorded as the product ran it (after its
retry). Prints, for answerable and unanswerable questions apart: how many were refused, and why (a term
no document mentions; constraints no one passage holds together, `answering.coverage_joint`); how many
had a *constraint* (identifier, name, period) that the library mentions but no retrieved passage does;
and how many had a rare plain word (fewer than 4 passages of the scope) that no retrieved passage
mentions: the candidate rule that was measured and not kept, since answerable questions hold such words
as often as unanswerable ones. A row is answerable when it has `pages` or `evidence`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering import coverage as coverage_module
from rag_core.answering.coverage_joint import constraints
from rag_core.config import Settings
from rag_core.text import fold

LOCAL = Principal.local_operator()
RARE = 4


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()
    settings = Settings(data_dir=args.data_dir)
    recorded: dict[str, tuple] = {}
    check = coverage_module.check_coverage

    def recording(question, lookup, passages, *rest, **named):
        found = check(question, lookup, passages, *rest, **named)
        recorded[question] = (found, [fold(p) for p in passages])
        return found

    coverage_module.check_coverage = recording  # the product's own check, recorded as it runs
    ids = {r.file_name: r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)}
    rows = [json.loads(line) for path in args.questions for line in path.read_text().splitlines() if line.strip()]
    tally = {True: dict.fromkeys(("n", "refused", "missing", "apart", "constraint", "rare word"), 0)}
    tally[False] = dict(tally[True])
    for row in rows:
        pdf = row.get("pdf") or row.get("scope_pdf")
        scope = [ids[pdf]] if isinstance(pdf, str) and pdf in ids else None
        answer = pipeline.ask(row["question"], settings, doc_ids=scope, principal=LOCAL)
        group = tally[bool(row.get("pages") or row.get("evidence"))]
        group["n"] += 1
        group["refused"] += answer.mode == "refused"
        found, passages = recorded.get(row["question"], (None, []))
        if found is None:
            continue
        group["missing"] += bool(found.missing)
        group["apart"] += bool(found.apart)
        mentioned = [any(coverage_module.mentions(f, passages) for f in t.forms) for t in found.terms]
        by_text = dict(zip((t.text for t in found.terms), mentioned))
        group["constraint"] += any(not by_text[t.text] for t in constraints(found.terms, found.passages))
        group["rare word"] += any(
            not by_text[t.text] and 0 < found.passages.get(t.text, RARE) < RARE
            for t in found.terms
            if t.kind in ("word", "alias")
        )
        print(row.get("id"), answer.mode, list(answer.missing_terms), flush=True)
    for answerable, name in ((True, "answerable"), (False, "unanswerable")):
        counts = tally[answerable]
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
