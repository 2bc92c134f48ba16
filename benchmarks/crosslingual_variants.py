"""The offline re-fusions ("variants") of the channel rankings that `crosslingual_dev.py` saves, and
their scores: the designs it compares (see its docstring) and the placement rules that
`crosslingual_frontier.py` measures, both on the same saved rows. Nothing here searches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rag_core import retrieval
from rag_core.evaluation import metrics

FOLD_WEIGHTS = (0.5, 1.0)  # boosts of the translated terms folded into the question's own BM25 queries
Ranking = list[tuple[str, int]]
PRODUCT = "placed at 2 / 5, ratio 2 (product)"
PAGES_ONLY = "placed at 2 / 5, page ratio 2, translated pages only"
WITHOUT_COVERAGE = "placed at 2 / 5, ratio 2 only (before the term coverage)"
# What each part of the product's choice adds (`crosslingual_dev.parts`): part -> the variant without it.
PARTS = {
    "without the dense channel": "placed at 2 / 5, ratio 2, other ranking (0.0, 1.0, 1.0)",
    "without translated pages": "placed at 2 / 5, ratio 2, other ranking (0.5, 1.0, 0.0)",
    "without translated children": "placed at 2 / 5, ratio 2, other ranking (0.5, 0.0, 1.0)",
    "without the evidence ratio (always at 5)": "placed at 5 / 5, ratio 2",
    "without the term coverage (ratio 2 only)": WITHOUT_COVERAGE,
    "ratio 1, ranks 3 / 5 instead": "placed at 3 / 5, ratio 1",
    "nothing placed (current)": "current",
    "pages only, page evidence ratio": PAGES_ONLY,
}


def doc_hit_at(ranking: Sequence[tuple[str, int]], pdfs: Sequence[str], k: int = 3) -> float:
    docs = metrics.dedupe(pdf for pdf, _ in ranking)[:k]
    return 1.0 if set(docs) & set(pdfs) else 0.0


def score(row: dict, ranking: Ranking) -> dict[str, float]:
    relevant = {(pdf, page): g for pdf, page, g in row["relevant"]}
    values = metrics.rank_metrics(ranking, relevant)
    values["doc@3"] = doc_hit_at(ranking, row["pdfs"])
    return values


def _r(row: dict, channel: str) -> Ranking:
    if channel not in row["rankings"]:  # no glossary term recognised: the folded query is the question's,
        if "+" not in channel:  # and there is no translated query
            return []
        channel = channel.split("+")[0]
    return [tuple(x) for x in row["rankings"][channel]]


def per_language_dense(row: dict) -> Ranking:
    """The simple design: each document language's dense ranking on its own, fused by RRF."""
    languages = row["page_language"]
    same = [p for p in _r(row, "dense") if languages[p[0]] == row["language"]]
    return metrics.fuse_rankings([same, _r(row, "dense_other")])


Variant = Callable[[dict], Ranking]


def placed(
    row: dict,
    base: Ranking,
    weights: tuple[float, float, float] = (0.5, 1.0, 1.0),
    strong: int = 2,
    weak: int = 5,
    ratio: float = 2.0,
    evidence: str = "ratio",
    query: str = "",
    coverage: bool = True,
) -> Ranking:
    """The other language's ranking placed in `base` as `rag_core.retrieval` does; `evidence`:
    the ratio of the best children ("ratio") or of the best pages ("page_ratio"); `query`: the
    translated query's variant ("" as the product, "distinct", "preferred"); `coverage`: a question
    term found only in the other language's documents also gives the strong rank, as in the product."""
    evidence = f"ratio_{query}" if query else evidence
    strong_evidence = row.get(evidence, 0.0) >= ratio or (coverage and bool(row.get("only_other_terms")))
    return retrieval.place(base, other_ranking(row, query, weights), strong if strong_evidence else weak)


def other_ranking(row: dict, query: str = "", weights: tuple[float, float, float] = (0.5, 1.0, 1.0)) -> Ranking:
    """The other language's pages ranked on their own: RRF of their dense channel and of the
    `query` variant of the translated terms' BM25 over children and pages."""
    suffix = f"_{query}" if query else ""
    return metrics.fuse_rankings(
        [_r(row, "dense_other"), _r(row, f"translated{suffix}"), _r(row, f"translated_pages{suffix}")],
        weights=list(weights),
    )


def variants() -> dict[str, Variant]:
    def fused(
        dw: float = 0.25, ow: float = 0.0, tw: float = 0.0, dense: str = "dense", fold: float | None = None
    ) -> Variant:
        lexical, pages = ("lexical", "pages") if fold is None else (f"lexical+{fold}", f"pages+{fold}")

        def rank(row: dict) -> Ranking:
            d = per_language_dense(row) if dense == "per-language" else _r(row, dense)
            return metrics.fuse_rankings(
                [
                    _r(row, lexical),
                    d,
                    _r(row, pages),
                    _r(row, "dense_other"),
                    _r(row, "translated"),
                    _r(row, "translated_pages"),
                ],
                weights=[1.0, dw, 1.0, ow, tw, tw],
            )

        return rank

    current = fused()
    out: dict[str, Variant] = {"current": current}
    for dw in (0.25, 0.5, 1.0):
        out[f"per-language dense x {dw}"] = fused(dw=dw, dense="per-language")
    for name in ("dense_centred", "dense_z"):
        for dw in (0.25, 1.0):
            out[f"{name} x {dw}"] = fused(dw=dw, dense=name)
    for ow, tw in ((0.25, 0.0), (0.5, 0.0), (1.0, 0.0), (0.0, 0.5), (0.0, 1.0), (0.5, 0.5), (1.0, 1.0)):
        out[f"+ other dense x {ow} + translated x {tw}"] = fused(ow=ow, tw=tw)
    for fold in FOLD_WEIGHTS:
        out[f"folded {fold}"] = fused(fold=fold)
        out[f"folded {fold} + dense_centred x 0.25"] = fused(fold=fold, dense="dense_centred")

    def placed_with(**options: Any) -> Variant:
        return lambda row: placed(row, current(row), **options)

    out["placed at 2 / 5, ratio 2 (product)"] = placed_with()
    for strong, weak, ratio in (
        (5, 5, 2.0),
        (3, 5, 2.0),
        (2, 4, 2.0),
        (2, 0, 2.0),
        (2, 5, 1.0),
        (3, 5, 1.0),
        (2, 5, 1.5),
        (3, 3, 1.0),
    ):
        out[f"placed at {strong} / {weak}, ratio {ratio:g}"] = placed_with(strong=strong, weak=weak, ratio=ratio)
    for weights in ((0.0, 1.0, 1.0), (1.0, 1.0, 1.0), (0.25, 1.0, 1.0), (0.5, 1.0, 0.0), (0.5, 0.0, 1.0)):
        out[f"placed at 2 / 5, ratio 2, other ranking {weights}"] = placed_with(weights=weights)
    # Pages only: no BM25 query of the translated terms over children (one full-text query less per
    # question), the evidence ratio taken on the best pages.
    out[PAGES_ONLY] = placed_with(weights=(0.5, 0.0, 1.0), evidence="page_ratio")
    out[WITHOUT_COVERAGE] = placed_with(coverage=False)
    for query in ("distinct", "preferred"):
        out[f"placed at 2 / 5, ratio 2, {query} translated words"] = placed_with(query=query)
    return out


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")
