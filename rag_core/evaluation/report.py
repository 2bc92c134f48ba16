"""Aggregation of per-question rows: summaries with intervals, breakdowns, paired differences,
refusal threshold sweeps, comparison with the page baselines (docs/method.md, "Baselines and
published figures") and a text table.

Input rows are the `questions` entries of results.json. This module does not search.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.evaluation import metrics

PASSAGE_METRIC = "quote_in_top3"
# Page baselines (docs/method.md, "Baselines and published figures") measured on the development
# sets (19 PDFs as search space).
BASELINES: dict[str, dict[str, dict[str, float]]] = {
    "dev_questions": {
        "bm25s": {"hit@1": 0.56, "hit@3": 0.84, "hit@5": 0.88, "mrr": 0.708, "ndcg@10": 0.755},
        "dense e5-small": {"hit@1": 0.39, "hit@3": 0.65, "hit@5": 0.70, "mrr": 0.540, "ndcg@10": 0.605},
        "RRF": {"hit@1": 0.60, "hit@3": 0.78, "hit@5": 0.87, "mrr": 0.713, "ndcg@10": 0.758},
    },
    "dev_hard_questions": {
        "bm25s": {"hit@1": 0.17, "hit@3": 0.20, "hit@5": 0.33, "mrr": 0.231, "ndcg@10": 0.241},
        "dense e5-small": {"hit@1": 0.10, "hit@3": 0.17, "hit@5": 0.23, "mrr": 0.160, "ndcg@10": 0.167},
        "RRF": {"hit@1": 0.10, "hit@3": 0.33, "hit@5": 0.38, "mrr": 0.220, "ndcg@10": 0.229},
    },
}


def _answerable(rows: Sequence[dict]) -> list[dict]:
    return [r for r in rows if r["answerable"]]


def summarise_engine(rows: Sequence[dict], engine: str, threshold: float) -> dict:
    """Page metrics with intervals, passage share, context size and refusals of one engine."""
    answerable = [r for r in _answerable(rows) if engine in r["engines"]]
    out: dict = {"n_answerable": len(answerable)}
    for name in metrics.RANK_METRICS:
        out[name] = metrics.bootstrap_ci([r["engines"][engine]["metrics"][name] for r in answerable])
    runs = [r["engines"][engine] for r in answerable]
    quotes = [1.0 if run[PASSAGE_METRIC] else 0.0 for run in runs if run[PASSAGE_METRIC] is not None]
    out[PASSAGE_METRIC] = metrics.bootstrap_ci(quotes)
    tokens = [run["context_tokens"] for run in runs if run["context_tokens"] is not None]
    pages = [run["context_pages"] for run in runs if run["context_pages"] is not None]
    out["context_tokens"] = metrics.bootstrap_ci(tokens)
    out["context_pages"] = metrics.bootstrap_ci(pages)
    if tokens and engine.startswith("hybrid-"):  # the threshold is on a fused (RRF) score
        unanswerable = [r for r in rows if not r["answerable"] and engine in r["engines"]]
        out["refusal"] = metrics.refusal_rates(
            [r["engines"][engine]["best_score"] for r in unanswerable], [run["best_score"] for run in runs], threshold
        )
        out["refusal"]["n_unanswerable"] = len(unanswerable)
    return out


def breakdown(rows: Sequence[dict], engines: Sequence[str], field: str) -> dict:
    """Page metrics (with intervals) per value of `field` ("language", "type" or "language_match")."""
    groups: dict[str, list[dict]] = {}
    for row in _answerable(rows):
        if field in row:  # results written before a field existed have no such group
            groups.setdefault(str(row[field]), []).append(row)
    return {
        value: {
            engine: {
                name: metrics.bootstrap_ci([r["engines"][engine]["metrics"][name] for r in group])
                for name in (*metrics.RANK_METRICS,)
            }
            | {"n": len(group)}
            for engine in engines
        }
        for value, group in sorted(groups.items())
    }


def paired_vs(rows: Sequence[dict], reference: str, engines: Sequence[str]) -> dict:
    """reference - engine on the same answerable questions, per metric, with bootstrap intervals."""
    answerable = _answerable(rows)
    out = {}
    for engine in engines:
        if engine == reference:
            continue
        out[engine] = {
            name: metrics.paired_difference(
                [r["engines"][reference]["metrics"][name] for r in answerable],
                [r["engines"][engine]["metrics"][name] for r in answerable],
            )
            for name in metrics.RANK_METRICS
        }
        quotes = [(r["engines"][reference][PASSAGE_METRIC], r["engines"][engine][PASSAGE_METRIC]) for r in answerable]
        quotes = [(a, b) for a, b in quotes if a is not None and b is not None]
        if quotes:
            out[engine][PASSAGE_METRIC] = metrics.paired_difference(
                [float(a) for a, _ in quotes], [float(b) for _, b in quotes]
            )
    return out


def _rate(rates: dict[str, float | None], name: str) -> float:
    value = rates[name]
    return 0.0 if value is None else value


def sweep(rows: Sequence[dict], values: dict[str, list[float | None]]) -> dict:
    """Refusal rates for every observed value of each signal used as a threshold (refuse below)."""
    out: dict[str, dict] = {}
    unans = [i for i, r in enumerate(rows) if not r["answerable"]]
    ans = [i for i, r in enumerate(rows) if r["answerable"]]
    if not unans or not ans:
        return out
    for signal, scores in values.items():
        observed = sorted({s for s in scores if s is not None})
        grid = []
        for t in observed + ([observed[-1] + 1e-9] if observed else []):
            rates = metrics.refusal_rates([scores[i] for i in unans], [scores[i] for i in ans], t)
            grid.append(rates)
        # both groups are non-empty here, so every rate is a number
        best = max(
            grid, key=lambda g: (_rate(g, "correct_refusals") - _rate(g, "false_refusals"), -_rate(g, "false_refusals"))
        )
        at_most_5 = [g for g in grid if _rate(g, "false_refusals") <= 0.05]
        out[signal] = {
            "grid": grid,
            "best_youden": best,
            "best_with_false_refusals_le_5pct": max(at_most_5, key=lambda g: _rate(g, "correct_refusals"))
            if at_most_5
            else None,
        }
    return out


def compare_baselines(rows: Sequence[dict], engine: str, set_name: str) -> dict | None:
    """Does `engine` beat the best page baseline on every column?

    Like the baselines, only single-document answerable questions count (no cross_document).
    """
    baselines = BASELINES.get(set_name)
    single = [r for r in _answerable(rows) if r["type"] != "cross_document" and engine in r["engines"]]
    if not baselines or not single:
        return None
    columns = {}
    for name in ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10"):
        best = max(b[name] for b in baselines.values())
        ci = metrics.bootstrap_ci([r["engines"][engine]["metrics"][name] for r in single])
        columns[name] = {
            "engine": ci["mean"],
            "low": ci["low"],
            "high": ci["high"],
            "best_baseline": best,
            "beats": ci["mean"] is not None and ci["mean"] > best,
        }
    return {
        "engine": engine,
        "n_questions": len(single),
        "columns": columns,
        "beats_all": all(c["beats"] for c in columns.values()),
    }


def format_table(summary: dict, title: str = "") -> str:
    """engine × hit@1 hit@3 hit@5 MRR nDCG@10 R@10 R@100 (mean [95% CI]) and passage share."""
    heads = ["hit@1", "hit@3", "hit@5", "MRR", "nDCG@10", "R@10", "R@100", "quote@3p"]
    keys = ["hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "recall@10", "recall@100", PASSAGE_METRIC]
    lines = [title] if title else []
    lines.append(f"{'engine':<16}" + "".join(f"{h:>19}" for h in heads))
    for engine, s in summary.items():
        cells = []
        for key in keys:
            ci = s.get(key) or {}
            cells.append("—" if ci.get("mean") is None else f"{ci['mean']:.3f} [{ci['low']:.2f},{ci['high']:.2f}]")
        lines.append(f"{engine:<16}" + "".join(f"{c:>19}" for c in cells))
    return "\n".join(lines)


# ----- flat rows for tables and charts (the Streamlit page renders these as they are) -------------
def summary_rows(results: dict) -> list[dict]:
    """One row per engine: each metric's mean and its interval as text."""
    rows = []
    for engine, s in results["summary"].items():
        row: dict = {"engine": engine}
        for key in (*metrics.RANK_METRICS, PASSAGE_METRIC, "context_tokens", "context_pages"):
            ci = s.get(key) or {}
            row[key] = None if ci.get("mean") is None else round(ci["mean"], 3)
            if key not in ("context_tokens", "context_pages") and ci.get("mean") is not None:
                row[f"{key} 95% CI"] = f"[{ci['low']:.2f}, {ci['high']:.2f}]"
        rows.append(row)
    return rows


