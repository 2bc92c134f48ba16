"""Structured-output dialects and streaming against the fake chat-completions endpoint over a real socket.

`tests.fake_chat_server.FakeChatServer(family=...)` answers like an OpenAI endpoint, a llama.cpp,
Ollama or vLLM server that rejects `json_schema` with that server's own error, a tools-only or
a plain-text-only endpoint; each test checks what `answer()` / `AnswerRun` make of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from rag_core import llm, pipeline
from rag_core.answering import AnswerRun, Checked, Draft, Final, answer, context_parents
from rag_core.config import LLMSettings, Settings
from tests.answering_support import make_result
from tests.fake_chat_server import JSON_SCHEMA_REJECTIONS, FakeChatServer, Reply
from tests.llm_support import KEY, MSEP_QUOTE, QUESTION_FR, good, llm_settings, para

TABLE = "| 2022 | 1 310 | 2 020 |"
TWO = good(
    para("Le modèle de Mack fournit la MSEP des réserves.", ["S1"], MSEP_QUOTE),
    para("Le tableau donne 2 020 à 24 mois pour 2022.", ["S3"], TABLE),
)
EXPECTED = {
    "openai": "json_schema",
    "llamacpp": "json_object",
    "ollama": "json_object",
    "vllm": "json_object",
    "tools": "tools",
    "text": "text",
}


def formats(server: FakeChatServer) -> list[str]:
    """What each request asked for: its response format type, 'tools', or 'text'."""
    out = []
    for body in server.requests:
        if body.get("tools"):
            out.append("tools")
        else:
            out.append((body.get("response_format") or {}).get("type") or "text")
    return out


@pytest.fixture(params=list(EXPECTED))
def family_server(request: pytest.FixtureRequest) -> Iterator[FakeChatServer]:
    with FakeChatServer(family=request.param) as s:
        yield s


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_each_family_gets_a_verified_answer_in_its_dialect_probed_once(settings, family_server, stream) -> None:
    server = family_server
    dialect = EXPECTED[server.family]
    s = llm_settings(settings, server, stream=stream)
    reply = json.dumps(TWO)
    if server.family == "text":  # a plain-text model wraps its JSON in prose and a fence
        reply = f"Voici la réponse :\n```json\n{reply}\n```\nBonne lecture."
    server.queue(Reply(content=reply), Reply(content=reply))
    first = answer(QUESTION_FR, make_result(), s)
    assert first.mode == "llm" and first.dialect == dialect and first.warnings == []
    assert [p.status for p in first.paragraphs] == ["supported", "supported"]
    if server.family == "llamacpp":  # llama-cpp-python streams no usage: the local tokenizer's estimate, said so
        assert first.tokens_estimated and first.prompt_tokens > 0
    else:
        assert (first.prompt_tokens, first.completion_tokens) == (123, 45)  # the endpoint's usage
        assert not first.tokens_estimated
    assert first.first_paragraph_s > 0
    probed = formats(server)
    order = ["json_schema", "json_object", "tools", "text"]
    assert probed == order[: order.index(dialect) + 1]  # each rejected dialect asked once, in order
    if dialect in ("json_object", "text"):
        # the schema travels in the prompt, inside the one leading system message (never after the user's), or
        # folded into the user's message for llama-cpp-python, whose Gemma chat format drops system messages
        assert "JSON schema" in server.requests[-1]["messages"][0]["content"]
        folded = server.family == "llamacpp"
        assert [m["role"] for m in server.requests[-1]["messages"]] == (["user"] if folded else ["system", "user"])
    if dialect == "json_object":  # and in the response format, which llama.cpp turns into a grammar
        assert server.requests[-1]["response_format"]["schema"]["properties"].keys() >= {"paragraphs"}
    # every request streams, displayed or not, so that a stop or a timeout closes it on the server too
    assert all(body.get("stream") is True for body in server.requests)
    assert all(body["max_tokens"] == 2048 for body in server.requests)  # a runaway small model is bounded
    assert server.requests[-1]["stream_options"] == {"include_usage": True}
    assert llm.known_dialect(s) == dialect
    assert dialect in pipeline.backends(s)["answers"]
    second = answer(QUESTION_FR, make_result(), s)
    assert second.mode == "llm" and second.dialect == dialect
    assert formats(server)[len(probed) :] == [dialect]  # remembered: no second probe


def test_the_rejection_texts_are_the_servers_own(settings) -> None:
    status, body = JSON_SCHEMA_REJECTIONS["llamacpp"]  # as llama-cpp-python's server answered here
    assert status == 500 and "Input should be 'text' or 'json_object'" in body["error"]["message"]
    for family in JSON_SCHEMA_REJECTIONS:
        with FakeChatServer(family=family) as server:
            server.queue(Reply(content=TWO))
            a = answer(QUESTION_FR, make_result(), llm_settings(settings, server, stream=False))
            assert a.mode == "llm" and a.dialect == "json_object"


def test_a_reply_that_does_not_validate_is_repaired_once(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(
            Reply(content={"paragraphs": [{"text": "sans sources"}], "missing_information": ""}), Reply(content=TWO)
        )
        a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    assert a.mode == "llm" and len(a.paragraphs) == 2 and a.dialect == "json_object"
    repair = server.requests[-1]
    assert "source_ids" in repair["messages"][-1]["content"]  # told which field was missing
    assert repair.get("stream") is True and formats(server) == ["json_schema", "json_object", "json_object"]


def test_an_endpoint_no_dialect_fits_gets_the_extractive_answer_with_a_clear_message(settings) -> None:
    with FakeChatServer(family="none") as server:
        a = answer("What does Mack's model give for the reserves?", make_result(), llm_settings(settings, server))
    assert a.mode == "extractive" and a.paragraphs and all(p.status == "supported" for p in a.paragraphs)
    assert a.warnings == [
        "The language model endpoint accepts none of the structured-output forms tried (JSON "
        "schema, JSON object, tools, plain text); showing an extractive answer."
    ]
    assert formats(server) == ["json_schema", "json_object", "tools", "text"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(content=TWO, chunk_chars=40, cut_after=3), "broke off while it was being written"),
        (Reply(content=TWO, chunk_chars=40, malformed=True), "broke off while it was being written"),
        (Reply(content="Je ne sais pas répondre en JSON."), "does not follow the required format"),
    ],
    ids=["cut", "malformed", "not-json"],
)
def test_a_broken_stream_never_leaves_a_half_verified_answer(settings, reply, expected) -> None:
    with FakeChatServer() as server:
        server.queue(reply, Reply(content="toujours pas du JSON"))
        run = AnswerRun("What does Mack's model give for the reserves?", make_result(), llm_settings(settings, server))
        events = list(run.events())
    final = events[-1]
    assert isinstance(final, Final) and sum(isinstance(e, Final) for e in events) == 1
    a = final.answer
    assert a.mode == "extractive" and a.paragraphs and all(p.status == "supported" for p in a.paragraphs)
    assert len(a.warnings) == 1 and expected in a.warnings[0] and "extractive" in a.warnings[0]
    assert not any("Mack fournit" in p.text for p in a.paragraphs)  # nothing of the broken reply is kept
    assert a.dialect == "json_schema"  # the endpoint took the format; its reply was the problem


def test_paragraphs_are_checked_as_they_complete_then_replaced_by_the_final_answer(settings) -> None:
    bad = para("Le taux technique est de 2 %.", ["S99"], "taux technique")
    with FakeChatServer() as server:
        server.queue(Reply(content=good(*TWO["paragraphs"][:1], bad, TWO["paragraphs"][1]), chunk_chars=10))
        run = AnswerRun(QUESTION_FR, make_result(), llm_settings(settings, server))
        events = list(run.events())
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("Draft") < kinds.index("Checked") and kinds[-1] == "Final"
    checked = [e for e in events if isinstance(e, Checked)]
    assert [e.index for e in checked] == [0, 1, 2]
    assert checked[0].paragraph is not None and checked[0].paragraph.status == "supported"
    assert checked[1].paragraph is None and "S99" in checked[1].dropped  # removed as soon as it completed
    assert checked[2].paragraph is not None and [n.status for n in checked[2].paragraph.numbers][:2] == [
        "quoted",
        "quoted",
    ]
    drafts = [e for e in events if isinstance(e, Draft) and e.index == 0]
    assert len(drafts) > 1 and all(TWO["paragraphs"][0]["text"].startswith(d.text) for d in drafts)
    first_checked = kinds.index("Checked")
    assert any(
        isinstance(e, Draft) and e.index == 1 for e in events[first_checked:]
    )  # paragraph 1 drafted after 0 was marked
    final = events[-1].answer
    assert [p.text for p in final.paragraphs] == [checked[0].paragraph.text, checked[2].paragraph.text]
    assert len(final.dropped) == 1


def test_stop_keeps_the_paragraphs_verified_before_it(settings) -> None:
    with FakeChatServer() as server:
        server.queue(Reply(content=TWO, chunk_chars=8, chunk_delay_s=0.05))
        run = AnswerRun(QUESTION_FR, make_result(), llm_settings(settings, server))
        for event in run.events():
            if isinstance(event, Checked):
                break
        a = run.stop()
    assert a.mode == "llm" and [p.text for p in a.paragraphs] == [TWO["paragraphs"][0]["text"]]
    assert a.paragraphs[0].status == "supported"
    assert a.warnings and "Rédaction arrêtée" in a.warnings[0]
    assert run.stop() is a  # stopping twice changes nothing


def test_stop_before_any_paragraph_gives_the_extractive_answer(settings) -> None:
    with FakeChatServer() as server:
        server.queue(Reply(content=TWO, chunk_chars=8, chunk_delay_s=0.05))
        run = AnswerRun("What does Mack's model give?", make_result(), llm_settings(settings, server))
        for event in run.events():
            if isinstance(event, Draft):
                break
        a = run.stop()
    assert a.mode == "extractive" and "before any paragraph was complete" in a.warnings[0]


@pytest.mark.parametrize("form", ["v1", "deployment"])
def test_azure_openai_both_url_forms(settings, form) -> None:
    with FakeChatServer() as server:
        server.queue(Reply(content=TWO))
        section = LLMSettings(
            provider="azure",
            azure_endpoint=server.root,
            model="gpt-4o-mini",
            api_key=KEY,
            timeout_s=2.0,
            azure_api_version="2024-10-21" if form == "deployment" else None,
            azure_deployment="answers-prod" if form == "deployment" else None,
        )
        s = settings.model_copy(update={"llm": section})
        a = answer(QUESTION_FR, make_result(), s)
    assert a.mode == "llm" and a.dialect == "json_schema"
    (path,) = server.paths
    if form == "v1":
        assert path == "/openai/v1/chat/completions"
    else:
        assert path == "/openai/deployments/answers-prod/chat/completions?api-version=2024-10-21"
    assert server.headers[0]["api-key"] == KEY


def test_the_context_budget_in_tokens_cuts_parents(settings) -> None:
    result = make_result()
    sizes = [-(-len(h.parent.text) // 4) for h in result.parents]
    three = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"context_k": 3})})
    assert context_parents(result, three) == 3
    tight = three.model_copy(update={"llm": LLMSettings(context_tokens=sizes[0] + sizes[1])})
    assert context_parents(result, tight) == 2
    assert context_parents(result, three.model_copy(update={"llm": LLMSettings(context_tokens=1)})) == 1
    with FakeChatServer() as server:
        server.queue(Reply(content=good(para("La MSEP vient du modèle de Mack.", ["S1"], MSEP_QUOTE))))
        s = tight.model_copy(update={"llm": tight.llm.model_copy(update={"base_url": server.base_url, "model": "m"})})
        a = answer(QUESTION_FR, result, s)
    user = server.requests[0]["messages"][1]["content"]
    assert '<source id="S1"' in user and result.parents[2].parent.text[:40] not in user
    assert a.parent_ids == [h.parent.id for h in result.parents[:2]]


def test_settings_describe_every_new_field() -> None:
    for name in (
        "max_tokens",
        "stream",
        "dialect",
        "context_tokens",
        "provider",
        "azure_endpoint",
        "azure_api_version",
        "azure_deployment",
    ):
        assert LLMSettings.model_fields[name].description
    assert Settings.model_fields["azure_openai_endpoint"].description
