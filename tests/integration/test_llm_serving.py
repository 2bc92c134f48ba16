"""Model answers that come through on the servers teams run, against the fake chat endpoint over a real socket.

Each rule of the client is checked on `tests.fake_chat_server.FakeChatServer`, whose `llamacpp` family replays
llama-cpp-python's server (its `/v1/models`, its error texts, no streamed usage, system messages dropped, a
running stream ended by a newer request): a reply that stops at its token limit is asked again shorter, never
repaired; a timeout or a stop closes the connection and the server sees it; instructions are folded into the
first user message for a template without a system role; the per-endpoint gate queues a second asker; usage is
estimated when the server sends none; the optional calls are skipped, with a note, when the endpoint is slow.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from rag_core.answering import AnswerRun, Checked, Draft, Final, Queued, answer
from rag_core.answering.guardrails.support import judge_support
from rag_core.llm import endpoint
from rag_core.llm.shaping import FOLD_HEADER
from rag_core.models import Paragraph
from rag_core.question import answer_question
from tests.answering_support import make_result
from tests.fake_chat_server import FakeChatServer, Reply
from tests.llm_support import MSEP_QUOTE, QUESTION_FR, good, llm_settings, para

ONE = para("Le modèle de Mack fournit la MSEP des réserves.", ["S1"], MSEP_QUOTE)
TWO = good(ONE, para("Le tableau donne 2 020 à 24 mois pour 2022.", ["S3"], "| 2022 | 1 310 | 2 020 |"))
RAMBLING = '{"paragraphs": [{"text": "' + "La MSEP du modèle de Mack " * 40  # cut before any paragraph closed


def roles(body: dict) -> list[str]:
    return [m["role"] for m in body["messages"]]


def wait_until(condition, limit_s: float = 15.0) -> bool:
    """Poll `condition` (the server's view of a socket) until it holds; not a timing assertion."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture(autouse=True)
def _endpoint_learnt_nothing():
    """Each test meets its fake server as a new endpoint: what was learnt about an address (its dialect, that
    it refuses json_schema) is kept per address, and a later test's server can get a port an earlier one had
    (a run counted 2 requests where the json_schema refusal makes 3)."""
    endpoint.forget()
    yield
    endpoint.forget()


def test_a_length_stop_is_asked_again_shorter_never_repaired(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=RAMBLING, finish_reason="length"), Reply(content=TWO))
        a = answer(QUESTION_FR, make_result(), llm_settings(settings, server, timeout_s=10.0))
    assert a.mode == "llm" and len(a.paragraphs) == 2 and not a.fallback
    assert any("coupée à sa limite de jetons" in w and "redemandée plus courte" in w for w in a.warnings)
    first, again = server.requests[-2], server.requests[-1]
    assert "assistant" not in roles(again)  # not a repair of the cut reply: asked again
    assert "coupée à sa limite de longueur" in again["messages"][-1]["content"]
    short = again["response_format"]["schema"]["properties"]["paragraphs"]["maxItems"]
    assert short < first["response_format"]["schema"]["properties"]["paragraphs"]["maxItems"]


def test_a_reply_cut_twice_falls_back_naming_the_cut_with_the_raw_reply(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=RAMBLING, finish_reason="length"), Reply(content=RAMBLING, finish_reason="length"))
        a = answer("What does Mack's model give?", make_result(), llm_settings(settings, server, timeout_s=10.0))
    assert a.mode == "extractive"
    assert "cut off at its token limit" in a.fallback and "does not follow the required format" not in a.fallback
    # the model read the prompt and wrote until cut: its tokens are estimated and said to be, not 0/0
    assert a.tokens_estimated and a.prompt_tokens > 500 and a.completion_tokens > 50
    assert a.fallback_reply.startswith('{"paragraphs"')  # the model's own words, for the closing note
    assert len(server.requests) == 3  # json_schema refused, then the reply and one shorter request: no repair


def test_a_reply_cut_after_complete_paragraphs_keeps_them_without_asking_again(settings) -> None:
    cut = json.dumps(TWO)[: json.dumps(TWO).index('"Le tableau') + 5]  # the second paragraph has begun
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=cut, finish_reason="length"))
        a = answer(QUESTION_FR, make_result(), llm_settings(settings, server, timeout_s=10.0))
    assert a.mode == "llm" and [p.text for p in a.paragraphs] == [ONE["text"]]
    assert any("1 paragraphe(s) achevés avant sont conservés" in w for w in a.warnings)
    assert len(server.requests) == 2
    # no usage came back with the cut: the tokens are estimated, and said to be, never 0/0
    assert a.tokens_estimated and a.prompt_tokens > 500 and a.completion_tokens > 5


