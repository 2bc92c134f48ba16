"""An upload's file is checked once, where it arrives, and its rights where they can have changed.

Real LanceDB in a temp dir, real PDFs made with PyMuPDF, the worker's loop run in this process
(`Worker.run_once`). `parsing.validate_file` is wrapped by a counting spy that calls the real check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import parsing, pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.jobs import Worker
from rag_core.library import sha256_file
from rag_core.parsing.validation import Kind
from tests.bad_files import make_pdf

ADMIN = Principal.local_operator()
ALICE = Principal("alice@example.org")  # writes into "claims"
BOB = Principal("bob@example.org")  # writes into "board"


@pytest.fixture
def lib(tmp_path: Path) -> Settings:
    settings = Settings(data_dir=tmp_path / "lib")
    for collection, user in (("claims", ALICE), ("board", BOB)):
        pipeline.create_collection(settings, collection, principal=ADMIN)
        pipeline.grant(settings, collection, principal=ADMIN, user=user.user, role="write")
    return settings


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files `parsing.validate_file` checked, in order (the real check runs)."""
    seen: list[str] = []
    real = parsing.validate_file

    def counted(path: Path, settings: Settings, file_name: str | None = None) -> Kind:
        seen.append(file_name or Path(path).name)
        return real(path, settings, file_name=file_name)

    monkeypatch.setattr(parsing, "validate_file", counted)
    return seen


def _drain(settings: Settings) -> None:
    worker = Worker(settings)
    while worker.run_once():
        pass


def test_a_queued_upload_is_checked_once_when_it_is_queued(lib: Settings, tmp_path: Path, checks: list[str]) -> None:
    pdf = make_pdf(tmp_path / "mack.pdf", "Mack", pages=2)
    job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, lib, "claims", principal=ALICE, into_existing=True)
    assert checks == ["mack.pdf"]
    _drain(lib)
    done = pipeline.get_job(job.id, lib, principal=ALICE)
    assert (done.state, done.message_key, done.doc_id) == ("done", "ingested", sha256_file(pdf))
    assert checks == ["mack.pdf"]  # the worker trusts the kind and the id its job row carries
    record = pipeline.get_document(done.doc_id, lib, principal=ALICE)
    assert (record.file_name, record.pages, record.parser) == ("mack.pdf", 2, "pymupdf")


def test_an_inline_ingestion_checks_each_file_once(lib: Settings, tmp_path: Path, checks: list[str]) -> None:
    pdfs = [make_pdf(tmp_path / f"r{n}.pdf", f"Report {n}", pages=1) for n in range(2)]
    results = pipeline.ingest(pdfs, lib, "claims", principal=ALICE, into_existing=True)
    assert [r.status for r in results] == ["ingested", "ingested"]
    assert checks == ["r0.pdf", "r1.pdf"]


def test_the_same_bytes_queued_into_two_collections_stay_where_they_were_first_written(
    lib: Settings, tmp_path: Path
) -> None:
    """Both uploads are accepted (the library does not hold the bytes yet); whichever job runs second
    finds them stored in a collection its submitter may not manage, and is refused at run time
    rather than moving the document out of the other user's collection."""
    pdf = make_pdf(tmp_path / "shared.pdf", "Chain ladder", pages=1)
    jobs = [
        pipeline.submit_upload(pdf.read_bytes(), pdf.name, lib, collection, principal=who, into_existing=True)
        for collection, who in (("claims", ALICE), ("board", BOB))
    ]
    _drain(lib)
    ended = [pipeline.get_job(j.id, lib, principal=ADMIN) for j in jobs]
    assert sorted(j.state for j in ended) == ["done", "failed"]
    done = next(j for j in ended if j.state == "done")
    failed = next(j for j in ended if j.state == "failed")
    assert failed.message_key == "refused" and failed.collection in failed.message
    assert pipeline.get_document(sha256_file(pdf), lib, principal=ADMIN).collection == done.collection
