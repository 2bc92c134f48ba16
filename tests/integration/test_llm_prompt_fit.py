"""A long first parent cut to fit a small-context endpoint, around its best-matching children, against the fake chat
server over a real socket. The parent is real text: the text blocks of EIOPA's technical-provisions guidelines (a
corpus PDF), about 26,000 characters as one section, which the old prompt sent whole to a 4,096-token endpoint.
"""

from __future__ import annotations

import pymupdf
import pytest

from rag_core.answering import answer
from rag_core.answering.fitting import GAP
from rag_core.llm.shaping import estimate_tokens, message_chars
from rag_core.models import SearchResult
from tests.answering_support import document, retrieved
from tests.fake_chat_server import FakeChatServer, Reply
from tests.llm_support import good, llm_settings, para

PDF = "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
BEST = 40


@pytest.fixture(scope="module")
def blocks(corpus_dir) -> list[str]:
    with pymupdf.open(corpus_dir / PDF) as doc:
        found = [" ".join(b[4].split()) for page in doc for b in page.get_text("blocks") if len(b[4].strip()) > 200]
    return found[:60]


def long_result(blocks: list[str]) -> SearchResult:
    doc = document(title="Guidelines on valuation of technical provisions", language="en")
    hit = retrieved(7, blocks, ["Guidelines", "Contractual options"], [20, 21, 22], rank=1, best=BEST, doc=doc)
    return SearchResult(query=blocks[BEST][:80], parents=[hit])


def sent_prompt(body: dict) -> str:
    return message_chars(body["messages"])


def test_a_long_first_parent_is_cut_around_its_best_child_to_fit_the_endpoint(settings, blocks) -> None:
    best = blocks[BEST]
    question = "What does the guideline say: " + " ".join(best.split()[:12]) + "?"
    quote = best[20:140]
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=good(para(best[:200], ["S1"], quote))))
        s = llm_settings(settings, server, timeout_s=10.0, endpoint_context_tokens=4096, max_paragraphs=2)
        a = answer(question, long_result(blocks), s)
    body = server.requests[-1]
    prompt = sent_prompt(body)
    assert len(prompt) < sum(map(len, blocks)) // 2  # not the whole section any more
    assert "follows this JSON schema" in prompt  # json_object: the schema is part of the prompt, and counted
    assert estimate_tokens(prompt) + body["max_tokens"] <= 4096  # the prompt and the reply fit the endpoint
    assert body["max_tokens"] >= 600  # and the reply has room for its paragraphs
    assert best in prompt and GAP.strip() in prompt  # the best child whole, the cut visible
    assert blocks[0] not in prompt  # far from the best child and sharing few of its words
    assert a.mode == "llm" and a.paragraphs[0].status == "supported", a.fallback  # the quote sent is verified


def test_the_cut_parent_is_sent_as_verbatim_runs_in_document_order(settings, blocks) -> None:
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=good(para(blocks[BEST][:200], ["S1"], blocks[BEST][:100]))))
        s = llm_settings(settings, server, timeout_s=10.0, endpoint_context_tokens=4096)
        answer("What is the proportionality assessment for options?", long_result(blocks), s)
    prompt = sent_prompt(server.requests[-1])
    section = "\n\n".join(blocks)
    inner = prompt.split("<source ", 1)[1].split(">", 1)[1].split("</source>", 1)[0].strip()
    runs = [r.strip() for r in inner.split(GAP.strip()) if r.strip()]
    assert len(runs) >= 2
    places = [section.find(r) for r in runs]
    assert all(p >= 0 for p in places)  # each run is the section's own text: a quote from it is found
    assert places == sorted(places)  # in the document's order


def test_a_parent_that_fits_is_sent_whole(settings, blocks) -> None:
    small = blocks[BEST - 2 : BEST + 2]
    doc = document(title="Guidelines on valuation of technical provisions", language="en")
    hit = retrieved(7, small, ["Guidelines"], [21], rank=1, best=2, doc=doc)
    with FakeChatServer(family="llamacpp") as server:
        server.queue(Reply(content=good(para(small[2][:200], ["S1"], small[2][:100]))))
        s = llm_settings(settings, server, timeout_s=10.0, endpoint_context_tokens=8192)
        answer("What is the proportionality assessment?", SearchResult(query="q", parents=[hit]), s)
    prompt = sent_prompt(server.requests[-1])
    assert "\n\n".join(small) in prompt and GAP.strip() not in prompt
