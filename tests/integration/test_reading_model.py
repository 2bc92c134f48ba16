"""The reader with the real embedded model (Qwen2.5-Coder-1.5B-Instruct through xllamacpp) on PDFs built here and
ingested by the real pipeline: the answering sentence leads over a better-ranked neighbour, a near miss (the same
report asked about a year it does not cover) is refused, and a figure asked for is the answer's first line,
copied from the document. Under CI=true the weights are installed by `make install` and the test runs; on a
machine without them it is skipped with the reason.
"""

from __future__ import annotations

import os

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.config.reader_section import DEFAULT_GGUF
from tests.answer_pdfs import headed_pages

LOCAL = Principal.local_operator()
CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}

if not DEFAULT_GGUF.is_file():
    if CI:
        raise RuntimeError(f"CI=true but the reader's weights are not at {DEFAULT_GGUF} (make install)")
    pytest.skip(f"the reader's weights are not installed at {DEFAULT_GGUF} (make install)", allow_module_level=True)

# A reserving report written for this test: the section on late claims leads with sentences that share the
# question's words (late, reported, claims, 2005-2014) but do not give the count; the count is stated once, with
# other words ("notified more than one year after").
REPORT = [
    [
        "Claims reported late",
        "Claims reported late between 2005 and 2014 are included in the incurred claims tables of this report. "
        "Reported late claims are shown by accident year.",
        "The incurred amounts of accident years 2005 to 2014 rose by 4 % a year.",
    ],
    [
        "Notification delays",
        "Over the period from 2005 to 2014, 2,755 claims were notified more than one year after the accident date.",
        "The reserve for these claims is part of the IBNR.",
    ],
    [
        "Discount rates",
        "The liabilities are discounted with the risk-free curve published by EIOPA for the euro.",
        "No volatility adjustment is applied.",
    ],
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data = tmp_path_factory.mktemp("reader") / "data"
    pdf = headed_pages(data.parent / "reserving-report.pdf", REPORT)
    settings = Settings(data_dir=data, reader={"backend": "embedded", "threads": 2})
    (result,) = pipeline.ingest([pdf], settings, principal=LOCAL)
    assert result.status == "ingested", result.message
    return settings


def test_the_answering_sentence_leads_and_its_figure_comes_first(library: Settings) -> None:
    a = pipeline.ask("How many claims were reported late between 2005 and 2014?", library, principal=LOCAL)
    assert a.mode == "extractive", a.missing_information
    assert a.reading is not None and a.reading.backend == "embedded" and a.reading.judged >= 2
    lead = " ".join(p.text for p in a.paragraphs[:2])
    assert "2,755" in lead, [p.text for p in a.paragraphs]
    assert "2,755" in a.reading.chosen
    # without the reader, the neighbour that shares the question's words leads
    plain = pipeline.ask(
        "How many claims were reported late between 2005 and 2014?",
        library.model_copy(update={"reader": library.reader.model_copy(update={"backend": "none"})}),
        principal=LOCAL,
    )
    assert "2,755" not in plain.paragraphs[0].text


def test_a_near_miss_is_refused(library: Settings) -> None:
    # every word of it is in the report (no term check refuses it), but the report counts the claims notified
    # after more than a year, not those within a month: one detail apart
    a = pipeline.ask("How many claims were notified within one month of the accident date?", library, principal=LOCAL)
    assert a.mode == "refused", [p.text for p in a.paragraphs]
    assert a.reading is not None and a.reading.best < a.reading.threshold
    assert a.uncited  # the closest passages are listed
