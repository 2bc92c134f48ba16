"""A model's reply held to its contract, against the local chat-completions server (a fake: scripted
replies over a real socket, as a small model wrote them): paragraphs capped and never repeated, a
paragraph in the other language labelled, the citation forms a model writes instead of an id mapped
when they name one source, and the raw reply kept when nothing of it could be used."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag_core.answering import answer
from rag_core.models import Answer, Paragraph, SubQuestion
from rag_core.question.merge import merge_answers
from tests.answering_support import make_result
from tests.fake_chat_server import FakeChatServer
from tests.llm_support import MSEP_QUOTE, QUESTION_FR, good, llm_settings, para

CL_QUOTE = "facteurs de développement sont des rapports de sommes"


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


def test_an_over_long_reply_is_capped_and_its_repeats_removed(settings, server) -> None:
    first = para("Le modèle de Mack donne la MSEP des réserves.", ["S1"], MSEP_QUOTE)
    others = [para(f"Le facteur {i} est un rapport de sommes de colonnes.", ["S1"], CL_QUOTE) for i in range(1, 6)]
    server.answer(good(first, first, others[0], first, *others[1:]))  # 8 paragraphs, two repeats, limit 4
    a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    texts = [p.text for p in a.paragraphs]
    assert a.mode == "llm" and len(texts) == 4 == len(set(texts))
    assert texts[:2] == [first["text"], others[0]["text"]]
    assert "Le paragraphe 2 répétait le paragraphe 1 ; il a été retiré." in a.dropped
    assert sum("dépassait les 4 paragraphe(s)" in d for d in a.dropped) == 2


@pytest.mark.parametrize("cited", ["P. 11", "p.12", "[1]", "1", "Source 1", "guide-provisionnement.pdf"])
def test_a_citation_form_that_names_one_source_is_mapped_to_it(settings, server, cited: str) -> None:
    # one parent of the context (the first, pp. 11-12) and its file: the forms name it alone
    server.answer(good(para("Le modèle de Mack donne la MSEP des réserves.", [cited], MSEP_QUOTE)))
    result = make_result(n=1)
    a = answer(QUESTION_FR, result, llm_settings(settings, server))
    assert a.mode == "llm" and [p.source_ids for p in a.paragraphs] == [[result.parents[0].parent.id]]
    assert a.paragraphs[0].status == "supported" and not a.dropped


@pytest.mark.parametrize("cited", ["guide-provisionnement.pdf", "P. 99", "Source 9"])
def test_an_ambiguous_or_unknown_form_names_nothing(settings, server, cited: str) -> None:
    server.answer(good(para("Le modèle de Mack donne la MSEP des réserves.", [cited], MSEP_QUOTE)))
    a = answer(QUESTION_FR, make_result(n=3), llm_settings(settings, server))  # three parents of the same file
    assert a.mode == "extractive" and a.dropped and cited in a.dropped[0]
    # the raw reply is kept with the fallback, for whoever has to see what the model wrote
    assert cited in a.fallback_reply and "Le modèle de Mack donne la MSEP" in a.fallback_reply


def test_a_paragraph_in_the_other_language_is_labelled(settings, server) -> None:
    server.answer(
        good(
            para("Le modèle de Mack donne la MSEP des réserves.", ["S1"], MSEP_QUOTE),
            para("The development factors are the ratios of the sums of two columns.", ["S1"], CL_QUOTE),
        )
    )
    a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    assert [p.language for p in a.paragraphs] == [None, "en"]


def test_a_merged_answer_keeps_the_model_calls_figures() -> None:
    """A comparison's answer is merged from its parts: the dialect, the first paragraph's time, whether tokens
    were estimated and the raw reply of a part that fell back are those of its parts (they read 0 and empty)."""
    paragraph = Paragraph(text="Le modèle de Mack donne la MSEP.", source_ids=["x"], status="supported")
    main = Answer(question="q", mode="llm", paragraphs=[paragraph], dialect="json_object", first_paragraph_s=9.5)
    fell = Answer(
        question="s",
        mode="extractive",
        paragraphs=[paragraph.model_copy(update={"text": "Autre."})],
        fallback="format",
        fallback_reply='{"paragraphs": []}',
        tokens_estimated=True,
        first_paragraph_s=0.0,
    )
    subs = [SubQuestion(question="q", parents=3, found=True), SubQuestion(question="s", parents=2, found=True)]
    merged = merge_answers("q", [main, fell], subs, {"question": "q"}, "fr")
    assert (merged.dialect, merged.first_paragraph_s, merged.tokens_estimated) == ("json_object", 9.5, True)
    assert (merged.fallback, merged.fallback_reply) == ("format", '{"paragraphs": []}')
    assert [p.sub_question for p in merged.paragraphs] == ["", "s"] and merged.sub_questions == subs[1:]


def test_a_true_quote_about_something_else_is_not_supported(settings, server) -> None:
    """The quote occurs in the cited source, but names nothing the question asks about: partially supported."""
    server.answer(
        good(
            para("La MSEP du modèle de Mack mesure l'erreur des réserves.", ["S1"], MSEP_QUOTE),
            para("La MSEP vaut ce rapport de colonnes.", ["S1"], "rapports de sommes de colonnes successives"),
        )
    )
    a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    assert [p.status for p in a.paragraphs] == ["supported", "partially_supported"]
    assert [m.key for m in a.paragraphs[1].marks] == ["mark.subject.elsewhere"]


def test_not_provided_never_stands_next_to_the_figure_it_denies(settings, server) -> None:
    stated = para("Le montant à 24 mois pour 2022 est de 2 020.", ["S2"], "| 2022 | 1 310 | 2 020 |")
    denial = para("Le montant à 24 mois pour 2022 n'est pas fourni.", ["S2"], "24 mois")
    server.answer(good(stated, denial, missing="Le montant à 24 mois n'est pas indiqué. Le taux n'est pas donné."))
    a = answer("Quel montant à 24 mois pour 2022 ?", make_result(), llm_settings(settings, server))
    assert [p.text for p in a.paragraphs] == [stated["text"]]
    assert any("disait que les sources ne donnent pas" in d for d in a.dropped)
    assert a.missing_information == "Le taux n'est pas donné."  # the other denial names nothing stated


def test_a_paragraph_stating_an_invented_figure_is_not_supported(settings, server) -> None:
    """The quote is found, but the paragraph states an amount no source holds: the paragraph says so, not only
    the number."""
    server.answer(good(para("La MSEP du modèle de Mack atteint 48 312 euros.", ["S1"], MSEP_QUOTE)))
    a = answer(QUESTION_FR, make_result(), llm_settings(settings, server))
    (p,) = a.paragraphs
    assert [n.status for n in p.numbers] == ["unsupported"]
    assert p.status == "partially_supported"
    assert [(m.key, m.params) for m in p.marks] == [("mark.numbers.unsupported", {"n": "1"})]
