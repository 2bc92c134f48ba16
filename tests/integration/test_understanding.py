"""Question understanding on a real LanceDB library (temp dir, real offline embedder), the real
local chat-completions server for the LLM router and rewrite, and a deterministic fake reranker
(bge-reranker-v2-m3 cannot run here) registered by name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag_core import pipeline, reranking, retrieval
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.errors import BackendUnavailable
from rag_core.models import SearchResult
from rag_core.question import answer_question
from rag_core.reranking.bge import BgeReranker
from rag_core.services.connection import forget_stores
from rag_core.store import Store
from rag_core.understanding import expansion_terms
from rag_core.understanding.budget import plan_question
from rag_core.understanding.followups import rewrite_followup
from tests import fake_reranker
from tests.fake_chat_server import FakeChatServer, Reply
from tests.llm_support import llm_settings
from tests.store_support import build_store

LOCAL = Principal.local_operator()  # the local operator (administrator): these tests are not about access
DOCS = {
    "c" * 64: (
        "fr",
        "provisionnement",
        [
            (
                "Sinistres tardifs",
                "Les sinistres survenus non déclarés sont estimés à partir du triangle de liquidation.",
            ),
            ("Modèle de Mack", "Le modèle de Mack mesure l'erreur de prédiction des réserves sans hypothèse de loi."),
            (
                "Bootstrap",
                "Le bootstrap rééchantillonne les résidus de Pearson pour simuler la distribution des réserves.",
            ),
            (
                "Méthode Chain-Ladder",
                "La méthode Chain-Ladder projette les paiements cumulés avec des facteurs de développement.",
            ),
            (
                "Limites de Chain-Ladder",
                "Les limites de la méthode Chain-Ladder : elle suppose des cadences de règlement stables.",
            ),
        ],
    ),
    "d" * 64: (
        "en",
        "other",
        [
            ("Mortality", "Mortality tables for annuities with improvement factors."),
            ("Pensions", "Defined benefit pension schemes and their funding level."),
        ],
    ),
}


@pytest.fixture
def library(settings: Settings) -> Iterator[tuple[Store, Settings]]:
    yield build_store(settings, DOCS)
    forget_stores()


def section_of(result: SearchResult, parent_id: str) -> str:
    return next(p.parent.heading_path[0] for p in result.parents if p.parent.id == parent_id)


def searcher(store: Store, settings: Settings, calls: list[str] | None = None):  # type: ignore[no-untyped-def]
    def search(query: str, k: int, language: str | None = None) -> SearchResult:
        if calls is not None:
            calls.append(query)
        return retrieval.search(
            query,
            store,
            select_embedder(settings),
            settings,
            store.document_ids(),
            k=k,
            extra_terms=expansion_terms(query, settings),
            language=language,
        )

    return search


def asks(search):  # type: ignore[no-untyped-def]
    """`search` as `answer_question` runs it: one search request (query, parents, language) at a time."""
    return lambda request: search(request.query, request.k, request.language)


# --- thesaurus ----------------------------------------------------------------------------
def test_thesaurus_expansion_lets_an_english_acronym_find_the_french_passage(library) -> None:
    store, settings = library
    scope = store.document_ids()
    question = "What are IBNR?"
    terms = expansion_terms(question, settings)
    assert "sinistres survenus non déclarés" in [t for t, _ in terms]
    plain = store.lexical(question, "en", scope, 10)
    expanded = store.lexical(question, "en", scope, 10, terms)
    target = f"{'c' * 16}:c00000"  # "Sinistres tardifs"
    assert target not in [h.child_id for h in plain]
    assert expanded and expanded[0].child_id == target
    result = retrieval.search(question, store, select_embedder(settings), settings, scope, extra_terms=terms)
    assert result.expanded_terms == [t for t, _ in terms]
    top = result.parents[0]
    assert top.parent.heading_path == ["Sinistres tardifs"] and top.rank_in("lexical") == 1


# --- reranker -----------------------------------------------------------------------------
def test_fake_reranker_reorders_and_applies_the_minimum_score(library) -> None:
    store, settings = library
    fake = fake_reranker.FakeOverlapReranker()
    result = searcher(store, settings)("bootstrap des résidus de Pearson et réserves", 10)
    reranked = reranking.rerank("bootstrap des résidus de Pearson et réserves", result, fake, keep=3, min_score=0.4)
    scores = [p.rerank_score for p in reranked.parents]
    assert reranked.parents[0].parent.heading_path == ["Bootstrap"]
    assert scores == sorted(scores, reverse=True) and all(s is not None and s >= 0.4 for s in scores)
    assert len(reranked.parents) <= 3
    everything = reranking.rerank("bootstrap des résidus de Pearson et réserves", result, fake, keep=50, min_score=0.0)
    assert len(everything.parents) == len(result.parents)  # nothing lost below the threshold 0


class ScriptedReranker:
    """Scores chosen by the test for each candidate position, against the search order."""

    name = "scripted"

    def __init__(self, scores: list[float]) -> None:
        self.scores = scores
        self.read: list[list[str]] = []

    def score(self, question: str, passages) -> list[float]:
        self.read.append(list(passages))
        return self.scores[: len(passages)]


def test_the_reranker_order_replaces_the_search_order_and_its_minimum_drops_candidates(library) -> None:
    store, settings = library
    question = "méthode Chain-Ladder, modèle de Mack et bootstrap des réserves"
    result = searcher(store, settings)(question, 10)
    ids = [p.parent.id for p in result.parents]
    n = len(ids)
    assert n >= 5
    # the reranker reads each candidate's best child, in the search order
    backwards = ScriptedReranker([(i + 1) / n for i in range(n)])  # the last candidate scores best
    reranked = reranking.rerank(question, result, backwards, keep=50, min_score=0.0)
    assert backwards.read == [[p.best_child.context_text for p in result.parents]]
    assert [p.parent.id for p in reranked.parents] == ids[::-1]
    assert [p.rerank_score for p in reranked.parents] == [(i + 1) / n for i in reversed(range(n))]
    # a shuffle: candidate i gets score 10 - order.index(i), so the new order is `order`
    order = [2, 0, 4, 1, 3] + list(range(5, n))
    shuffled = reranking.rerank(
        question, result, ScriptedReranker([10.0 - order.index(i) for i in range(n)]), keep=50, min_score=0.0
    )
    assert [p.parent.id for p in shuffled.parents] == [ids[i] for i in order]
    # equal scores keep the search order
    tied = reranking.rerank(question, result, ScriptedReranker([0.5] * n), keep=50, min_score=0.0)
    assert [p.parent.id for p in tied.parents] == ids
    # the minimum drops what scores under it, then `keep` trims the best ones
    above = reranking.rerank(question, result, backwards, keep=50, min_score=(n - 2) / n)
    assert [p.parent.id for p in above.parents] == [ids[-1], ids[-2], ids[-3]]
    assert [p.parent.id for p in reranking.rerank(question, result, backwards, keep=2, min_score=0.0).parents] == [
        ids[-1],
        ids[-2],
    ]
    assert reranking.rerank(question, result, backwards, keep=50, min_score=2.0).parents == []


def test_registered_reranker_is_selected_by_name(library) -> None:
    _, settings = library
    fake = fake_reranker.install()
    on = settings.model_copy(update={"reranker": settings.reranker.model_copy(update={"backend": fake_reranker.NAME})})
    assert reranking.select_reranker(on) is fake
    assert fake_reranker.NAME in reranking.reranker_status(on)
    assert pipeline.backends(on)["reranker"].startswith(fake_reranker.NAME)


def test_a_sub_question_under_the_minimum_is_reformulated_once_then_reported(library) -> None:
    store, settings = library
    fake = fake_reranker.install()
    s = settings.model_copy(
        update={"reranker": settings.reranker.model_copy(update={"backend": fake_reranker.NAME, "min_score": 0.5})}
    )
    calls: list[str] = []
    answer = answer_question("Compare Mack and xylophone tuning for the reserves", s, asks(searcher(store, s, calls)))
    assert answer.budget == 7 and answer.budget_kind == "comparison"
    mack, xylo = answer.sub_questions
    assert (mack.question, mack.found, mack.parents) == ("Mack for the reserves", True, 2)
    assert (xylo.question, xylo.found, xylo.parents) == ("xylophone tuning for the reserves", False, 2)
    assert xylo.reformulated == "xylophone tuning reserves"
    asked = "Compare Mack and xylophone tuning for the reserves"
    # the user's question as written and the sub-questions, each reformulated once when the reranker keeps nothing
    assert sorted(calls) == sorted(
        [asked, "Compare Mack xylophone tuning reserves"]
        + ["Mack for the reserves", "xylophone tuning for the reserves", "xylophone tuning reserves"]
    )
    # the reranker rereads the reformulation's candidates against the (sub-)question itself
    assert sorted(fake.questions) == sorted(
        [asked] * 2 + ["Mack for the reserves"] + ["xylophone tuning for the reserves"] * 2
    )
    # the reranker kept nothing for the user's whole question (it names the xylophone): Mack's paragraphs remain
    assert {p.sub_question for p in answer.paragraphs} == {"Mack for the reserves"}
    assert "xylophone tuning for the reserves" in answer.missing_information
    assert answer.mode == "extractive"


# --- sub-questions and budget without a model ------------------------------------------------------
def test_a_comparison_gets_a_paragraph_per_sub_question_from_its_own_sources(library) -> None:
    store, settings = library
    answer = answer_question(
        "Compare le modèle de Mack et le bootstrap pour les réserves", settings, asks(searcher(store, settings))
    )
    assert (answer.budget, answer.budget_kind) == (7, "comparison") and "compar" in answer.budget_reason
    subs = [s.question for s in answer.sub_questions]
    assert subs == ["le modèle de Mack pour les réserves", "le bootstrap pour les réserves"]
    assert all(s.found for s in answer.sub_questions)
    assert [s.parents for s in answer.sub_questions] == [2, 2]  # the user's question itself takes 3 of the 7
    assert not any(s.question.startswith("Compare") for s in answer.sub_questions)
    # each sub-question's first passage is its own subject's, and the answer cites both subjects
    section = {s.parent_id: s.section for s in answer.sources}
    first = {sub.question: section.get(sub.parent_ids[0]) for sub in answer.sub_questions}
    assert first == {subs[0]: "Modèle de Mack", subs[1]: "Bootstrap"}
    # no paragraph is said twice: what the user's question's answer states, a sub-question does not repeat
    texts = [p.text for p in answer.paragraphs]
    assert len(texts) == len(set(texts)) and not answer.paragraphs[0].sub_question


def test_a_definition_gets_three_parents_and_an_explanation_five(library) -> None:
    store, settings = library
    definition = answer_question("Qu'est-ce que le bootstrap ?", settings, asks(searcher(store, settings)))
    explanation = answer_question(
        "Comment le bootstrap simule-t-il les réserves ?", settings, asks(searcher(store, settings))
    )
    assert (definition.budget, definition.budget_kind) == (3, "definition")
    assert (explanation.budget, explanation.budget_kind) == (5, "explanation")
    assert len(definition.parent_ids) == 3 and len(explanation.parent_ids) == 5
    assert definition.sub_questions == [] and explanation.sub_questions == []


def test_follow_up_without_a_model_through_the_pipeline(library) -> None:
    _, settings = library
    first = pipeline.ask("Qu'est-ce que la méthode Chain-Ladder ?", settings, conversation_id="conv-1", principal=LOCAL)
    assert first.standalone_question == ""
    follow = pipeline.ask("et ses limites ?", settings, conversation_id="conv-1", principal=LOCAL)
    assert follow.question == "et ses limites ?"
    assert follow.standalone_question == "et ses limites (méthode Chain-Ladder) ?"
    assert follow.paragraphs and follow.sources[0].section == "Limites de Chain-Ladder"
    # only this turn's search is evidence: every source belongs to a parent retrieved now
    assert {s.parent_id for s in follow.sources} <= set(follow.parent_ids)
    # a follow-up of a follow-up builds on the rewritten question
    third = pipeline.ask("et ses hypothèses ?", settings, conversation_id="conv-1", principal=LOCAL)
    assert "Chain-Ladder" in third.standalone_question
    alone = pipeline.ask("et ses limites ?", settings, conversation_id="conv-2", principal=LOCAL)
    assert alone.standalone_question == ""


# --- the LLM router and rewrite through the local chat-completions server ---------------------------
@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


def test_llm_router_decides_budget_and_sub_questions(settings, server) -> None:
    server.answer(
        {
            "kind": "comparison",
            "reason": "Deux méthodes sont mises en regard.",
            "sub_questions": ["Que mesure le modèle de Mack ?", "Que simule le bootstrap ?"],
        }
    )
    plan = plan_question("Mack ou bootstrap pour l'incertitude des réserves ?", llm_settings(settings, server), True)
    assert (plan.kind, plan.parents, plan.decided_by) == ("comparison", 7, "llm")
    assert plan.reason == "Deux méthodes sont mises en regard."
    assert plan.sub_questions == ["Que mesure le modèle de Mack ?", "Que simule le bootstrap ?"]
    body = server.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "PlanOut"
    assert "Mack ou bootstrap" in body["messages"][-1]["content"]


def test_llm_router_failure_falls_back_to_rules(settings, server) -> None:
    server.queue(Reply(status=500, body={"error": {"message": "boom"}}))
    plan = plan_question("Comment calcule-t-on la PSAP ?", llm_settings(settings, server), True)
    assert (plan.kind, plan.parents, plan.decided_by) == ("explanation", 5, "rules")


def test_llm_rewrite_sees_the_last_three_messages(settings, server) -> None:
    server.answer({"standalone_question": "Quelles sont les limites de la méthode Chain-Ladder ?"})
    history = [
        ("user", "Qu'est-ce que le SCR ?"),
        ("assistant", "Le SCR est un capital."),
        ("user", "Qu'est-ce que la méthode Chain-Ladder ?"),
        ("assistant", "Elle projette les paiements."),
    ]
    # the ignore below: plain tuples, as stored conversations give them
    rewrite = rewrite_followup("et ses limites ?", history, llm_settings(settings, server), True)  # type: ignore[arg-type]
    assert (rewrite.by, rewrite.standalone) == ("llm", "Quelles sont les limites de la méthode Chain-Ladder ?")
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "Le SCR est un capital." in prompt and "Elle projette les paiements." in prompt
    assert "Qu'est-ce que le SCR ?" not in prompt  # the fourth message back is not sent
    assert server.requests[0]["response_format"]["json_schema"]["name"] == "RewriteOut"


def test_llm_path_end_to_end_cites_only_this_turns_sources(library, server) -> None:
    store, settings = library
    s = llm_settings(settings, server)
    server.answer({"standalone_question": "Quelles sont les limites de la méthode Chain-Ladder ?"})
    server.answer({"kind": "explanation", "reason": "On demande les limites d'une méthode.", "sub_questions": []})
    server.answer(
        {
            "paragraphs": [
                {
                    "text": "Elle suppose des cadences stables [S1].",
                    "source_ids": ["S1"],
                    "quote": "elle suppose des cadences de règlement stables",
                }
            ],
            "missing_information": "",
        }
    )
    history = [("user", "Qu'est-ce que le bootstrap ?"), ("assistant", "Il rééchantillonne les résidus.")]
    answer = answer_question("et ses limites ?", s, asks(searcher(store, s)), history)  # type: ignore[arg-type]
    assert answer.mode == "llm" and answer.question == "et ses limites ?"
    assert answer.standalone_question == "Quelles sont les limites de la méthode Chain-Ladder ?"
    assert (answer.budget, answer.budget_reason) == (5, "On demande les limites d'une méthode.")
    assert [p.status for p in answer.paragraphs] == ["supported"]
    assert answer.sources[0].section == "Limites de Chain-Ladder"
    assert {src.parent_id for src in answer.sources} <= set(answer.parent_ids)
    assert len(server.requests) == 3  # rewrite, router, answer


def test_flag_reranker_with_broken_weights_names_the_setting(tmp_path) -> None:
    """The real FlagEmbedding loader on a folder whose files are not a model: a message, not a traceback."""
    folder = tmp_path / "bge-reranker-v2-m3"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        (folder / name).write_text("{}")
    with pytest.raises(BackendUnavailable, match=r"could not be loaded.*RAG_RERANKER__PATH"):
        BgeReranker(str(folder))
