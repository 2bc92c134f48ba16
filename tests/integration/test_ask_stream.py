"""The façade's streamed question (`pipeline.ask_stream`) on a real library and the fake chat endpoint:
only the final or the stopped answer is stored and audited, and the stopped one holds only what was verified."""

from __future__ import annotations

import json
from pathlib import Path

from rag_core import pipeline
from rag_core.config import LLMSettings
from rag_core.question import Checked, Done, Draft, Found, Searching
from rag_core.understanding import conversation_path
from tests.access_support import ADMIN, TOPICS, IngestedCollections, copy_library
from tests.fake_chat_server import FakeChatServer, Reply

TOPIC = TOPICS["guides"]
QUESTION = f"What does the {TOPIC} programme protect?"
QUOTE = f"The {TOPIC} programme protects the balance sheet against large losses."
ANSWER = {
    "paragraphs": [
        {
            "text": "It protects the balance sheet against large losses.",
            "source_ids": ["S1"],
            "quote": QUOTE,
            "computations": [],
        },
        {"text": "The protection covers large losses.", "source_ids": ["S1"], "quote": QUOTE, "computations": []},
    ],
    "missing_information": "",
}


def _settings(library: IngestedCollections, server: FakeChatServer):
    llm = LLMSettings(model="m", base_url=server.base_url, timeout_s=30.0)
    understanding = library.settings.understanding.model_copy(
        update={"context_budget": False, "sub_questions": False, "followups": False}
    )
    return library.settings.model_copy(update={"llm": llm, "understanding": understanding})


def stored(settings, conversation: str) -> list[dict]:
    path = conversation_path(settings, conversation, user=ADMIN.user)
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_final_answer_is_stored_once_the_stream_ends(access_template: IngestedCollections, tmp_path: Path) -> None:
    library = copy_library(access_template, tmp_path)
    with FakeChatServer(family="ollama") as server:
        server.queue(Reply(content=ANSWER, chunk_chars=10))
        settings = _settings(library, server)
        stream = pipeline.ask_stream(QUESTION, settings, conversation_id="c1", principal=ADMIN)
        kinds = []
        for event in stream:
            kinds.append(type(event))
            if isinstance(event, Draft):
                assert not conversation_path(settings, "c1", user=ADMIN.user).exists()  # nothing stored mid-stream
    assert kinds[:2] == [Searching, Found] and kinds[-1] is Done and Checked in kinds
    (record,) = stored(settings, "c1")
    assert record["mode"] == "llm" and record["dialect"] == "json_object" and len(record["paragraphs"]) == 2
    assert (record["prompt_tokens"], record["completion_tokens"]) == (123, 45) and record["first_paragraph_s"] > 0
    questions = [e for e in pipeline.audit_events(settings, principal=ADMIN) if e.get("event") == "question"]
    assert len(questions) == 1 and questions[0]["mode"] == "llm"


def test_a_stopped_answer_keeps_and_stores_only_what_was_verified(
    access_template: IngestedCollections, tmp_path: Path
) -> None:
    library = copy_library(access_template, tmp_path)
    with FakeChatServer() as server:
        server.queue(Reply(content=ANSWER, chunk_chars=6, chunk_delay_s=0.05))
        settings = _settings(library, server)
        stream = pipeline.ask_stream(QUESTION, settings, conversation_id="c2", principal=ADMIN)
        for event in stream:
            if isinstance(event, Checked):
                break
        answer = stream.stop()
    assert answer is not None and [p.text for p in answer.paragraphs] == [ANSWER["paragraphs"][0]["text"]]
    assert answer.paragraphs[0].status == "supported" and "Generation stopped" in answer.warnings[0]
    (record,) = stored(settings, "c2")
    assert [p["text"] for p in record["paragraphs"]] == [ANSWER["paragraphs"][0]["text"]]
    assert stream.stop() is answer and len(stored(settings, "c2")) == 1  # stored once
