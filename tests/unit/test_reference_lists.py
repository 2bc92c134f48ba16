"""A list of works cited never answers: its entries say what others wrote (`answering.evidence`)."""

from __future__ import annotations

from rag_core.answering.evidence import candidates, is_reference_list, stating_parents
from tests.answering_support import retrieved

BODY = ["Le modèle de Mack donne l'erreur de prédiction du montant des provisions par une formule fermée."]
CITED = ["Mack, T. (1993). Distribution-free calculation of the standard error of chain ladder reserve estimates."]


def test_the_headings_of_a_list_of_works_cited() -> None:
    for path in (["References"], ["7. Bibliographie"], ["Annexes", "Références bibliographiques"], ["REFERENCES"]):
        assert is_reference_list(path), path
    for path in (["Reference data"], ["Chain Ladder"], ["Sources of uncertainty"], []):
        assert not is_reference_list(path), path


def test_its_entries_are_no_answer_unless_the_question_asks_about_works() -> None:
    hits = [retrieved(1, CITED, ["References"], [21], rank=1), retrieved(2, BODY, ["Le modèle de Mack"], [4], rank=2)]
    question = "How is the standard error of the reserve estimated in Mack's model?"
    assert {c.parent for c in candidates(hits, question, "en")} == {1}  # the cited entry is never a candidate
    assert stating_parents(hits, question) == [hits[1]]
    about_works = "Which paper by Mack on the standard error does the document cite?"
    assert stating_parents(hits, about_works) == hits
    assert 0 in {c.parent for c in candidates(hits, about_works, "en")}
