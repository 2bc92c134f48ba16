"""Placing the other language's best passage, and the evidence ratio that decides where."""

from __future__ import annotations

import math

from rag_core.config import RetrievalSettings
from rag_core.retrieval import evidence_ratio, other_language, place, placed_key, placement
from rag_core.store import ChildHit


def _hit(doc: str, score: float) -> ChildHit:
    return ChildHit(f"{doc}-c", f"{doc}-p", doc, score)


def test_place_inserts_moves_or_keeps() -> None:
    main = ["a", "b", "c", "d", "e"]
    assert place(main, ["x", "y"], 3) == ["a", "b", "x", "c", "d", "e"]  # inserted
    assert place(main, ["d", "x"], 2) == ["a", "d", "b", "c", "e"]  # moved up, not duplicated
    assert place(main, ["a", "x"], 2) == ["a", "x", "b", "c", "d", "e"]  # already above: the next one
    assert place(main, ["x"], 0) == main and place(main, [], 3) == main
    assert place(["a"], ["x"], 5) == ["a", "x"]  # a short list takes it at its end
    assert placed_key(main, ["a", "x"], 2) == "x" and placed_key(main, ["x"], 0) is None


def test_evidence_ratio_compares_each_language_best_match() -> None:
    languages = {"fr1": "fr", "fr2": "fr", "en1": "en"}
    lexical = [_hit("en1", 9.0), _hit("fr1", 4.0), _hit("fr2", 3.0)]  # the question's own best: fr1
    assert evidence_ratio(lexical, [_hit("en1", 6.0)], languages, "fr") == 1.5
    assert evidence_ratio(lexical, [], languages, "fr") == 0.0
    assert evidence_ratio([_hit("en1", 9.0)], [_hit("en1", 6.0)], languages, "fr") == math.inf
    weights = RetrievalSettings()
    assert placement(weights.other_language_strong_ratio, weights) == weights.other_language_strong_rank
    assert placement(weights.other_language_strong_ratio * 0.9, weights) == weights.other_language_rank


def test_other_language_documents_of_the_scope() -> None:
    languages = {"fr1": "fr", "en1": "en", "en2": "en"}
    found = other_language(languages, ["fr1", "en1"], "fr", None)
    assert found is not None and found.scope == ["en1"] and found.language == "en" and found.translation is None
    assert other_language(languages, ["fr1"], "fr", None) is None
