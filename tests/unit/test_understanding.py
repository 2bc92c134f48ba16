"""Question understanding without a model: thesaurus, rule router, sub-questions, follow-ups, reranker choice."""

from __future__ import annotations

import json

import pytest

from rag_core import reranking
from rag_core.config import Settings
from rag_core.errors import BackendUnavailable, InputError
from rag_core.models import Answer, Paragraph
from rag_core.reranking.bge import BgeReranker
from rag_core.understanding import followups
from rag_core.understanding.budget import plan_question, rule_plan
from rag_core.understanding.subquestions import share_budget, split_comparison
from rag_core.understanding.thesaurus import BUNDLED, Thesaurus, load_thesaurus, save_uploaded_thesaurus

SMALL = {
    "concepts": [
        {
            "id": "ibnr",
            "prefLabel": {"en": "incurred but not reported", "fr": "sinistres survenus non déclarés"},
            "altLabel": {"en": ["IBNR"], "fr": ["sinistres tardifs"]},
            "broader": ["psap"],
        },
        {
            "id": "psap",
            "prefLabel": {"fr": "provision pour sinistres à payer", "en": "outstanding claims reserve"},
            "altLabel": ["PSAP"],
        },
    ]
}


# --- thesaurus -----------------------------------------------------------------------------
def test_a_recognised_concept_adds_its_labels_with_the_method_weights() -> None:
    thesaurus = Thesaurus.from_json(json.dumps(SMALL))
    expansion = thesaurus.expand("Comment estimer les IBNR ?")
    assert expansion.concepts == ("ibnr",)
    # the method's weights (docs/method.md, "Search: channels and fusion"): prefLabel 0.95, altLabel 0.85
    assert expansion.terms == (
        ("incurred but not reported", 0.95),
        ("sinistres survenus non déclarés", 0.95),
        ("sinistres tardifs", 0.85),
    )
    # the label already in the question is not added again; broader concepts do not expand
    assert "IBNR" not in expansion.labels and "PSAP" not in expansion.labels
    # as BM25 boosts the weights are shared by the added terms
    assert [w for _, w in expansion.lexical_terms] == pytest.approx([0.95 / 3, 0.95 / 3, 0.85 / 3])


def test_recognition_ignores_accents_case_and_plurals() -> None:
    thesaurus = Thesaurus.from_json(json.dumps(SMALL))
    assert [
        c.id for c in thesaurus.recognise("Les Sinistres Survenus non DECLARES et la provision pour sinistre a payer")
    ] == ["ibnr", "psap"]
    assert thesaurus.expand("What is a run-off triangle?").terms == ()


def test_the_bundled_thesaurus_covers_reserving_and_solvency_ii() -> None:
    thesaurus = load_thesaurus(Settings())
    assert thesaurus is not None and len(thesaurus.concepts) >= 40
    for question, concept in [
        ("Qu'est-ce que la PPNA ?", "upr"),
        ("Define the risk margin", "risk_margin"),
        ("Calcul de la meilleure estimation", "best_estimate"),
        ("ratio S/P", "loss_ratio"),
        ("méthode de Bornhuetter-Ferguson", "bf"),
        ("IBNER", "ibner"),
        ("le SCR", "scr"),
    ]:
        assert concept in [c.id for c in thesaurus.recognise(question)], question
    assert "marge de risque" in thesaurus.expand("What is the risk margin?").labels


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"concepts": []}', 'non-empty "concepts"'),
        (b'{"concepts": [{"altLabel": ["x"]}]}', 'Concept 1 of the thesaurus has no "prefLabel"'),
    ],
)
def test_a_broken_thesaurus_is_refused_with_a_readable_message(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Thesaurus.from_json(data)


def test_an_uploaded_thesaurus_replaces_the_bundled_one(settings: Settings) -> None:
    assert load_thesaurus(settings).name == BUNDLED.stem  # type: ignore[union-attr]  # the bundled thesaurus at least
    with pytest.raises(InputError):
        save_uploaded_thesaurus(b"[]", settings)
    assert load_thesaurus(settings).name == BUNDLED.stem  # type: ignore[union-attr]  # a bad upload changes nothing
    save_uploaded_thesaurus(json.dumps(SMALL).encode(), settings)
    # the ignore below: the uploaded thesaurus
    assert [c.id for c in load_thesaurus(settings).concepts] == ["ibnr", "psap"]  # type: ignore[union-attr]
    off = settings.model_copy(update={"understanding": settings.understanding.model_copy(update={"thesaurus": False})})
    assert load_thesaurus(off) is None


# --- router and sub-questions (rules) --------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "kind", "parents", "cue"),
    [
        ("Qu'est-ce que la PSAP ?", "definition", 3, None),
        ("What is the risk margin?", "definition", 3, None),
        ("Comment calcule-t-on la marge de risque ?", "explanation", 5, "comment"),
        ("Explain the assumptions of the Mack model", "explanation", 5, "explain"),
        ("Compare Mack and Bootstrap for the reserve uncertainty", "comparison", 7, "compare"),
        ("Quelle est la différence entre la PSAP et la PPNA ?", "comparison", 7, "difference entre"),
    ],
)
def test_rules_give_the_budget_and_say_why(question: str, kind: str, parents: int, cue: str | None) -> None:
    plan = rule_plan(question, Settings())
    assert (plan.kind, plan.parents, plan.decided_by) == (kind, parents, "rules")
    if cue:
        assert cue in plan.reason
    assert bool(plan.sub_questions) == (kind == "comparison")


