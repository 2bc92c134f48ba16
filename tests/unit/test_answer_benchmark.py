"""The answers benchmark's reading of an expected answer in an answer's text (benchmarks/answers_dev.py)."""

from __future__ import annotations

from benchmarks.answers_dev import holds_answer


def test_a_figure_is_held_whatever_its_writing() -> None:
    assert holds_answer("18.4% — The Bronx, % Land Area Rezoned", "18.40%")
    assert holds_answer("435,000,000 — Staten Island", "435000000")
    assert holds_answer("cost 453.25 USD", "$453.25")
    assert not holds_answer("Schools Programme 17 weeks", "7")  # a figure is whole, not a digit of another
    assert not holds_answer("Leaders in Education Programme 7 months", "17")


def test_a_name_and_a_list_are_held_as_written() -> None:
    assert holds_answer("Leaders in Education  Programme 7 months", "leaders in education programme")
    assert holds_answer("GS5002, GS6001, GS6883A and GS5101", "['GS5002', 'GS6001', 'GS6883A', 'GS5101']")
    assert not holds_answer("GS5002 and GS6001", "['GS5002', 'GS6001', 'GS6883A']")
    assert not holds_answer("anything", "")
