"""The reader stage with a fake reader (a scripted judge, named as such): candidates, the passage that leads,
near misses refused, the short answer copied verbatim, and a backend that cannot run saying why."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import pytest

from rag_core import answering
from rag_core.config import Settings
from rag_core.errors import BackendUnavailable
from rag_core.models import SearchResult
from rag_core.reading import candidate_windows, context_reader, forget_readers, read, reader_for, verbatim_span
from rag_core.reading.candidates import window
from tests.answering_support import document, retrieved

DOC_EN = hashlib.sha256(b"reserving-notes.pdf").hexdigest()

# The answering sentence shares one word with the question; its better-ranked neighbour shares three (a near
# miss that the term coverage prefers and only a reader tells apart).
LATE = [
    "Notification delays are a known feature of the liability portfolio. They lengthen the tail.",
    "Between 2005 and 2014, 2,755 claims were notified more than one year after the accident date.",
]
INCURRED = [
    "Claims reported late between 2005 and 2014 are included in the incurred tables below.",
    "The incurred amounts of accident years 2005 to 2014 rose by 4 % a year, late reports included.",
]
CREDIBILITY = [
    "Several credibility formulas exist for the credibility factor. Among them, we retain Whitney's:\n"
    "z = n / (n + K)\n"
    "where n is the number of years observed and K = s² / a."
]


class FakeReader:
    """A fake reader (no model): judges a passage by the words it holds, copies a scripted span."""

    name = "fake"
    model = "fake-judge"

    def __init__(self, yes_words: Sequence[str] = (), copy_reply: str = "") -> None:
        self.yes_words, self.copy_reply = list(yes_words), copy_reply

    def judge(self, question: str, passages: Sequence[str], language: str) -> list[float]:
        return [0.9 if any(w in p for w in self.yes_words) else 0.1 for p in passages]

    def copy(self, question: str, passage: str, language: str) -> str:
        return self.copy_reply


def _settings(tmp_path: Path, **reader: object) -> Settings:
    return Settings(data_dir=tmp_path / "data", reader={"backend": "none", **reader})


def _late_result() -> SearchResult:
    doc = document(DOC_EN, "Reserving report", "en")
    return SearchResult(
        query="How many claims were reported late between 2005 and 2014?",
        parents=[
            retrieved(2, INCURRED, ["Incurred claims"], [4], rank=1, score=0.033, doc=doc),
            retrieved(7, LATE, ["Late claims"], [9], rank=2, score=0.031, doc=doc),
        ],
        language="en",
    )


def test_windows_hold_the_best_sentences_and_the_first_ranked_parent(tmp_path: Path) -> None:
    result = _late_result()
    windows = candidate_windows(result.parents, result.query, "en", [], 420, 3)
    assert windows and len(windows) <= 3
    assert any(w.parent == 0 for w in windows)  # the search's first parent is always judged
    assert any("2,755" in w.text for w in windows)
    assert [w.rank for w in windows] == list(range(len(windows)))


def test_an_announcement_comes_with_the_lines_it_announces() -> None:
    lines = CREDIBILITY[0].splitlines()
    start, end, text = window(lines, 0, "Among them, we retain Whitney's:", 420)
    assert (start, end) == (0, 3)
    assert "z = n / (n + K)" in text


def test_the_judged_passage_leads_over_a_better_ranked_one(tmp_path: Path) -> None:
    result = _late_result()
    fake = FakeReader(["2,755"], copy_reply="2,755 claims")
    got = read(result.query, result.parents, _settings(tmp_path), "en", reader=fake)
    assert got is not None and got.chosen is not None and not got.refuses
    assert "2,755" in got.chosen.text and got.chosen.parent == 1  # ranked second, judged to answer
    assert got.short == "2,755 claims"
    run = answering.AnswerRun(
        result.query, result, _settings(tmp_path), reader=context_reader(result.query, _settings(tmp_path), "en", fake)
    )
    answer = answering.answer_from(run)
    assert answer.mode == "extractive"
    assert answer.paragraphs[0].text == "2,755 claims"  # the short answer first, copied and cited
    assert "2,755 claims were notified" in answer.paragraphs[1].text  # then the passage it was copied from
    assert answer.paragraphs[0].source_ids == answer.paragraphs[1].source_ids
    assert answer.reading is not None and answer.reading.short_answer == "2,755 claims"
    assert answer.reading.judged >= 2 and answer.reading.best == pytest.approx(0.9)


def test_without_a_reader_the_better_ranked_passage_leads(tmp_path: Path) -> None:
    result = _late_result()
    answer = answering.answer_from(answering.AnswerRun(result.query, result, _settings(tmp_path)))
    assert answer.reading is None
    assert "2,755" not in answer.paragraphs[0].text  # the ranking alone does not lead with it: the reader does


def test_a_near_miss_is_refused_naming_what_was_looked_for(tmp_path: Path) -> None:
    result = _late_result()
    fake = FakeReader([])  # nothing answers
    run = answering.AnswerRun(
        result.query, result, _settings(tmp_path), reader=context_reader(result.query, _settings(tmp_path), "en", fake)
    )
    answer = answering.answer_from(run)
    assert answer.mode == "refused"
    assert "do not state the answer" in answer.missing_information
    assert "How many claims were reported late" in answer.missing_information  # what was looked for
    assert answer.uncited  # the closest passages are still listed
    assert answer.reading is not None and answer.reading.best < answer.reading.threshold


def test_the_threshold_decides(tmp_path: Path) -> None:
    result = _late_result()
    fake = FakeReader(["2,755"])
    high = read(result.query, result.parents, _settings(tmp_path, threshold=0.95), "en", reader=fake)
    low = read(result.query, result.parents, _settings(tmp_path, threshold=0.5), "en", reader=fake)
    assert high is not None and high.refuses
    assert low is not None and not low.refuses


def test_a_copy_is_kept_only_when_the_passage_writes_it() -> None:
    passage = "Between 2005 and 2014, 2,755 claims were reported\nmore than one year after the accident date."
    assert verbatim_span("2,755 claims", passage, figure=True) == "2,755 claims"
    assert verbatim_span('"2,755 claims were reported more than one year"', passage, True).startswith("2,755")
    assert "\n" not in verbatim_span("2,755 claims were reported more", passage, True)  # across a line break
    assert verbatim_span("2755 claims", passage, figure=True) == ""  # rewritten: not the document's words
    assert verbatim_span("about 2,800 claims", passage, figure=True) == ""  # computed or invented
    assert verbatim_span("claims were reported", passage, figure=True) == ""  # a figure was asked, none copied


def test_a_copy_not_in_the_passage_gives_no_short_answer(tmp_path: Path) -> None:
    result = _late_result()
    fake = FakeReader(["2,755"], copy_reply="3,000 claims")
    got = read(result.query, result.parents, _settings(tmp_path), "en", reader=fake)
    assert got is not None and got.chosen is not None and got.short == ""


def test_a_question_of_explanation_gets_no_short_answer(tmp_path: Path) -> None:
    result = _late_result()
    fake = FakeReader(["2,755"], copy_reply="2,755 claims")
    got = read("Why are late claims a concern for the tail?", result.parents, _settings(tmp_path), "en", reader=fake)
    assert got is not None and got.short == ""


def test_reading_off_runs_no_reader(tmp_path: Path) -> None:
    assert reader_for(_settings(tmp_path)) is None
    assert context_reader("q", _settings(tmp_path), "en") is None


def test_missing_weights_say_so(tmp_path: Path) -> None:
    forget_readers()
    settings = _settings(tmp_path, backend="embedded", gguf=tmp_path / "absent.gguf")
    with pytest.raises(BackendUnavailable, match="make install"):
        reader_for(settings)
    auto = _settings(tmp_path, backend="auto", gguf=tmp_path / "absent.gguf")
    assert reader_for(auto) is None  # auto: no weights on disk, no reader


def test_weights_with_another_checksum_are_refused(tmp_path: Path) -> None:
    forget_readers()
    fake_gguf = tmp_path / "model.gguf"
    fake_gguf.write_bytes(b"GGUF not the model")
    for backend in ("embedded", "auto"):
        settings = _settings(tmp_path, backend=backend, gguf=fake_gguf)
        with pytest.raises(BackendUnavailable, match="SHA-256"):
            reader_for(settings)


def test_the_endpoint_reader_needs_an_endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forget_readers()
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_LLM__API_KEY", "RAG_LLM__BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(BackendUnavailable, match="no endpoint"):
        reader_for(_settings(tmp_path, backend="endpoint"))


def test_a_word_that_only_says_where_to_look_is_no_term() -> None:
    from rag_core.answering.coverage_terms import question_terms

    def texts(q: str) -> list[str]:
        return [t.text for t in question_terms(q)]

    assert "French" not in texts("How many claims were reported late in the French reserving report?")
    assert "reserving" not in texts("How many claims were reported late in the French reserving report?")
    assert "français" not in texts("Combien de sinistres tardifs dans le rapport français ?")
    assert "ORSA" in texts("What does the ORSA report contain?")  # a document named as the subject stays a term
