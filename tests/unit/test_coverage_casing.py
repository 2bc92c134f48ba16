"""A question's capitals name an entity only where the documents write the word with one
(`coverage_terms.as_written`); a slip in a company's name is read as the name its filing's titles write.

A metric asked for in Title Case ("After-tax Return on Average Equity") was read as three proper names
that one passage had to hold together with the period, so a ratio whose inputs sit in two statements
was refused. Passages and questions are written for these tests (a made-up company)."""

from __future__ import annotations

from rag_core.answering.coverage import check_coverage
from rag_core.answering.coverage_case import COMPUTATION_WORDS, as_written, title_runs
from rag_core.answering.coverage_terms import question_terms
from rag_core.text import fold

INCOME = (
    "Northwind reported net earnings of $1,419 million in fiscal 2023, a return of 4.2% on revenue. "
    "The after-tax return improved on lower interest expense."
)
BALANCE = "Total equity was $2,795 million at the end of the year, and total assets were $15,803 million."
COVER = "Northwind Stores, Inc. Annual Report on Form 10-K for the fiscal year ended January 28, 2023"


def _index(texts: list[str]):  # a full-text index over these passages: those holding all the words
    def lookup(words: tuple[str, ...], limit: int) -> list[str]:
        return [fold(t) for t in texts if all(w in fold(t) for w in words)][:limit]

    return lookup


def _kinds(question: str, passages: list[str]) -> dict[str, str]:
    return {t.text: t.kind for t in as_written(question_terms(question), passages, question)}


def test_title_case_words_the_passages_write_in_lower_case_are_plain_words() -> None:
    kinds = _kinds("What is the After-tax Return on Average Equity of Northwind for fiscal 2023?", [INCOME, BALANCE])
    assert kinds["Equity"] == "word" and kinds["Return"] == "word" and kinds["Average"] == "word"
    assert kinds["Northwind"] == "name"  # written with its capital wherever the passages write it
    # a word the passages never write in lower case keeps its capital's meaning
    assert _kinds("What did Mexico report?", ["Sales in Mexico grew. Mexico and Canada."])["Mexico"] == "name"
    # an address is no prose: "northwind.com" does not make the company a common word
    assert _kinds("Where is Northwind based?", ["See www.northwind.com and northwind.com/ir. Northwind is"]) == {
        "Northwind": "name",
        "based": "word",
    }
    # a word that names a computation is never a name, whatever the passages hold
    assert _kinds("What is the Interest Coverage Ratio of Northwind?", [])["Ratio"] == "word"
    assert {"ratio", "margin", "average", "total"} <= COMPUTATION_WORDS


def test_a_ratio_whose_inputs_are_in_two_statements_is_not_refused() -> None:
    question = "What is the After-tax Return on Average Equity of Northwind for the fiscal year ending 2023?"
    texts = [INCOME, BALANCE]
    coverage = check_coverage(question, _index(texts), texts, "en", {"en"})
    assert not coverage.refuses and coverage.apart == (), coverage
    # a name the passages write with capitals is still a constraint: "Southwind" in no passage with 2023
    other = [INCOME.replace("fiscal 2023", "fiscal 2022"), "Southwind opened in 2023 a store."]
    refused = check_coverage("What did Southwind earn in fiscal 2022?", _index(other), other, "en", {"en"})
    assert refused.apart == ("Southwind",), refused


def test_a_slip_in_a_name_the_titles_write_is_read_as_it() -> None:
    texts = [INCOME.replace("Northwind", "The company"), BALANCE]  # the passages never name the company
    question = "What were the net earnings of Nortwhind in fiscal 2023?"
    refused = check_coverage(question, _index(texts), texts, "en", {"en"})
    assert refused.missing == ("Nortwhind",)  # without the titles, a name no document writes
    read = check_coverage(question, _index(texts), texts, "en", {"en"}, furniture=frozenset(fold(COVER).split()))
    assert not read.refuses and read.read_as == (("Nortwhind", "northwind"),), read
    assert read.apart == ()  # the document's own name need not stand in the passage with the period


def test_a_metric_computed_from_reported_figures_is_not_refused_for_its_name() -> None:
    from rag_core.understanding.thesaurus import BUNDLED, Thesaurus

    thesaurus = Thesaurus.from_json(BUNDLED.read_bytes())
    question = "What was the EBITDA of Northwind in fiscal 2023?"
    income = "Operating income of Northwind was $2,000 million in fiscal 2023."
    cash = "Depreciation and amortization were $850 million in fiscal 2023."
    texts = [income, cash]  # the filing reports the parts, never the metric's name
    coverage = check_coverage(question, _index(texts), texts, "en", {"en"}, thesaurus)
    assert not coverage.refuses, coverage
    ebitda = next(t for t in coverage.terms if t.text == "EBITDA")
    assert ebitda.kind == "word" and len(ebitda.parts) == 2  # no constraint a passage must hold
    # a part the library never reports: the metric cannot be had from it, and its name is missing
    refused = check_coverage(question, _index([income]), [income], "en", {"en"}, thesaurus)
    assert refused.missing == ("EBITDA",), refused


def test_every_word_of_a_title_with_a_plain_word_is_plain() -> None:
    question = "What is the Gross Profit to Total Assets ratio of Best Buy for fiscal 2023?"
    assert {"gross", "profit", "total", "assets"} in title_runs(question)
    assert {"best", "buy"} in title_runs(question)
    assert {"return", "capital", "employed"} in title_runs("What is Return on Capital Employed in 2023?")
    assert {"after", "tax", "return"} <= max(title_runs("What is the After-tax Return on Average Equity?"), key=len)
    # "Total" names a computation, so its title is a metric's, though no passage holds "assets"
    kinds = _kinds(question, ["Best Buy reported net earnings. The gross profit rose at Best Buy."])
    assert kinds["Assets"] == "word" and kinds["Gross"] == "word"
    assert kinds["Best"] == "name"  # a title of names only stays names


def test_a_word_that_compares_figures_is_no_name() -> None:
    """ "the Highest revenue" picks a figure among the passages' figures: its capital names nothing, so a
    filing that never writes "highest" is not refused for it."""
    question = "Which segment of Northwind had the Highest revenue in fiscal 2023?"
    assert _kinds(question, [INCOME])["Highest"] == "word"
    texts = [INCOME, "Northwind's revenue by segment in fiscal 2023: Stores $9,100 million, Online $4,200 million."]
    coverage = check_coverage(question, _index(texts), texts, "en", {"en"})
    assert "Highest" not in coverage.missing and not coverage.refuses, coverage
