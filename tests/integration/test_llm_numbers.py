"""Numbers in LLM answers, end to end against the real chat-completions test server.

The model (scripted replies over a real socket) quotes a number, declares a correct and a wrong
computation, and invents a number; the code's marks must not depend on what the model claims.
Sources: S1 = Chain Ladder section, S2 = IBNR section, S3 = its table of cumulative payments
(cells with their own boxes, tests/unit/test_numbers.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from rag_core.access import Principal
from rag_core.answering import answer
from rag_core.models import Answer
from rag_core.services.conversations import store_answer
from rag_core.understanding import conversation_path
from tests.answering_support import CELLS, table_result
from tests.fake_chat_server import FakeChatServer
from tests.llm_support import good, llm_settings, messages

QUESTION = "Quels sont les paiements cumulés de 2022 et le facteur de développement de 12 à 24 mois ?"


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


def para(text: str, ids: list[str], quote: str, computations: list[dict] | None = None) -> dict:
    return {"text": text, "source_ids": ids, "quote": quote, "computations": computations or []}


def comp(operation: str, inputs: list[tuple[str, str]], result: str) -> dict:
    return {"operation": operation, "inputs": [{"value": v, "source_id": s} for v, s in inputs], "result": result}


def marks(a: Answer) -> dict[str, tuple[str, str]]:
    return {n.text: (n.status, n.reason) for p in a.paragraphs for n in p.numbers}


def test_quoted_computed_mismatched_and_invented_numbers_get_their_marks(settings, server) -> None:
    server.answer(
        good(
            para(
                "Pour 2022, les paiements cumulés passent de 1 310 à 12 mois à 2 020 à 24 mois.",
                ["S3"],
                "| 2022 | 1 310 | 2 020 |",
            ),
            para(
                "Calculé à partir des chiffres de S3 : le facteur de développement de 12 à 24 mois vaut 1,542.",
                ["S3"],
                "| 2021 | 1 200 | 1 850 |",
                [
                    comp(
                        "development_factor",
                        [("1 200", "S3"), ("1 310", "S3"), ("1 850", "S3"), ("2 020", "S3")],
                        "1,542",
                    )
                ],
            ),
            para(
                "Calculé : le total à 24 mois est de 3 970.",
                ["S3"],
                "| 2021 | 1 200 | 1 850 |",
                [comp("sum", [("1 850", "S3"), ("2 020", "S3")], "3 970")],
            ),
            para("La provision IBNR est de 4 567 k€.", ["S2"], "Les IBNR (incurred but not reported)"),
        )
    )
    a = answer(QUESTION, table_result(), llm_settings(settings, server))
    assert a.mode == "llm" and len(a.paragraphs) == 4
    got = marks(a)
    # quoted: each number links to its own cell, in the 2022 row
    quoted = {n.text: n for n in a.paragraphs[0].numbers}
    assert {t: n.status for t, n in quoted.items()} == {t: "quoted" for t in ("2022", "1 310", "12", "2 020", "24")}
    assert quoted["2 020"].location.kind == "cell" and quoted["2 020"].location.boxes == [CELLS[8].box]
    assert quoted["1 310"].location.boxes == [CELLS[7].box]
    # correct computation: (1 850 + 2 020) / (1 200 + 1 310) = 1.5418... written 1,542
    assert got["1,542"][0] == "computed" and "1.541833" in got["1,542"][1].replace(" ", "")
    # wrong computation: 1 850 + 2 020 = 3 870, not 3 970
    assert got["3 970"][0] == "mismatch" and "3 870" in got["3 970"][1]
    # invented: no source, no computation
    assert got["4 567 k€"] == ("unsupported", "absent des sources citées et d'aucun calcul déclaré")
    assert (a.unsupported_numbers, a.mismatched_numbers) == (1, 1)


def test_a_claimed_computation_on_invented_inputs_is_not_trusted(settings, server) -> None:
    server.answer(
        good(
            para(
                "Calculé : le rapport 2022 vaut 1,908.",
                ["S3"],
                "| 2022 | 1 310 | 2 020 |",
                [comp("ratio", [("2 500", "S3"), ("1 310", "S3")], "1,908")],
            )
        )
    )
    a = answer(QUESTION, table_result(), llm_settings(settings, server))
    status, reason = marks(a)["1,908"]
    assert marks(a)["2022"][0] == "quoted"
    assert status == "unsupported" and "2 500" in reason and a.unsupported_numbers == 1


def test_an_english_answer_with_a_quote_from_a_french_table(settings, server) -> None:
    server.answer(
        good(para("In 2021 cumulative payments reach 1,850 at 24 months.", ["S2"], "| 2021 | 1 200 | 1 850 |"))
    )
    a = answer("What are the 2021 cumulative payments at 24 months?", table_result(), llm_settings(settings, server))
    n = {n.text: n for n in a.paragraphs[0].numbers}["1,850"]
    assert n.status == "quoted" and (n.location.kind, n.location.row, n.location.col) == ("cell", 1, 2)


def test_prompt_and_schema_ask_for_computations_and_the_stored_answer_counts(settings, server) -> None:
    server.answer(good(para("La provision est de 4 567.", ["S2"], "Les IBNR (incurred but not reported)")))
    s = llm_settings(settings, server)
    a = answer(QUESTION, table_result(), s)
    body = server.requests[0]
    schema = body["response_format"]["json_schema"]["schema"]
    text = json.dumps(schema)
    assert "computations" in text and "development_factor" in text
    paragraph_def = next(d for name, d in schema.get("$defs", {}).items() if name == "ParagraphOut")
    assert "computations" in paragraph_def["required"]  # strict mode: the model must always fill it
    system, _ = messages(server)
    assert "computations" in system and "unité" in system
    store_answer(s, "conv-numbers", a, Principal.local_operator())
    (stored,) = conversation_path(s, "conv-numbers", Principal.local_operator().user).read_text().splitlines()
    record = json.loads(stored)
    assert record["unsupported_numbers"] == 1 and record["paragraphs"][0]["numbers"][0]["status"] == "unsupported"
