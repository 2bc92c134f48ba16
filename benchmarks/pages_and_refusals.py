"""Page ranking and refusals on a question set with page evidence, every engine, paired intervals.

    HF_HUB_OFFLINE=1 nice python -m benchmarks.pages_and_refusals --questions Q.jsonl --pdf-dir PDFS \
        --data-dir LIBRARY [--out results.json] [--refusals-only | --pages-only]

Prints, for each engine of `rag_core.evaluation` (the channels, `hybrid-parents`, `hybrid-children`,
the pages of the product's parents read two ways, `answer-pages` and `parent-pages`, and the untuned
`bm25s-pages` baseline): hit@1/3/5, MRR and nDCG@10 over the answerable questions, with 95 %
bootstrap intervals, and the paired difference of each engine against `bm25s-pages` and against
the default engine. Then the product's refusals: each question is asked through `pipeline.ask`
(no language model: the extractive path, which refuses exactly as the model path does), within its
own PDF when the set names one (`pdf`, or `scope_pdf` for an outside set's unanswerable questions),
else the whole library. False refusals: answerable questions refused; true refusals: unanswerable
ones refused; each with its interval and the refusals by reason (a missing term, or no passage
above the evidence threshold). `--refusals-only` skips the page engines (to measure another
checkout's refusals on the same library with PYTHONPATH); `--pages-only` skips the refusals (the
page rankings are what `benchmarks/page_fusion.py` reads). The PDFs of `--pdf-dir` not yet in the
library are ingested first. Nothing here changes a setting.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.evaluation import ALL_ENGINES, load_rows, metrics, run_evaluation
from rag_core.evaluation.engines import default_engine

LOCAL = Principal.local_operator()
COLUMNS = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10")
BASELINE = "bm25s-pages"


def _ci(c: dict) -> str:
    return "n/a" if c["mean"] is None else f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"


def _diff(c: dict) -> str:
    return "n/a" if c["mean"] is None else f"{c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}]"


def page_table(results: dict) -> list[str]:
    rows = [r for r in results["questions"] if r["answerable"]]
    engines = results["engines"]
    reference = results["default_engine"]
    values = {e: {c: [r["engines"][e]["metrics"][c] for r in rows] for c in COLUMNS} for e in engines}
    lines = [f"{results['set']}: {len(rows)} answerable questions, default engine {reference} (mean [95% CI])"]
    lines.append("engine".ljust(22) + "".join(c.ljust(26) for c in COLUMNS))
    for e in engines:
        lines.append(e.ljust(22) + "".join(_ci(metrics.bootstrap_ci(values[e][c])).ljust(26) for c in COLUMNS))
    for against in (BASELINE, reference):
        if against not in values:
            continue
        lines.append(f"paired difference vs {against} (engine - {against}):")
        for e in engines:
            if e != against:
                cells = (_diff(metrics.paired_difference(values[e][c], values[against][c])) for c in COLUMNS)
                lines.append("  " + e.ljust(20) + "".join(x.ljust(26) for x in cells))
    return lines


def refusals(rows: list[dict], settings: Settings) -> list[dict]:
    """Each question asked through the product; whether it was refused and why."""
    ids = {r.file_name: r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)}
    out = []
    for row in rows:
        pdf = row.get("pdf") or row.get("scope_pdf")
        scope = [ids[pdf]] if isinstance(pdf, str) and pdf in ids else None
        answer = pipeline.ask(row["question"], settings, doc_ids=scope, principal=LOCAL)
        refused = answer.mode == "refused"
        reason = "" if not refused else ("missing term" if answer.missing_terms else "no passage above threshold")
        answerable = bool(row.get("pages") or row.get("evidence"))
        out.append({"id": row.get("id"), "answerable": answerable, "refused": refused, "reason": reason,
                    "missing_terms": list(answer.missing_terms)})  # fmt: skip
    return out


def refusal_table(found: list[dict]) -> list[str]:
    lines = []
    for answerable, name in (
        (True, "false refusals (answerable refused)"),
        (False, "true refusals (unanswerable refused)"),
    ):
        group = [f for f in found if f["answerable"] == answerable]
        ci = metrics.bootstrap_ci([float(f["refused"]) for f in group])
        reasons = {r: sum(1 for f in group if f["reason"] == r) for r in ("missing term", "no passage above threshold")}
        lines.append(f"{name}: {sum(f['refused'] for f in group)}/{len(group)} = {_ci(ci)}; by reason {reasons}")
    missing = [f"{f['id']}: {', '.join(f['missing_terms'])}" for f in found if f["answerable"] and f["missing_terms"]]
    if missing:
        lines.append("answerable questions refused for a missing term: " + "; ".join(missing))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--pdf-dir", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True, help="the library (PDFs not in it are ingested)")
    parser.add_argument("--engines", default="", help="comma-separated; default: all that this checkout has")
    parser.add_argument("--out", type=Path)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--refusals-only", action="store_true")
    only.add_argument("--pages-only", action="store_true")
    args = parser.parse_args()
    settings = Settings(data_dir=args.data_dir)
    rows = load_rows(args.questions)
    started = time.perf_counter()
    results: dict = {"set": args.questions.stem, "default_engine": default_engine(settings)}
    if not args.refusals_only:
        wanted = [e.strip() for e in args.engines.split(",") if e.strip()] or list(ALL_ENGINES)
        results = run_evaluation(
            rows, args.pdf_dir, settings, wanted, args.questions.stem, principal=LOCAL
        )  # fmt: skip
        print("\n".join(page_table(results)))
    if not args.pages_only:
        found = refusals(rows, settings)
        results["refusals"] = found
        print("\n".join(refusal_table(found)))
    print(f"({time.perf_counter() - started:.0f} s)")
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