def test_the_reply_is_bounded_by_the_schema_and_the_endpoint_context(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=TWO))
        s = llm_settings(settings, server, endpoint_context_tokens=1800, max_paragraphs=4, paragraph_chars=600)
        a = answer(QUESTION_FR, make_result(), s)
    assert a.mode == "llm"
    body = server.requests[-1]
    schema = body["response_format"]["schema"]
    assert schema["$defs"]["ParagraphOut"]["properties"]["text"]["maxLength"] == 600
    assert schema["$defs"]["ParagraphOut"]["properties"]["quote"]["maxLength"] == s.llm.quote_chars
    prompt = json.dumps(body["messages"], ensure_ascii=False)
    assert body["max_tokens"] < 1800 and body["max_tokens"] + len(prompt) // 6 < 1800  # room left for the prompt
    assert 1 <= schema["properties"]["paragraphs"]["maxItems"] < 4  # what fits in that budget
    assert f"at most {schema['properties']['paragraphs']['maxItems']} paragraph" in prompt or "au plus" in prompt


def test_a_timeout_closes_the_stream_and_the_server_sees_the_disconnect(settings) -> None:
    with FakeChatServer(family="ollama") as server:
        server.queue(Reply(content=TWO, chunk_chars=6, chunk_delay_s=4.0))
        a = answer("What does Mack's model give?", make_result(), llm_settings(settings, server, timeout_s=1.0))
        assert wait_until(lambda: server.disconnects >= 1)
    assert a.mode == "extractive" and "no language model" not in a.fallback
    # the reply had begun: the message says it stopped coming and was cut, not that the model was unreachable
    assert "reply stopped coming: nothing for 1 s after it began, so it was cut there" in a.fallback


def test_a_stop_closes_the_stream_and_the_server_sees_the_disconnect(settings) -> None:
    with FakeChatServer(family="ollama") as server:
        server.queue(Reply(content=TWO, chunk_chars=8, chunk_delay_s=0.2))
        run = AnswerRun(QUESTION_FR, make_result(), llm_settings(settings, server, timeout_s=10.0))
        for event in run.events():
            if isinstance(event, Draft):
                break
        run.stop()
        assert wait_until(lambda: server.disconnects >= 1)


def test_the_router_and_the_support_check_stream_and_are_skipped_when_the_endpoint_is_slow(settings) -> None:
    with FakeChatServer(family="ollama") as server:
        s = llm_settings(settings, server, timeout_s=10.0, optional_max_latency_s=5.0)
        understanding = s.understanding.model_copy(update={"context_budget": True, "sub_questions": False})
        s = s.model_copy(update={"understanding": understanding})
        server.queue(Reply(content={"kind": "definition", "reason": "a definition", "sub_questions": []}))
        server.queue(Reply(content=TWO))
        fast = answer_question(QUESTION_FR, s, lambda request: make_result())
        routed = sum("Vous orientez" in json.dumps(b["messages"], ensure_ascii=False) for b in server.requests)
        assert fast.mode == "llm" and routed >= 1  # the router was asked while the endpoint was fast
        assert all(body["stream"] is True for body in server.requests)  # the router streams too
        endpoint.record_first_token(s, 30.0)  # as a slow server would have measured
        before = len(server.requests)
        server.queue(Reply(content=TWO))
        slow = answer_question(QUESTION_FR, s, lambda request: make_result())
        later = server.requests[before:]
        assert not any("Vous orientez" in json.dumps(b["messages"], ensure_ascii=False) for b in later)  # no router
        assert slow.mode == "llm" and any("aiguillage" in w and "30 s" in w for w in slow.warnings)
        sent = len(server.requests)
        endpoint.record_first_token(s, 30.0)  # the answer's own fast first token was the last measured
        paragraph = Paragraph(text=ONE["text"], source_ids=["S1"], quote=MSEP_QUOTE)
        outcome = judge_support([paragraph], [], s, "en")
        assert len(server.requests) == sent and "support check was skipped" in outcome.warnings[0]


