"""The Ask page asks the façade's one check of a question (`pipeline.check_question`) before it
submits, as every API channel does: a question over the limit is not asked and is offered as a search
with its first part; text that cannot be encoded is refused with the check's message, in French."""

from __future__ import annotations

from tests.ui.apptest_support import run_app


def test_the_ask_page_refuses_through_the_facades_check_before_asking(fake_pipeline: dict) -> None:
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Qu'est-ce qu'une franchise\x00 ?").run()
    assert [e.value for e in at.error if "n'est pas du texte valide à la position 27" in e.value]
    at.chat_input(key="ask_input").set_value("franchise " * 201).run()  # 2,010 characters, 2,000 allowed
    assert any("2010 caractères" in w.value for w in at.warning)
    assert any(b.label.startswith("Rechercher") for b in at.button if b.key == "ask_search_first_part")
    assert fake_pipeline["ask"] == []  # neither was asked
    at.chat_input(key="ask_input").set_value("  Quelles variables la vignette définit-elle ?  ").run()
    assert [c["question"].strip() for c in fake_pipeline["ask"]] == ["Quelles variables la vignette définit-elle ?"]
