"""`cut_parent`: a long parent cut to its best-matching children, sent as verbatim runs joined by a gap mark."""

from __future__ import annotations

from rag_core.answering.fitting import GAP, cut_parent

CHILDREN = [f"Paragraph {i} is about topic number {i} and nothing else at all here. " for i in range(20)]
CHILDREN[12] = "The tail factor extrapolates development beyond the last observed age of the triangle. "
CHILDREN[3] = "A tail factor is also fitted by an inverse power curve to the development factors. "
TEXT = "".join(CHILDREN)
SPANS = []
_at = 0
for _c in CHILDREN:
    SPANS.append((_at, _at + len(_c)))
    _at += len(_c)


def runs(cut: str) -> list[str]:
    return [r.strip() for r in cut.split(GAP.strip()) if r.strip()]


def test_the_best_child_then_the_children_sharing_the_question_words_are_kept_in_order() -> None:
    cut = cut_parent(TEXT, SPANS, best=12, terms={"tail", "factor", "development"}, max_chars=260)
    assert CHILDREN[12].strip() in cut and CHILDREN[3].strip() in cut  # best, then the one sharing its words
    assert CHILDREN[0].strip() not in cut and len(cut) <= 260 + len(GAP)
    places = [TEXT.find(r) for r in runs(cut)]
    assert all(p >= 0 for p in places) and places == sorted(places)  # verbatim, in document order
    assert cut.startswith(GAP.strip()) and cut.endswith(GAP.strip())  # both ends left out, and said so


def test_neighbours_of_the_best_child_join_one_run() -> None:
    cut = cut_parent(TEXT, SPANS, best=12, terms=set(), max_chars=3 * 80)
    assert (CHILDREN[11] + CHILDREN[12]).strip() in cut or (CHILDREN[12] + CHILDREN[13]).strip() in cut


def test_a_text_that_fits_is_unchanged_and_one_without_children_is_a_window() -> None:
    assert cut_parent(TEXT, SPANS, best=12, terms=set(), max_chars=len(TEXT)) == TEXT
    window = cut_parent(TEXT, [], best=0, terms=set(), max_chars=100)
    assert TEXT[:100] in window and len(runs(window)) == 1
