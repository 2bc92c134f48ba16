"""Ranking metrics, bootstrap intervals and paired differences: pure functions, no I/O.

A ranking is a sequence of hashable keys (here `(pdf, page)` pairs), best first; duplicates
keep their first position. Relevance is a dict key -> grade (1 or 2; absent = 0).
nDCG@10 uses linear gain (docs/method.md, "Evaluation"): DCG = Σ grade_i / log2(i + 1), i from 1.
This module does not search, read files or format reports.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)  # a ranked key: a page (pdf, page), a parent id

RRF_K = 60  # Cormack, Clarke & Büttcher, SIGIR 2009
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20261129

RANK_METRICS = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "recall@10", "recall@100", "doc@3")


def dedupe(ranking: Iterable[K]) -> list[K]:
    """Keep each key at its first (best) position."""
    seen: set[K] = set()
    out: list[K] = []
    for key in ranking:
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def first_relevant_rank(ranking: Sequence[K], relevant: Mapping[K, int]) -> int | None:
    """1-based rank of the first relevant key, None when none is ranked."""
    for rank, key in enumerate(dedupe(ranking), start=1):
        if relevant.get(key, 0) > 0:
            return rank
    return None


def hit_at(ranking: Sequence[K], relevant: Mapping[K, int], k: int) -> float:
    rank = first_relevant_rank(ranking, relevant)
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(ranking: Sequence[K], relevant: Mapping[K, int]) -> float:
    rank = first_relevant_rank(ranking, relevant)
    return 0.0 if rank is None else 1.0 / rank


def recall_at(ranking: Sequence[K], relevant: Mapping[K, int], k: int) -> float:
    wanted = {key for key, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(dedupe(ranking)[:k])) / len(wanted)


def ndcg_at(ranking: Sequence[K], relevant: Mapping[K, int], k: int = 10) -> float:
    """Normalised DCG with linear gain: grade / log2(rank + 1)."""
    dcg = sum(relevant.get(key, 0) / math.log2(rank + 1) for rank, key in enumerate(dedupe(ranking)[:k], start=1))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def _document(key: Hashable) -> Hashable:
    return key[0] if isinstance(key, tuple) else key


def document_hit_at(ranking: Sequence[K], relevant: Mapping[K, int], k: int = 3) -> float:
    """1.0 when a document holding a relevant page is among the first `k` distinct documents of
    the ranking (a key `(pdf, page)` belongs to document `pdf`; any other key is its own document)."""
    wanted = {_document(key) for key, grade in relevant.items() if grade > 0}
    return 1.0 if wanted & set(dedupe(_document(key) for key in ranking)[:k]) else 0.0


def rank_metrics(ranking: Sequence[K], relevant: Mapping[K, int]) -> dict[str, float]:
    """All page-level metrics of one question."""
    return {
        "hit@1": hit_at(ranking, relevant, 1),
        "hit@3": hit_at(ranking, relevant, 3),
        "hit@5": hit_at(ranking, relevant, 5),
        "mrr": reciprocal_rank(ranking, relevant),
        "ndcg@10": ndcg_at(ranking, relevant, 10),
        "recall@10": recall_at(ranking, relevant, 10),
        "recall@100": recall_at(ranking, relevant, 100),
        "doc@3": document_hit_at(ranking, relevant, 3),
    }


def fuse_rankings(rankings: Iterable[Sequence[K]], k: int = RRF_K, weights: Sequence[float] | None = None) -> list[K]:
    """RRF of deduplicated rankings: score = Σ w/(k + rank) (w = 1 unless given); ties broken by key."""
    scores: dict[K, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        for rank, key in enumerate(dedupe(ranking), start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return [key for key, _ in sorted(scores.items(), key=lambda kv: (-kv[1], str(kv[0])))]


def pages_of_children(children_pages: Iterable[Sequence[K]]) -> list[K]:
    """Page ranking from a child ranking: a page takes the rank of its best child."""
    return dedupe(page for pages in children_pages for page in pages)


# ----- intervals --------------------------------------------------------------------------------
def bootstrap_indices(n: int, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """Resampled question indices, shape (samples, n); the same seed gives the same draws."""
    return np.random.default_rng(seed).integers(0, n, size=(samples, n))


def bootstrap_ci(
    values: Sequence[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED, level: float = 0.95
) -> dict[str, float | int | None]:
    """Mean and percentile bootstrap interval of the mean."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return {"mean": None, "low": None, "high": None, "n": 0}
    means = arr[bootstrap_indices(arr.size, samples, seed)].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    return {
        "mean": float(arr.mean()),
        "low": float(np.quantile(means, alpha)),
        "high": float(np.quantile(means, 1.0 - alpha)),
        "n": int(arr.size),
    }


def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> dict[str, float | int | None]:
    """Mean of a - b over the same questions, with a bootstrap interval of that difference.

    `p_not_better` is the share of resamples where the difference is <= 0 (a one-sided check).
    """
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError("paired differences need the same questions in the same order")
    out = bootstrap_ci(x - y, samples, seed, level)
    if x.size:
        diffs = (x - y)[bootstrap_indices(x.size, samples, seed)].mean(axis=1)
        out["p_not_better"] = float((diffs <= 0).mean())
    return out


# ----- refusal -----------------------------------------------------------------------------------
def refusal_rates(
    scores_unanswerable: Sequence[float | None], scores_answerable: Sequence[float | None], threshold: float
) -> dict[str, float | None]:
    """Share of unanswerable questions refused (score < threshold) and of answerable ones refused.

    A missing score (nothing retrieved) always counts as a refusal.
    """

    def refused(scores: Sequence[float | None]) -> float | None:
        if not scores:
            return None
        return sum(1 for s in scores if s is None or s < threshold) / len(scores)

    return {
        "threshold": threshold,
        "correct_refusals": refused(scores_unanswerable),
        "false_refusals": refused(scores_answerable),
    }