def test_router_off_gives_the_fixed_budget() -> None:
    s = Settings(understanding={"context_budget": False, "sub_questions": False})
    plan = plan_question("Compare Mack and Bootstrap", s, use_llm=False)
    assert (plan.parents, plan.decided_by, plan.sub_questions) == (3, "fixed", [])


@pytest.mark.parametrize(
    ("question", "subs"),
    [
        (
            "Compare Mack and Bootstrap for the reserve uncertainty",
            ["Mack for the reserve uncertainty", "Bootstrap for the reserve uncertainty"],
        ),
        ("Quelle est la différence entre la PSAP et la PPNA ?", ["la PSAP", "la PPNA"]),
        (
            "Comparer Chain-Ladder, Bornhuetter-Ferguson et Cape Cod pour les branches longues",
            [
                "Chain-Ladder pour les branches longues",
                "Bornhuetter-Ferguson pour les branches longues",
                "Cape Cod pour les branches longues",
            ],
        ),
        ("Mack versus bootstrap for reserve risk", ["Mack for reserve risk", "bootstrap for reserve risk"]),
        ("Which ratio compares the paid and the incurred losses of the oldest year?", []),  # "compares" in a clause
        ("Compare the SCR", []),
    ],
)
def test_comparisons_split_into_one_to_three_sub_questions(question: str, subs: list[str]) -> None:
    assert split_comparison(question) == subs


def test_the_budget_is_shared_between_sub_questions() -> None:
    assert share_budget(7, 2) == [4, 3]
    assert share_budget(7, 3) == [3, 2, 2]
    assert share_budget(3, 1) == [3]
    assert share_budget(2, 3) == [1, 1, 1]  # every sub-question is searched


# --- follow-ups (rules) ---------------------------------------------------------------------
HISTORY: list[followups.Message] = [
    ("user", "Qu'est-ce que la méthode Chain-Ladder ?"),
    ("assistant", "La méthode Chain-Ladder projette les paiements cumulés."),
]


def test_a_follow_up_carries_the_previous_questions_key_terms() -> None:
    rewrite = followups.rule_rewrite("et ses limites ?", HISTORY)
    assert rewrite.by == "rules" and rewrite.standalone == "et ses limites (méthode Chain-Ladder) ?"
    english = followups.rule_rewrite("and its assumptions?", [("user", "What is the Mack model?")])
    assert english.standalone == "and its assumptions (Mack model) ?"


@pytest.mark.parametrize(
    "question",
    [
        "Qu'est-ce que le SCR ?",
        "Comment calculer la PPNA d'un contrat annuel ?",
        "What is the risk margin under Solvency II?",
    ],
)
def test_a_standalone_question_is_left_alone(question: str) -> None:
    rewrite = followups.rule_rewrite(question, HISTORY)
    assert rewrite.standalone == question and not rewrite.changed


