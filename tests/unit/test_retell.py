"""An answer's own sentences told again in the page's language (rag_core.question.retell)."""

from __future__ import annotations

from rag_core.answering.coverage import apart_message, coverage_notes, missing_message
from rag_core.answering.lead import near_miss_message
from rag_core.answering.run_messages import NOTHING_FOUND, STOPPED
from rag_core.config import Settings
from rag_core.question.retell import relist, retell
from rag_core.understanding.budget import rule_plan


def test_a_refusal_of_an_english_question_reads_in_french_on_a_french_page() -> None:
    english = missing_message(["French"], "en")
    assert english == "None of the documents you can access mentions 'French'."
    assert (
        retell(english, "fr")
        == missing_message(["French"], "fr")
        == ("Aucun des documents auxquels vous avez accès ne mentionne « French ».")
    )
    several = missing_message(["TSCA", "IBNR", "Mack"], "en")
    assert retell(several, "fr") == missing_message(["TSCA", "IBNR", "Mack"], "fr")
    apart = apart_message(["2005"], ["Mack", "tail"], "en")
    assert retell(apart, "fr") == apart_message(["2005"], ["Mack", "tail"], "fr")
    assert retell(NOTHING_FOUND["en"], "fr") == NOTHING_FOUND["fr"]
    assert retell(near_miss_message(["tail"], "q", "en"), "fr") == near_miss_message(["tail"], "q", "fr")


def test_french_notes_and_reasons_read_in_english_on_an_english_page() -> None:
    notes = " ".join(coverage_notes(["TSCA"], ["IBNR"], "fr", [("chian", "chain")]))
    assert retell(notes, "en") == " ".join(coverage_notes(["TSCA"], ["IBNR"], "en", [("chian", "chain")]))
    reason = rule_plan("pourquoi la provision augmente-t-elle ?", Settings(), "fr").reason
    assert reason.startswith("explication : la question contient")
    assert retell(reason, "en") == "explanation: the question contains “pourquoi”"
    stop = STOPPED["fr"].format(n=2)
    assert retell(stop, "en") == STOPPED["en"].format(n=2)


def test_words_not_ours_and_the_same_language_stay_as_written() -> None:
    model_text = "The model says the reserve grows. It is explained on p. 4."
    assert retell(model_text, "fr") == model_text
    french = missing_message(["French"], "fr")
    assert retell(french, "fr") == french and retell("", "fr") == ""
    assert retell(missing_message(["x"], "en"), "de") == missing_message(["x"], "en")  # a language we do not write
    assert relist("'a', 'b' or 'c'", "en", "fr") == "« a », « b » ni « c »"
    assert relist("the question itself", "en", "fr") == "the question itself"