def test_instructions_are_folded_for_a_template_without_system_role(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:  # /v1/models says llama-cpp-python: its Gemma format drops them
        server.queue(Reply(content=TWO))
        a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    assert a.mode == "llm" and server.dropped_system == 0
    body = server.requests[-1]
    assert roles(body) == ["user"]
    assert body["messages"][0]["content"].startswith(FOLD_HEADER) and "JSON schema" in body["messages"][0]["content"]


def test_a_template_that_rejects_system_messages_gets_them_folded_and_remembered(settings) -> None:
    rejected = Reply(status=400, body={"error": {"message": "System role not supported", "type": "invalid_request"}})
    with FakeChatServer(family="openai") as server:
        server.queue(rejected, Reply(content=TWO), Reply(content=TWO))
        s = llm_settings(settings, server)
        first = answer(QUESTION_FR, make_result(), s)
        second = answer(QUESTION_FR, make_result(), s)
    assert first.mode == "llm" and second.mode == "llm"
    assert roles(server.requests[0]) == ["system", "user"]
    assert [roles(b) for b in server.requests[1:]] == [["user"], ["user"]]  # folded, then remembered


def test_a_system_message_never_follows_a_user_message(settings) -> None:
    with FakeChatServer(family="text") as server:  # the format instruction travels in the prompt
        server.queue(Reply(content=json.dumps(TWO)))
        answer(QUESTION_FR, make_result(), llm_settings(settings, server, system_role="system"))
    for body in server.requests:
        assert roles(body).count("system") <= 1 and roles(body)[0] == "system" and "system" not in roles(body)[1:]


def test_the_gate_queues_the_second_asker_at_a_server_that_cancels(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=TWO))  # the dialect probe's answer, before the two askers
        s = llm_settings(settings, server, timeout_s=10.0)
        answer(QUESTION_FR, make_result(), s)
        server.queue(Reply(content=TWO, chunk_chars=6, chunk_delay_s=0.03), Reply(content=TWO))
        events: dict[str, list] = {"a": [], "b": []}

        def ask(name: str) -> None:
            events[name] = list(AnswerRun(QUESTION_FR, make_result(), s).events())

        first = threading.Thread(target=ask, args=("a",))
        first.start()
        assert wait_until(lambda: len(server.requests) == 3, 60.0)  # the first asker is being answered
        second = threading.Thread(target=ask, args=("b",))
        second.start()
        first.join(60), second.join(60)
    assert server.most_at_once == 1  # never two generations at once: neither stream was ended by the other
    finals = [e[-1] for e in events.values()]
    assert all(isinstance(f, Final) and f.answer.mode == "llm" and len(f.answer.paragraphs) == 2 for f in finals)
    assert Queued(0, 1) in events["b"]
    assert any(isinstance(e, Checked) for e in events["b"])


def test_usage_is_estimated_when_the_server_sends_none(settings) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=TWO))
        a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    assert server.requests[-1]["stream_options"] == {"include_usage": True}
    assert a.tokens_estimated and a.prompt_tokens > 100 and 0 < a.completion_tokens < 400
    assert (a.prompt_tokens, a.completion_tokens) != (123, 45)  # not the fake's count: it sent none


def test_a_paragraph_that_copies_the_formats_wording_is_no_answer(settings) -> None:
    echo = para("The answer, paragraph by paragraph, each with its sources.", ["S1"], MSEP_QUOTE)  # Gemma 3 270M did
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=good(echo)))
        a = answer("What does Mack's model give?", make_result(), llm_settings(settings, server, timeout_s=10.0))
    assert a.mode == "extractive" and "copied the answer format's own wording" in " ".join(a.dropped), a.dropped
    sent = json.dumps(server.requests[-1]["messages"], ensure_ascii=False)
    assert "follows this JSON schema" in sent and "paragraph by paragraph" not in sent  # no description to copy
    assert "development_factor (sum of the second half" in sent  # what each operation computes is still said


def test_a_server_too_busy_to_list_its_models_is_asked_again_later(settings, monkeypatch) -> None:
    with FakeChatServer(family="llamacpp", models_delay_s=3.0) as server:  # evaluating another asker's prompt
        s = llm_settings(settings, server, timeout_s=1.0)
        assert endpoint.profile(s).server == "" and not endpoint.fold_system(s)  # not recognised while busy
        server.models_delay_s = 0.0
        monkeypatch.setattr(endpoint, "RETRY_S", 0.0)  # the retry delay has passed
        assert endpoint.profile(s).server == "llama-cpp-python" and endpoint.fold_system(s)
        assert endpoint.concurrency(s) == 1
