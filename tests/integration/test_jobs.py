"""The upload queue's rules: submission checks, the per-user cap, cancel, retry, access, audit.

Real LanceDB in a temp dir; the jobs are run by `rag_core.jobs.Worker` in this process (`run_once`,
the loop of `python -m rag_core worker` one turn at a time) or by a real worker process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import AccessDenied, InputError, NotFoundError, QuotaError
from rag_core.jobs import Worker
from rag_core.library import DocumentFolder, sha256_file
from rag_core.pipeline.jobs import JOB_NOT_FOUND
from rag_core.services.connection import open_store
from tests import bad_files
from tests.bad_files import make_pdf
from tests.jobs_support import WorkerProcess, wait_until

ADMIN = Principal.local_operator()
ALICE = Principal("alice@example.org")  # writes into "claims"
MANAGER = Principal("maud@example.org")  # manages "claims"
READER = Principal("rita@example.org")  # reads "claims"
EVE = Principal("eve@example.org")  # no grant


@pytest.fixture
def lib(tmp_path: Path) -> Settings:
    settings = Settings(data_dir=tmp_path / "lib")
    pipeline.create_collection(settings, "claims", principal=ADMIN)
    pipeline.grant(settings, "claims", principal=ADMIN, user=ALICE.user, role="write")
    pipeline.grant(settings, "claims", principal=ADMIN, user=MANAGER.user, role="manage")
    pipeline.grant(settings, "claims", principal=ADMIN, user=READER.user, role="read")
    return settings


def _submit(settings: Settings, pdf: Path, who: Principal = ALICE, collection: str = "claims"):
    # "claims" was created by the administrator: the users pick it, as from the Library page's list
    return pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, collection, principal=who, into_existing=True)


def _drain(settings: Settings) -> None:
    worker = Worker(settings)
    while worker.run_once():
        pass


def test_upload_is_stored_before_the_job_and_runs_to_done(lib: Settings, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "mack.pdf", "Mack", pages=1)
    job = _submit(lib, pdf)
    stored = lib.uploads_dir / f"{sha256_file(pdf)}.pdf"
    assert stored.read_bytes() == pdf.read_bytes()  # in the library, named by its content
    assert job.state == "queued" and pipeline.get_job(job.id, lib, principal=ALICE).state == "queued"
    assert pipeline.list_documents(lib, principal=ADMIN) == []
    _drain(lib)
    done = pipeline.get_job(job.id, lib, principal=ALICE)
    assert (done.state, done.message_key, done.doc_id) == ("done", "ingested", sha256_file(pdf))
    assert [r.file_name for r in pipeline.list_documents(lib, principal=READER)] == ["mack.pdf"]
    assert pipeline.search("Mack development factors", lib, principal=READER).parents
    assert not stored.exists()  # now the document's source.pdf
    assert pipeline.progress_of(done) == 1.0 and pipeline.elapsed_of(done) > 0


def test_refused_at_upload_time_with_todays_messages(lib: Settings, tmp_path: Path) -> None:
    encrypted = tmp_path / "locked.pdf"
    bad_files.encrypted(encrypted)
    inline = pipeline.ingest([encrypted], lib, "claims", principal=ALICE, into_existing=True)[0]
    assert inline.status == "refused"
    with pytest.raises(InputError) as queued:
        _submit(lib, encrypted)
    assert str(queued.value) == inline.message
    small = Settings(data_dir=lib.data_dir, parsing={"max_file_mb": 0.001})
    with pytest.raises(InputError, match="RAG_PARSING__MAX_FILE_MB"):
        _submit(small, make_pdf(tmp_path / "big.pdf", "Mack", pages=3))
    with pytest.raises(AccessDenied):
        _submit(lib, make_pdf(tmp_path / "r.pdf", "Mack", pages=1), who=READER)
    assert pipeline.list_jobs(lib, principal=ADMIN) == []
    assert not [p for p in lib.uploads_dir.iterdir()]  # nothing kept of a refused upload


def test_a_queued_upload_into_someone_elses_collection_must_be_meant(lib: Settings, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "typed.pdf", "Mack", pages=1)
    with pytest.raises(AccessDenied, match="created by"):  # a typed name that happens to exist
        pipeline.submit_upload(pdf.read_bytes(), pdf.name, lib, "Claims", principal=ALICE)
    assert pipeline.list_jobs(lib, principal=ADMIN) == []
    assert _submit(lib, pdf, collection="Claims").collection == "claims"  # same collection up to case


def test_per_user_cap_on_queued_jobs(lib: Settings, tmp_path: Path) -> None:
    capped = Settings(data_dir=lib.data_dir, jobs={"max_queued_per_user": 2})
    for n in range(2):
        _submit(capped, make_pdf(tmp_path / f"c{n}.pdf", f"Mack {n}", pages=1))
    with pytest.raises(QuotaError, match="RAG_JOBS__MAX_QUEUED_PER_USER"):
        _submit(capped, make_pdf(tmp_path / "c2.pdf", "Mack 2", pages=1))
    _submit(capped, make_pdf(tmp_path / "m.pdf", "Mack m", pages=1), who=MANAGER)  # the cap is per user
    first = pipeline.list_jobs(capped, principal=ALICE)[0]
    pipeline.cancel_job(first.id, capped, principal=ALICE)  # an ended job frees its place
    _submit(capped, make_pdf(tmp_path / "c3.pdf", "Mack 3", pages=1))


def test_job_visible_and_cancellable_only_by_submitter_managers_admins(lib: Settings, tmp_path: Path) -> None:
    job = _submit(lib, make_pdf(tmp_path / "secret.pdf", "Zephyrine captive", pages=1))
    for who in (ALICE, MANAGER, ADMIN):
        assert [j.id for j in pipeline.list_jobs(lib, principal=who)] == [job.id]
    for who in (READER, EVE):
        assert pipeline.list_jobs(lib, principal=who) == []
        for verb in (pipeline.get_job, pipeline.cancel_job, pipeline.retry_job):
            with pytest.raises(NotFoundError, match=JOB_NOT_FOUND):
                verb(job.id, lib, principal=who)
        with pytest.raises(NotFoundError):  # the bytes: nothing to open before the job is done
            pipeline.source_path(job.doc_id, lib, principal=who)
    with pytest.raises(NotFoundError, match=JOB_NOT_FOUND):
        pipeline.get_job("not-a-job'; --", lib, principal=ADMIN)
    assert pipeline.cancel_job(job.id, lib, principal=MANAGER) == "queued"
    _drain(lib)
    cancelled = pipeline.get_job(job.id, lib, principal=ALICE)
    assert cancelled.state == "cancelled" and pipeline.list_documents(lib, principal=ADMIN) == []
    with pytest.raises(NotFoundError):  # a failed job's message is not anyone's either
        pipeline.retry_job(job.id, lib, principal=EVE)
    pipeline.retry_job(job.id, lib, principal=ALICE)
    _drain(lib)
    assert pipeline.get_job(job.id, lib, principal=ALICE).state == "done"
    with pytest.raises(NotFoundError, match="already finished"):
        pipeline.cancel_job(job.id, lib, principal=ALICE)
    events = [
        (e["event"], e["user"])
        for e in pipeline.audit_events(lib, principal=ADMIN)
        if e["event"].startswith("job_") and e.get("job_id") == job.id
    ]
    assert events == [
        ("job_queued", ALICE.user),
        ("job_cancelled", MANAGER.user),
        ("job_retried", ALICE.user),
        ("job_done", ALICE.user),
    ]


def test_unreadable_content_fails_with_its_message_and_stays_retryable(lib: Settings, tmp_path: Path) -> None:
    blank = tmp_path / "blank.pdf"
    import pymupdf

    with pymupdf.open() as doc:
        doc.new_page()
        doc.save(blank)
    job = _submit(lib, blank)
    _drain(lib)
    failed = pipeline.get_job(job.id, lib, principal=ALICE)
    assert (failed.state, failed.message_key) == ("failed", "refused")
    assert "No text could be read" in failed.message
    assert failed.attempts == 1  # a file the user must fix is not retried on its own
    assert pipeline.list_documents(lib, principal=ADMIN) == []
    audit = [e for e in pipeline.audit_events(lib, principal=ADMIN) if e["event"] == "job_failed"]
    assert audit and audit[0]["job_id"] == job.id and "No text" in audit[0]["message"]
    pipeline.retry_job(job.id, lib, principal=MANAGER)  # the bytes are kept for a retry
    assert pipeline.get_job(job.id, lib, principal=ALICE).state == "queued"


def test_cancel_while_running_leaves_nothing_of_it(lib: Settings, tmp_path: Path) -> None:
    keep = make_pdf(tmp_path / "kept.pdf", "Bornhuetter", pages=1)
    assert pipeline.ingest([keep], lib, "claims", principal=ADMIN)[0].status == "ingested"
    victim = make_pdf(tmp_path / "long.pdf", "Wombat claims", pages=40)
    job = _submit(lib, victim)
    worker = WorkerProcess(lib.data_dir, {"RAG_JOBS__LEASE_S": "3"})
    try:
        worker.wait_for_line(lambda ln: ln.startswith(f"EVENT {job.id} embed "), 300)
        assert pipeline.cancel_job(job.id, lib, principal=ALICE) == "running"
        wait_until(lambda: pipeline.get_job(job.id, lib, principal=ALICE).state == "cancelled", 120)
    finally:
        worker.stop()
    victim_id = sha256_file(victim)
    assert [r.doc_id for r in pipeline.list_documents(lib, principal=ADMIN)] == [sha256_file(keep)]
    assert not DocumentFolder(lib.documents_dir, victim_id).root.exists()  # parse and chunk outputs removed
    assert open_store(lib).purge_orphans() == 0  # no half-written rows either
    hits = pipeline.search("Wombat claims development factors", lib, principal=ADMIN).parents
    assert all(h.document.doc_id != victim_id for h in hits)
    assert pipeline.search("Bornhuetter reserves", lib, principal=ADMIN).parents


def test_job_table_versions_stay_bounded(lib: Settings, tmp_path: Path) -> None:
    for n in range(3):
        _submit(lib, make_pdf(tmp_path / f"v{n}.pdf", f"Mack {n}", pages=2))
    worker = Worker(lib)
    while worker.run_once():
        pass
    table = open_store(lib).job_table()
    before = table.versions()["jobs"]
    left = table.compact(keep_s=0)
    assert left["jobs"] < before and left["jobs"] <= 2, (before, left)
    assert [j.state for j in table.all()] == ["done"] * 3  # compaction loses no row


def test_the_same_internal_error_twice_fails_the_job(lib: Settings, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "broken.pdf", "Mack", pages=1)
    job = _submit(lib, pdf)
    folder = DocumentFolder(lib.documents_dir, sha256_file(pdf))
    folder.root.mkdir(parents=True)
    folder.manifest_path.write_text("{not json")  # a damaged library file: not the user's fault
    worker = Worker(lib)
    assert worker.run_once()
    again = pipeline.get_job(job.id, lib, principal=ALICE)
    assert (again.state, again.attempts) == ("queued", 1)  # retried once on its own
    assert worker.run_once()
    failed = pipeline.get_job(job.id, lib, principal=ALICE)
    assert (failed.state, failed.message_key, failed.attempts) == ("failed", "internal", 2)
    assert "internal error" in failed.message and "JSONDecodeError" not in failed.message  # no detail for users
    assert not worker.run_once()  # not retried forever


def test_finished_imports_are_cleared_from_the_user_s_list_and_stay_in_the_audit_trail(
    lib: Settings, tmp_path: Path
) -> None:
    ended = _submit(lib, make_pdf(tmp_path / "ended.pdf", "Quokka tail factors", pages=1))
    pipeline.cancel_job(ended.id, lib, principal=ALICE)
    _drain(lib)  # the worker ends the cancelled job
    waiting = _submit(lib, make_pdf(tmp_path / "waiting.pdf", "Wombat reserves", pages=1))
    assert {j.id for j in pipeline.list_jobs(lib, principal=ALICE)} == {ended.id, waiting.id}
    pipeline.clear_finished_jobs(lib, principal=ALICE)
    assert [j.id for j in pipeline.list_jobs(lib, principal=ALICE)] == [waiting.id]  # a job not ended stays
    assert {j.id for j in pipeline.list_jobs(lib, principal=MANAGER)} == {ended.id, waiting.id}  # her own list
    assert pipeline.get_job(ended.id, lib, principal=ALICE).state == "cancelled"  # the row is kept
    events = [e["event"] for e in pipeline.audit_events(lib, principal=ADMIN)]
    assert "job_cancelled" in events and "jobs_cleared" in events
