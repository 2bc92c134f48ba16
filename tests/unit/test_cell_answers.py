"""How a question names a table's row or column, and the unit a table states (`answering.cells`)."""

from __future__ import annotations

from rag_core.answering.cells import _named, _question, table_unit


def test_a_period_header_is_named_by_another_spelling_of_the_period() -> None:
    q = _question("What was the operating income in fiscal 2023?", [])
    assert _named("FY2023", q).score > 0
    assert _named("FY2022", q).score == 0


def test_a_quarter_header_is_named_by_its_words() -> None:
    q = _question("Net revenue of the fourth quarter 2022?", [])
    assert _named("Q4 2022", q).score > 0 and _named("Q3 2022", q).score == 0


def test_an_ordinal_names_a_development_year_and_an_abbreviation_its_word() -> None:
    q = _question("How much was paid in the third development year?", [])
    assert _named("dev 3", q).score > 0 and _named("dev 4", q).score == 0


def test_a_thesaurus_term_of_the_search_names_a_label() -> None:
    q = _question("What are the incurred but not reported reserves?", ["IBNR"])
    assert _named("IBNR", q).score > 0


def test_a_longer_label_with_words_the_question_lacks_is_not_named() -> None:
    q = _question("What premium was written?", [])
    assert _named("Premium", q).score > 0 and _named("Ceded reinsurance premium written net", q).score == 0


def test_the_unit_and_scale_are_read_as_the_table_writes_them() -> None:
    assert table_unit(["Table 3. Claims paid (in thousands of euros)", "2022"]) == "in thousands of euros"
    assert table_unit(["Tableau 2", "Montants en milliers d'euros"]) == "en milliers d'euros"
    assert table_unit(["Balance sheet", "EUR m"]) == "EUR m"
    assert table_unit(["Development factors", "12-24"]) == ""


def test_the_years_that_bound_a_span_name_no_row() -> None:
    """ "How many late claims between 2005 and 2014?" asks for the span: the row of 2005 is not its answer."""
    for question in (
        "How many late claims were reported between 2005 and 2014?",
        "Combien de sinistres tardifs entre les années 2005 et 2014 ?",
        "Late claims over 2005-2014?",
    ):
        q = _question(question, [])
        assert _named("2005", q).score == 0 and _named("2014", q).score == 0, question
    q = _question("How many late claims were reported in 2005?", [])
    assert _named("2005", q).score > 0  # one year named alone still names its row
    assert _named("2005", _question("Claims of 2014 and of 2005?", [])).score > 0  # two years, no span
    span = _question("What is the residential capacity from 2003 to 2007?", [])
    assert _named("2003-2007", span).score > 0 and _named("2003", span).score == 0  # the span's own label
    fiscal = _question("What was the shortfall in GDP growth from 2002 to 2003?", [])
    assert _named("2002", fiscal).score > 0  # two years that follow each other: a fiscal year, no span