def breakdown_rows(results: dict, field: str, metric: str = "ndcg@10") -> list[dict]:
    """Long format for a bar chart with error bars: group, engine, mean, low, high, n."""
    return [
        {
            field: group,
            "engine": engine,
            "mean": cis[metric]["mean"],
            "low": cis[metric]["low"],
            "high": cis[metric]["high"],
            "n": cis["n"],
        }
        for group, per_engine in results.get(f"by_{field}", {}).items()
        for engine, cis in per_engine.items()
        if metric in cis
    ]


def language_match_lines(results: dict) -> list[str]:
    """The default engine on same-language and cross-lingual questions (mean [95% CI], n)."""
    engine = results["default_engine"]
    lines = []
    for group, per_engine in results.get("by_language_match", {}).items():
        cis = per_engine.get(engine)
        if not cis:
            continue
        cells = ", ".join(
            f"{name} {cis[name]['mean']:.3f} [{cis[name]['low']:.2f},{cis[name]['high']:.2f}]"
            for name in ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "doc@3")
            if name in cis and cis[name]["mean"] is not None
        )
        lines.append(f"{engine}, {group} ({cis['n']} questions): {cells}")
    return lines


def question_rows(results: dict, engine: str | None = None) -> list[dict]:
    """One row per question for one engine (default engine unless named)."""
    engine = engine or results["default_engine"]
    rows = []
    for r in results["questions"]:
        e = r["engines"].get(engine)
        if e is None:
            continue
        top = e["ranked_pages"][:3]
        rows.append(
            {
                "id": r["id"],
                "language": r["language"],
                "type": r["type"],
                "question": r["question"],
                "first relevant rank": e["first_relevant_rank"],
                "ndcg@10": None if e["metrics"] is None else round(e["metrics"]["ndcg@10"], 3),
                "quote in top-3 parents": e["quote_in_top3"],
                "expected": ", ".join(f"{x['pdf']} p.{x['page']}" for x in r["relevant"]) or "(unanswerable)",
                "top pages": ", ".join(f"{x['pdf']} p.{x['page']}" for x in top),
                "best score": e["best_score"],
            }
        )
    return rows