def test_no_history_or_followups_off_means_no_rewrite(settings: Settings) -> None:
    assert followups.rewrite_followup("et ses limites ?", [], settings, use_llm=False).standalone == "et ses limites ?"
    off = settings.model_copy(update={"understanding": settings.understanding.model_copy(update={"followups": False})})
    assert not followups.rewrite_followup("et ses limites ?", HISTORY, off, use_llm=False).changed


def test_history_is_the_last_three_messages_of_the_stored_conversation(settings: Settings) -> None:
    path = followups.conversation_path(settings, "conv/../1")
    assert path.parent == settings.data_dir / "conversations"  # the id cannot leave the folder
    path.parent.mkdir(parents=True)
    turns = [
        Answer(
            question="Qu'est-ce que la PSAP ?",
            mode="extractive",
            paragraphs=[Paragraph(text="La PSAP...", source_ids=["s"])],
        ),
        Answer(question="bonjour", mode="greeting", missing_information="Bonjour !"),
        Answer(
            question="Et la PPNA ?",
            mode="refused",
            missing_information="Aucun document.",
            standalone_question="Et la PPNA (PSAP) ?",
        ),
    ]
    path.write_text("".join(a.model_dump_json() + "\n" for a in turns), encoding="utf-8")
    assert followups.read_history(settings, "conv/../1") == [
        ("assistant", "La PSAP..."),
        ("user", "Et la PPNA (PSAP) ?"),
        ("assistant", "Aucun document."),
    ]
    assert followups.read_history(settings, "unknown") == [] and followups.read_history(settings, None) == []


def test_history_leaves_out_an_exchange_that_used_a_document_no_longer_readable(settings: Settings) -> None:
    """The reader is given the ids it may read now: an exchange that cited or merely used (`uncited`) any
    other document is left out whole; without the ids, nothing is left out."""
    path = followups.conversation_path(settings, "c")
    path.parent.mkdir(parents=True)
    rows = [
        {"question": "q1", "paragraphs": [{"text": "a1"}], "sources": [{"doc_id": "open"}]},
        {
            "question": "q2",
            "paragraphs": [{"text": "a2"}],
            "sources": [{"doc_id": "open"}],
            "uncited": [{"doc_id": "x"}],
        },
        {"question": "q3", "paragraphs": [{"text": "a3"}], "sources": [{"doc_id": "x"}]},
        {"question": "q4", "missing_information": "none found"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert followups.row_documents(rows[1]) == {"open", "x"}
    kept = followups.read_history(settings, "c", n=100, readable=frozenset({"open"}))
    assert kept == [("user", "q1"), ("assistant", "a1"), ("user", "q4"), ("assistant", "none found")]
    assert len(followups.read_history(settings, "c", n=100)) == 8


# --- reranker choice ------------------------------------------------------------------------
def test_without_weights_the_product_runs_without_a_reranker_and_says_so() -> None:
    s = Settings()
    assert reranking.select_reranker(s) is None
    assert "without a reranker" in reranking.reranker_status(s) and "RAG_RERANKER__PATH" in reranking.reranker_status(s)
    assert reranking.select_reranker(Settings(reranker={"enabled": "off"})) is None


def test_reranker_on_without_weights_names_the_setting(tmp_path) -> None:
    with pytest.raises(BackendUnavailable, match="RAG_RERANKER__PATH is not set"):
        reranking.select_reranker(Settings(reranker={"enabled": "on"}))
    empty = tmp_path / "bge-reranker"
    empty.mkdir()
    (empty / "config.json").write_text("{}")
    with pytest.raises(BackendUnavailable, match=r"no model files in .*bge-reranker.*RAG_RERANKER__PATH"):
        BgeReranker(str(empty))
    with pytest.raises(BackendUnavailable, match="Unknown reranker 'nope'"):
        reranking.select_reranker(Settings(reranker={"enabled": "on", "backend": "nope"}))
