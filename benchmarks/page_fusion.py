"""Ways of fusing the channels' page rankings, measured offline on recorded runs, with paired intervals.

    python -m benchmarks.page_fusion RESULTS.json [RESULTS.json ...]

Reads the results of `benchmarks/pages_and_refusals.py --out` (each engine's ranked pages per
question) and recomputes the question's own fusion from the recorded channel rankings (`lexical`,
`dense`, `pages`) in several ways, with the untuned `bm25s-pages` ranking standing in for the page
channel in the rows marked "bm25s as pages" (what a page channel that ranks as BM25 over whole pages
would give). Prints hit@1, hit@5 and MRR over the answerable questions with 95 % bootstrap
intervals, and the paired differences of each way's hit@1 and hit@5 against the recorded default
engine (`hybrid-parents`), against RRF alone recomputed (`rrf`) and against `bm25s-pages`. The
other language's placement is not recomputed: it puts a page at rank 2 or lower, so hit@1 is exact
and hit@5 approximate for cross-lingual questions.
"recorded rrf" recomputes the default from the recorded rankings; its agreement with the recorded
default is printed as a check. Nothing here searches or changes a setting.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rag_core.evaluation import metrics

Page = tuple[str, int]
Rankings = dict[str, list[Page]]


def _pages(run: dict) -> list[Page]:
    return [(p["pdf"], int(p["page"])) for p in run["ranked_pages"]]


def _rrf(lexical_w: float, dense_w: float, page_w: float, page: str) -> Callable[[Rankings], list[Page]]:
    def fuse(r: Rankings) -> list[Page]:
        return metrics.fuse_rankings([r["lexical"], r["dense"], r[page]], weights=[lexical_w, dense_w, page_w])

    return fuse


def _first_of(page: str, then: Callable[[Rankings], list[Page]], n: int) -> Callable[[Rankings], list[Page]]:
    """The page channel's first `n` pages, then the fusion's order."""

    def fuse(r: Rankings) -> list[Page]:
        return metrics.dedupe([*r[page][:n], *then(r)])

    return fuse


def _first_if_within(page: str, then: Callable[[Rankings], list[Page]], n: int) -> Callable[[Rankings], list[Page]]:
    """The page channel's first page leads only when the fusion already ranks it within its first `n`
    (with n = 5 the first five hold the same pages: hit@5 cannot fall)."""

    def fuse(r: Rankings) -> list[Page]:
        fused = then(r)
        first = r[page][:1]
        return metrics.dedupe([*first, *fused]) if first and first[0] in fused[:n] else fused

    return fuse


def ways(dense_w: float) -> dict[str, Callable[[Rankings], list[Page]]]:
    out: dict[str, Callable[[Rankings], list[Page]]] = {}
    for page, label in (("pages", ""), ("bm25s-pages", " (bm25s as pages)")):
        base = _rrf(1.0, dense_w, 1.0, page)
        out[f"rrf{label}"] = base
        for w in (1.5, 2.0, 3.0):
            out[f"rrf page weight {w}{label}"] = _rrf(1.0, dense_w, w, page)
        out[f"rrf no dense{label}"] = _rrf(1.0, 0.0, 1.0, page)
        out[f"page channel's first, then rrf{label}"] = _first_of(page, base, 1)
        out[f"page channel first, then rrf{label}"] = _first_of(page, base, 1000)
        for n in (3, 5, 10):
            out[f"page channel's first if rrf top {n}{label}"] = _first_if_within(page, base, n)
    return out


def _ci(c: dict) -> str:
    return f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"


def _diff(c: dict) -> str:
    return f"{c['mean']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}]"


def report(results: dict, dense_w: float) -> list[str]:
    rows = [q for q in results["questions"] if q["answerable"]]
    relevant = [{(p["pdf"], int(p["page"])): int(p["grade"]) for p in q["relevant"]} for q in rows]
    recorded = {e: [_pages(q["engines"][e]) for q in rows] for e in ("lexical", "dense", "pages", "bm25s-pages")}
    default = [_pages(q["engines"]["hybrid-parents"]) for q in rows]
    rankings = [{e: recorded[e][i] for e in recorded} for i in range(len(rows))]
    candidates: dict[str, list[list[Page]]] = {"recorded default": default, "bm25s-pages": recorded["bm25s-pages"]}
    candidates["pages channel"] = recorded["pages"]
    for name, fuse in ways(dense_w).items():
        candidates[name] = [fuse(r) for r in rankings]
    same_top = sum(a[:1] == b[:1] for a, b in zip(candidates["rrf"], default, strict=True))
    lines = [f"{results['set']}: {len(rows)} answerable; recomputed rrf has the recorded default's first page "
             f"for {same_top}/{len(rows)}"]  # fmt: skip

    def measure(ranking: Sequence[Page], rel: dict) -> dict[str, float]:
        return {
            "hit@1": metrics.hit_at(ranking, rel, 1),
            "hit@5": metrics.hit_at(ranking, rel, 5),
            "mrr": metrics.reciprocal_rank(ranking, rel),
        }

    values = {n: [measure(r, rel) for r, rel in zip(rs, relevant, strict=True)] for n, rs in candidates.items()}
    cols = ("hit@1", "hit@5", "mrr")
    refs = ("recorded default", "rrf", "bm25s-pages")
    lines.append("way".ljust(46) + "".join(c.ljust(24) for c in cols)
                 + "".join(f"hit@1 vs {r}".ljust(26) for r in refs)
                 + "".join(f"hit@5 vs {r}".ljust(26) for r in refs))  # fmt: skip
    for name, vals in values.items():
        cells = [_ci(metrics.bootstrap_ci([v[c] for v in vals])) for c in cols]
        against = [
            _diff(metrics.paired_difference([v[c] for v in vals], [v[c] for v in values[ref]]))
            for c in ("hit@1", "hit@5")
            for ref in refs
        ]
        lines.append(name.ljust(46) + "".join(c.ljust(24) for c in cells) + "".join(a.ljust(26) for a in against))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--dense-weight", type=float, default=None, help="default: the run's own setting")
    args = parser.parse_args()
    for path in args.results:
        results = json.loads(path.read_text(encoding="utf-8"))
        dense_w = args.dense_weight
        if dense_w is None:
            dense_w = float(results.get("versions", {}).get("retrieval", {}).get("dense_weight", 1.0))
        print("\n".join(report(results, dense_w)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
