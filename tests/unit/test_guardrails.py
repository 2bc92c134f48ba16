"""The guard-rails as an ordered list of checks (rag_core.answering.guardrails) and their marks."""

from __future__ import annotations

from rag_app.ui.strings import marks as mark_strings
from rag_core.answering import guardrails
from rag_core.answering.guardrails import CHECKS, Evidence
from rag_core.answering.guardrails.support import VerdictOut, _judged
from rag_core.answering.verification import verify_citations
from rag_core.citations import build_sources
from rag_core.config import Settings
from rag_core.models import Paragraph
from tests.answering_support import make_result


def _evidence(mode: str, support: bool = False, stopped: bool = False) -> tuple[Evidence, list]:
    result = make_result()
    sources = build_sources(result, 3)
    settings = Settings()
    settings = settings.model_copy(update={"answer": settings.answer.model_copy(update={"support_check": support})})
    two = [sources[0].model_copy(update={"collection": "Cours"}), sources[1]]
    return Evidence(mode, "fr", settings, two, two, result.parents[:3], stopped=stopped), two  # type: ignore[arg-type]


def test_a_paragraph_stored_before_marks_gets_the_marks_the_checks_give() -> None:
    _, sources = _evidence("llm")
    para = Paragraph(text="Le Chain Ladder.", source_ids=[s.id for s in sources], quote="absent de la source")
    checked = verify_citations([para], sources, "fr").paragraphs
    judged = _judged(checked[0], VerdictOut(paragraph=1, verdict="not_supported", reason="Rien."), "fr")
    marked = guardrails.mark_collections([judged], sources)[0]
    assert [m.key for m in marked.marks] == [
        "mark.quote.partial",
        "mark.support.not_supported",
        "mark.collections.several",
    ]
    stored = marked.model_dump(mode="json")
    del stored["marks"]
    assert Paragraph.model_validate(stored).marks == marked.marks
    assert Paragraph.model_validate_json(marked.model_dump_json()).marks == marked.marks


def test_checks_that_need_no_judge_run_on_extractive_answers_and_the_judge_says_why_it_did_not() -> None:
    evidence, sources = _evidence("extractive", support=True)
    para = Paragraph(text="Deux collections.", source_ids=[s.id for s in sources], quote="x")
    outcome = guardrails.apply(verify_citations([para], sources, "fr").paragraphs, evidence)
    assert outcome.paragraphs[0].collections == ["Cours", sources[1].collection]
    assert [m.key for m in outcome.marks] == ["mark.support.skipped_extractive"]
    assert outcome.prompt_tokens == 0 and outcome.paragraphs[0].judged is None
    stopped, _ = _evidence("llm", support=True, stopped=True)
    assert [m.key for m in guardrails.apply([], stopped).marks] == ["mark.support.skipped_stopped"]
    off, _ = _evidence("extractive", support=False)
    assert guardrails.apply([], off).marks == []  # a check switched off is not "skipped"


def test_every_mark_of_every_check_has_its_message() -> None:
    keys = {key for check in CHECKS for key in check.marks} | {"mark.quote.partial"}
    keys |= {f"mark.{c.name}.skipped_{why}" for c in CHECKS if "judge" in c.needs for why in ("extractive", "stopped")}
    assert keys <= mark_strings.STRINGS.keys()
    assert all(set(v) == {"fr", "en"} for v in mark_strings.STRINGS.values())
    assert [c.name for c in CHECKS] == ["numbers", "support", "subject", "collections"]
