"""The question package's stream and its one decision of which sources are cited, without any PDF: a greeting
ends with `Done` and is audited by the stream itself; an error written for the user ends it with `Failed`,
nothing stored, and `ask` raises it; the API turns `Failed` into its `error` event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.api.rest import sse_events
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.models import Answer, Paragraph
from rag_core.question import Done, Failed, answer_sources, cited_sources
from rag_core.understanding import conversation_path
from tests.ui.apptest_support import OTHER, SOURCE

LOCAL = Principal.local_operator()


def test_cited_sources_are_those_a_paragraph_cites_in_the_answers_order() -> None:
    third = OTHER.model_copy(update={"id": "third", "doc_id": "d3", "file_name": "c.pdf", "pages": [9]})
    answer = Answer(
        question="q",
        mode="extractive",
        paragraphs=[Paragraph(text="a", source_ids=["other"]), Paragraph(text="b", source_ids=["third", "nowhere"])],
        sources=[SOURCE, OTHER],
        uncited=[third],
    )
    assert [s.id for s in cited_sources(answer)] == ["other", "third"]
    context, cited = answer_sources(answer)
    assert [(c["doc_id"], c["pages"]) for c in context] == [(SOURCE.doc_id, [3, 4]), ("d3", [9])]
    assert [(c["doc_id"], c["pages"]) for c in cited] == [(SOURCE.doc_id, [4]), ("d3", [9])]
    assert cited_sources(answer.model_copy(update={"paragraphs": []})) == []


def _questions(settings: Settings) -> list[dict]:
    return [e for e in pipeline.audit_events(settings, principal=LOCAL) if e.get("event") == "question"]


def test_a_greeting_ends_with_done_and_is_stored_and_audited_by_the_stream(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    events = list(pipeline.ask_stream("Bonjour !", settings, conversation_id="c1", principal=LOCAL))
    assert [type(e) for e in events] == [Done]
    answer = events[0].answer
    assert answer.mode == "greeting" and answer.missing_information
    (record,) = _questions(settings)
    assert record["mode"] == "greeting" and record["conversation_id"] == "c1" and record["cited"] == []
    assert conversation_path(settings, "c1", user=LOCAL.user).read_text().count("\n") == 1


def test_an_error_for_the_user_ends_the_stream_as_failed_and_nothing_is_stored(tmp_path: Path) -> None:
    missing = tmp_path / "no_thesaurus.json"
    settings = Settings(data_dir=tmp_path, understanding={"thesaurus_path": missing})
    stream = pipeline.ask_stream("What is the Mack method?", settings, conversation_id="c1", principal=LOCAL)
    events = list(stream)
    assert len(events) == 1 and isinstance(events[0], Failed) and isinstance(events[0].error, InputError)
    assert str(missing) in str(events[0].error)
    assert stream.stop() is None and _questions(settings) == []
    assert not conversation_path(settings, "c1", user=LOCAL.user).exists()
    with pytest.raises(InputError):
        pipeline.ask("What is the Mack method?", settings, principal=LOCAL)


def test_the_api_stream_sends_a_failed_question_as_its_error_event() -> None:
    error = InputError("The thesaurus is missing.")
    (sent,) = list(sse_events([Failed(error)]))
    kind, data = sent.strip().split("\n")
    assert kind == "event: error"
    assert json.loads(data.removeprefix("data: ")) == {
        "error": {"message": "The thesaurus is missing.", "type": "InputError"}
    }
