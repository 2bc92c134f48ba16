"""Metric functions against values computed by hand."""

from __future__ import annotations

import math

import pytest

from rag_core.evaluation import metrics as m


def test_hit_mrr_and_recall_by_hand() -> None:
    ranking = ["a", "b", "c", "d", "e", "f"]
    relevant = {"c": 1, "f": 2}
    assert m.first_relevant_rank(ranking, relevant) == 3
    assert m.hit_at(ranking, relevant, 1) == 0.0
    assert m.hit_at(ranking, relevant, 3) == 1.0
    assert m.hit_at(ranking, relevant, 5) == 1.0
    assert m.reciprocal_rank(ranking, relevant) == pytest.approx(1 / 3)
    assert m.recall_at(ranking, relevant, 3) == 0.5
    assert m.recall_at(ranking, relevant, 10) == 1.0


def test_nothing_relevant_ranked() -> None:
    assert m.first_relevant_rank(["a", "b"], {"z": 1}) is None
    assert m.rank_metrics(["a", "b"], {"z": 1}) == {k: 0.0 for k in m.RANK_METRICS}
    assert m.ndcg_at([], {"z": 2}) == 0.0


def test_ndcg_linear_gain_grades_one_and_two() -> None:
    # relevant: x grade 2, y grade 1; ranked: a, y, x
    # DCG  = 0/log2(2) + 1/log2(3) + 2/log2(4) = 0.63093 + 1.0 = 1.63093
    # IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.63093 = 2.63093
    dcg = 1 / math.log2(3) + 2 / 2
    idcg = 2 + 1 / math.log2(3)
    value = m.ndcg_at(["a", "y", "x"], {"x": 2, "y": 1}, 10)
    assert value == pytest.approx(dcg / idcg)
    assert value == pytest.approx(0.61990, abs=1e-5)


def test_ndcg_single_relevant_at_rank_two_and_cutoff() -> None:
    assert m.ndcg_at(["a", "x"], {"x": 2}) == pytest.approx(1 / math.log2(3))  # 0.63093
    ranking = [f"p{i}" for i in range(10)] + ["x"]
    assert m.ndcg_at(ranking, {"x": 1}, 10) == 0.0  # rank 11 is past the cutoff
    assert m.recall_at(ranking, {"x": 1}, 100) == 1.0


def test_duplicates_keep_first_position() -> None:
    # "a" twice: the second occurrence must not push "x" down (x is rank 2, not 3)
    assert m.first_relevant_rank(["a", "a", "x"], {"x": 1}) == 2
    assert m.ndcg_at(["x", "x"], {"x": 2, "y": 1}) == pytest.approx(2 / (2 + 1 / math.log2(3)))


def test_page_rank_is_best_child_rank() -> None:
    children = [[("d", 3)], [("d", 4), ("d", 3)], [("e", 1)]]
    assert m.pages_of_children(children) == [("d", 3), ("d", 4), ("e", 1)]


def test_rrf_on_pages_with_ties_broken_by_key() -> None:
    lexical = ["p1", "p2", "p3"]
    dense = ["p2", "p4", "p1"]
    # p1: 1/61 + 1/63 ; p2: 1/62 + 1/61 ; p3: 1/63 ; p4: 1/62
    assert m.fuse_rankings([lexical, dense]) == ["p2", "p1", "p4", "p3"]
    # exact tie: b and a each ranked first once -> both 1/61, sorted by key
    assert m.fuse_rankings([["b"], ["a"]]) == ["a", "b"]
    # ties on page tuples are broken by key too
    assert m.fuse_rankings([[("x.pdf", 2)], [("x.pdf", 1)]]) == [("x.pdf", 1), ("x.pdf", 2)]


def test_weighted_rrf() -> None:
    # weights 1 and 2: p1 = 1/61 + 2/62 = 0.04865, p2 = 1/62 + 2/61 = 0.04892 -> p2 first
    assert m.fuse_rankings([["p1", "p2"], ["p2", "p1"]], weights=[1.0, 2.0]) == ["p2", "p1"]
    # weight 0 on the second channel: the first channel's order
    assert m.fuse_rankings([["p1", "p2"], ["p2", "p1"]], weights=[1.0, 0.0]) == ["p1", "p2"]


def test_bootstrap_interval_is_seeded_and_contains_mean() -> None:
    values = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1]
    a = m.bootstrap_ci(values)
    b = m.bootstrap_ci(values)
    assert a == b
    assert a["mean"] == pytest.approx(0.7)
    assert a["low"] <= 0.7 <= a["high"]
    assert 0.3 <= a["low"] and a["high"] <= 1.0
    constant = m.bootstrap_ci([0.5, 0.5, 0.5])
    assert constant["low"] == constant["high"] == 0.5
    assert m.bootstrap_ci([])["mean"] is None


def test_paired_difference() -> None:
    a = [1, 1, 1, 0]
    b = [0, 1, 0, 0]
    diff = m.paired_difference(a, b)
    assert diff["mean"] == pytest.approx(0.5)
    assert diff["low"] >= 0.0
    assert diff["p_not_better"] < 0.1
    same = m.paired_difference(a, a)
    assert same["mean"] == 0.0 and same["low"] == same["high"] == 0.0 and same["p_not_better"] == 1.0
    with pytest.raises(ValueError):
        m.paired_difference([1], [1, 0])


def test_refusal_rates() -> None:
    rates = m.refusal_rates([0.01, 0.03, None], [0.02, 0.04, 0.05, 0.03], 0.025)
    assert rates["correct_refusals"] == pytest.approx(2 / 3)  # 0.01 and None
    assert rates["false_refusals"] == pytest.approx(1 / 4)  # 0.02
    assert m.refusal_rates([], [0.1], 0.5)["correct_refusals"] is None
