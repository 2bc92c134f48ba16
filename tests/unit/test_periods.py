"""Fiscal and period expressions: every written form of a period gets the same key, and the forms a
document may use are offered for search."""

from __future__ import annotations

import pytest

from rag_core.understanding.periods import find_periods, period_key, same_period, surface_forms


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("FY2023", "2023"),
        ("FY 2023", "2023"),
        ("FY23", "2023"),
        ("FY'23", "2023"),
        ("fiscal 2023", "2023"),
        ("Fiscal year 2023", "2023"),
        ("2023", "2023"),
        ("exercice 2023", "2023"),
        ("Q4 2023", "2023-Q4"),
        ("Q4 FY23", "2023-Q4"),
        ("Q4'23", "2023-Q4"),
        ("4Q23", "2023-Q4"),
        ("fourth quarter of fiscal 2023", "2023-Q4"),
        ("fourth quarter of 2023", "2023-Q4"),
        ("T4 2023", "2023-Q4"),
        ("quatrième trimestre 2023", "2023-Q4"),
        ("4e trimestre de l'exercice 2023", "2023-Q4"),
        ("Q4", "Q4"),
        ("fourth quarter", "Q4"),
        ("QUARTER 3", "Q3"),
        ("Quarter 3 2023", "2023-Q3"),
        ("H1 2024", "2024-H1"),
        ("1H24", "2024-H1"),
        ("first half of 2024", "2024-H1"),
        ("premier semestre 2024", "2024-H1"),
        ("S1 2024", "2024-H1"),
        ("second half", "H2"),
        ("FY2023Q1", "2023-Q1"),  # the year first, its quarter glued after it
        ("FY23 Q1", "2023-Q1"),
        ("2023Q1", "2023-Q1"),
    ],
)
def test_every_written_form_of_a_period_has_its_key(text: str, key: str) -> None:
    assert period_key(text) == key
    assert period_key(f"  {text}: ") == key  # a column header with punctuation around it


def test_periods_are_found_inside_a_question_longest_first() -> None:
    found = find_periods("What was the gross margin in the fourth quarter of fiscal 2023 compared with FY22?")
    assert [(p.key, p.text) for p in found] == [("2023-Q4", "fourth quarter of fiscal 2023"), ("2022", "FY22")]
    assert found[0].part == "Q4" and found[0].year == 2023
    question = "Revenue for FY2023?"
    (period,) = find_periods(question)
    assert question[period.start : period.end] == "FY2023" == period.text


def test_text_that_is_not_one_period_has_no_key() -> None:
    assert period_key("Net revenue") is None
    assert period_key("Revenue 2023") is None  # a label with a year is not a period header
    assert period_key("2022 2023") is None
    assert find_periods("12000 units, 3Q, Q5 and section 2.3") == []
    assert find_periods("a quarter 3.5 times as large, quarter 5") == []


def test_same_period_matches_a_part_without_its_year() -> None:
    assert same_period("2023-Q4", "Q4") and same_period("Q4", "2023-Q4")
    assert same_period("2023", period_key("fiscal year 2023") or "")
    assert not same_period("2023-Q4", "2022-Q4")
    assert not same_period("2023-Q4", "2023-Q3")
    assert not same_period("2023", "Q4")


def test_surface_forms_of_each_key_are_read_back_as_that_key() -> None:
    for key in ("2023", "2023-Q4", "2024-H1", "Q2", "H2"):
        forms = surface_forms(key)
        assert forms and len(set(forms)) == len(forms)
        assert all(same_period(period_key(form) or "", key) for form in forms), key
    assert {"fiscal 2023", "FY23", "exercice 2023", "2023"} <= set(surface_forms("2023"))
    assert {"fourth quarter", "T4", "quatrième trimestre", "4Q23", "quarter 4"} <= set(surface_forms("2023-Q4"))


@pytest.mark.parametrize(
    ("text", "key"),
    [("2002-03", "2003"), ("FY2022-23", "2023"), ("2022/23", "2023"), ("1999-00", "2000"), ("2002 \u2013 03", "2003")],
)
def test_a_fiscal_year_split_across_two_calendar_years_is_the_year_it_ends_in(text: str, key: str) -> None:
    assert period_key(text) == key


def test_two_years_that_do_not_follow_each_other_or_a_date_are_no_split_fiscal_year() -> None:
    assert [p.key for p in find_periods("sales in 2002-05 were flat")] == ["2002"]
    assert [p.key for p in find_periods("filed on 2002-03-15")] == ["2002"]


def test_a_year_is_written_as_the_split_fiscal_year_that_ends_in_it() -> None:
    assert "2002-03" in surface_forms("2003")
