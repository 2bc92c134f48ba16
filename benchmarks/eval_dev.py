"""Development-set evaluation and the experiments behind its recommendations.

    HF_HUB_OFFLINE=1 python -m benchmarks.eval_dev --data-dir /tmp/evaldata --out-dir /tmp/evalout
    HF_HUB_OFFLINE=1 python -m benchmarks.eval_dev --analyse-only --out-dir /tmp/evalout

Runs `rag_core.evaluation.run_evaluation` on both development sets with one shared library
(all PDFs of the corpus are the search space), writes `results_<set>.json`, then re-fuses
the saved per-question page rankings offline: weighted RRF (lexical vs dense, and the page
channel's weight), other RRF k, and fusions that include the bm25s page ranking; and the
paired difference the page channel makes. Nothing here changes the product's defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.evaluation import load_rows, metrics, run_evaluation, summary_text

LOCAL = Principal.local_operator()  # the local operator (administrator): measured on the whole library
SHARED = Path(os.environ.get("RAG_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
SETS = ("dev_questions", "dev_hard_questions")
COLUMNS = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "recall@10", "recall@100")


def _pages(run: dict) -> list[tuple[str, int]]:
    return [(p["pdf"], p["page"]) for p in run["ranked_pages"]]


def _score(rows: list[dict], rank_of) -> dict[str, float]:
    values = [
        metrics.rank_metrics(rank_of(r), {(x["pdf"], x["page"]): x["grade"] for x in r["relevant"]}) for r in rows
    ]
    return {c: sum(v[c] for v in values) / len(values) for c in COLUMNS}


def analyse(results: dict) -> list[tuple[str, dict[str, float]]]:
    """Offline variants of page fusion on the saved rankings (answerable questions)."""
    rows = [r for r in results["questions"] if r["answerable"]]
    eng = results["engines"]
    out = []

    def add(name: str, rank_of) -> None:
        out.append((name, _score(rows, rank_of)))

    if {"lexical", "dense"} <= set(eng):
        for w in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5):
            add(
                f"RRF lexical + {w} x dense",
                lambda r, w=w: metrics.fuse_rankings(
                    [_pages(r["engines"]["lexical"]), _pages(r["engines"]["dense"])], weights=[1.0, w]
                ),
            )
        for k in (10, 30, 100):
            add(
                f"RRF k={k} lexical + dense",
                lambda r, k=k: metrics.fuse_rankings(
                    [_pages(r["engines"]["lexical"]), _pages(r["engines"]["dense"])], k=k
                ),
            )
    if {"lexical", "dense", "pages"} <= set(eng):
        for dw, pw in ((0.25, 0.5), (0.25, 1.0), (0.25, 1.5), (0.5, 1.0), (1.0, 1.0)):
            add(
                f"RRF lexical + {dw} x dense + {pw} x pages",
                lambda r, dw=dw, pw=pw: metrics.fuse_rankings(
                    [_pages(r["engines"][e]) for e in ("lexical", "dense", "pages")], weights=[1.0, dw, pw]
                ),
            )
    if {"bm25s-pages", "dense"} <= set(eng):
        for w in (0.5, 1.0):
            add(
                f"RRF bm25s-pages + {w} x dense",
                lambda r, w=w: metrics.fuse_rankings(
                    [_pages(r["engines"]["bm25s-pages"]), _pages(r["engines"]["dense"])], weights=[1.0, w]
                ),
            )
    if {"bm25s-pages", "lexical", "dense"} <= set(eng):
        add(
            "RRF bm25s-pages + lexical + dense",
            lambda r: metrics.fuse_rankings([_pages(r["engines"][e]) for e in ("bm25s-pages", "lexical", "dense")]),
        )
    return out


def paired_page_channel(results: dict) -> list[str]:
    """Paired differences (95 % bootstrap) of the default (with the page channel) against the same
    fusion without it, on the same questions: what the page channel adds."""
    rows = [r for r in results["questions"] if r["answerable"]]
    if not {"lexical", "dense", "pages"} <= set(results["engines"]):
        return []
    weights = results["versions"]["retrieval"]
    dw, pw = weights.get("dense_weight", 0.25), weights.get("page_weight", 1.0)
    lines = []
    for label, subset in (("all answerable", rows), ("single-document", [r for r in rows if len(r["pdfs"]) == 1])):

        def scores(page_w: float) -> list[dict[str, float]]:
            return [
                metrics.rank_metrics(
                    metrics.fuse_rankings(
                        [_pages(r["engines"][e]) for e in ("lexical", "dense", "pages")], weights=[1.0, dw, page_w]
                    ),
                    {(x["pdf"], x["page"]): x["grade"] for x in r["relevant"]},
                )
                for r in subset
            ]

        with_pages, without = scores(pw), scores(0.0)
        cells = []
        for c in ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10"):
            d = metrics.paired_difference([s[c] for s in with_pages], [s[c] for s in without])
            cells.append(f"{c} {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]")
        lines.append(f"page channel (weight {pw}) vs none, {label} ({len(subset)}): " + ", ".join(cells))
    return lines


def print_analysis(name: str, variants: list[tuple[str, dict[str, float]]]) -> None:
    print(f"\n{name}: offline page-fusion variants (means)")
    print(f"{'variant':<38}" + "".join(f"{c:>11}" for c in COLUMNS))
    for label, vals in variants:
        print(f"{label:<38}" + "".join(f"{vals[c]:>11.3f}" for c in COLUMNS))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default="/tmp/evaldata")
    parser.add_argument("--out-dir", default="/tmp/evalout")
    parser.add_argument("--pdf-dir", default=str(SHARED / "corpus" / "pdfs"))
    parser.add_argument("--analyse-only", action="store_true")
    parser.add_argument("--candidate-k", type=int, help="override retrieval.candidate_k (parent level)")
    parser.add_argument("--engines", help="comma-separated engines (default: all)")
    args = parser.parse_args()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(data_dir=Path(args.data_dir))
    suffix = ""
    if args.candidate_k:
        settings = settings.model_copy(
            update={"retrieval": settings.retrieval.model_copy(update={"candidate_k": args.candidate_k})}
        )
        suffix = f"_ck{args.candidate_k}"
    engines = args.engines.split(",") if args.engines else None
    for name in SETS:
        path = out_dir / f"results_{name}{suffix}.json"
        if not args.analyse_only:
            results = run_evaluation(
                load_rows(SHARED / "eval" / f"{name}.jsonl"),
                Path(args.pdf_dir),
                settings,
                engines,
                set_name=name,
                progress=lambda p, d, t: (
                    print(f"[{p}] {d}/{t}", file=sys.stderr, flush=True)
                    if p != "questions" or d == t or d % 20 == 0
                    else None
                ),
                principal=LOCAL,
            )
            path.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
        results = json.loads(path.read_text(encoding="utf-8"))
        print(summary_text(results))
        print_analysis(name, analyse(results))
        print("\n".join(paired_page_channel(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
