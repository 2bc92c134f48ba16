"""Who may evaluate what and see which reported citations: decided by the façade, not by the pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import AccessDenied, NotFoundError, RagError
from rag_core.models import Source
from rag_core.pipeline import evaluating

ADMIN = Principal("admin@example.org", is_admin=True)
ALICE = Principal("alice@example.org")
BOB = Principal("bob@example.org")
SOURCE = Source(
    id="d:p0001",
    kind="parent",
    doc_id="d",
    file_name="a.pdf",
    title="A",
    section="S",
    pages=[4, 2],
    label="A · S · p. 2–4",
    text="t",
    parent_id="p0001",
)


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "shared"
    (root / "eval").mkdir(parents=True)
    (root / "eval" / "dev.jsonl").write_text('{"question": "q?", "pdf": "a.pdf", "pages": [1]}\n', encoding="utf-8")
    monkeypatch.setenv("RAG_SHARED_DIR", str(root))
    return root


def test_only_an_administrator_is_offered_the_reported_citations_and_a_pdf_folder(shared: Path) -> None:
    settings = Settings(data_dir=shared.parent / "data")
    mine = evaluating.evaluation_options(settings, principal=ALICE)
    assert mine.sources == ("shared", "upload") and not mine.choose_pdf_dir
    assert mine.sets == ("dev.jsonl",) and mine.pdf_dir == shared / "corpus" / "pdfs"
    admin = evaluating.evaluation_options(settings, principal=ADMIN)
    assert admin.sources == ("shared", "upload", "reported") and admin.choose_pdf_dir
    assert evaluating.shared_set(settings, "dev.jsonl", principal=ALICE) == (
        ['{"question": "q?", "pdf": "a.pdf", "pages": [1]}'],
        "dev",
    )
    with pytest.raises(NotFoundError):
        evaluating.shared_set(settings, "../secret.jsonl", principal=ALICE)


def test_a_non_administrator_asking_for_the_administrator_only_options_is_refused(shared: Path) -> None:
    settings = Settings(data_dir=shared.parent / "data")
    with pytest.raises(AccessDenied) as refused:
        evaluating.reported_set(settings, principal=ALICE)
    assert isinstance(refused.value, RagError)
    with pytest.raises(AccessDenied):  # refused before anything is read or ingested
        evaluating.evaluate(
            ['{"question": "q?"}'], settings, ["bm25"], "dev", pdf_dir=shared / "elsewhere", principal=ALICE
        )
    assert not (shared.parent / "data").exists()


def test_each_user_sees_their_own_reports_and_an_administrator_everyone_s(shared: Path) -> None:
    settings = Settings(data_dir=shared.parent / "data")
    assert not evaluating.has_reports(settings, principal=ALICE) and not evaluating.has_reports(
        settings, principal=ADMIN
    )
    record = evaluating.report_citation(
        settings, principal=ALICE, question="q?", language="en", source=SOURCE, quote="x", comment="wrong page"
    )
    assert record["reported_by"] == ALICE.user and record["pages"] == [2, 4] and record["source_id"] == SOURCE.id
    assert evaluating.has_reports(settings, principal=ALICE) and evaluating.has_reports(settings, principal=ADMIN)
    assert not evaluating.has_reports(settings, principal=BOB)
    lines, name = evaluating.reported_set(settings, principal=ADMIN)
    assert name == "reported_citations" and [json.loads(line)["question"] for line in lines] == ["q?"]
    assert pipeline.reported_citations(settings, principal=BOB) == b""
