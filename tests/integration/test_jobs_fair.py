"""Fair order in the upload queue: small files first, users in turn, and a small-files lane that
starts a small upload while a long one runs. Real uploads through the façade, a real LanceDB job
table in a temp dir, real worker processes running the real stages on corpus PDFs."""

from __future__ import annotations

import shutil
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.jobs.fair import PageCounts, claim_order
from rag_core.services.connection import open_store
from tests.bad_files import make_pdf
from tests.jobs_support import WorkerProcess, wait_until

LOCAL = Principal.local_operator()


def _submit(settings: Settings, pdf: Path, principal: Principal = LOCAL) -> str:
    return pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=principal).id


def _claim_ids(settings: Settings, max_pages: int | None = None) -> list[str]:
    """Claim every job a worker would take, in the order it takes them (the worker's own order)."""
    table = open_store(settings).job_table()
    pages = PageCounts(settings)
    order = lambda queued, running: claim_order(  # noqa: E731
        queued, running, pages, settings.jobs.small_job_pages, max_pages
    )
    taken = []
    while (job := table.claim("w", 600, order=order)) is not None:
        taken.append(job.id)
    return taken


def test_small_files_are_claimed_before_a_large_one_queued_earlier(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    large = _submit(settings, make_pdf(tmp_path / "large.pdf", "Mack", pages=40))
    medium = _submit(settings, make_pdf(tmp_path / "medium.pdf", "Clark", pages=12))
    small = _submit(settings, make_pdf(tmp_path / "small.pdf", "Benktander", pages=3))
    assert _claim_ids(settings) == [small, medium, large]


def test_the_small_files_lane_never_takes_a_large_file(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    large = _submit(settings, make_pdf(tmp_path / "large.pdf", "Mack", pages=40))
    small = _submit(settings, make_pdf(tmp_path / "small.pdf", "Benktander", pages=3))
    assert _claim_ids(settings, max_pages=settings.jobs.small_job_pages) == [small]
    assert open_store(settings).job_table().get(large).state == "queued"


def test_two_users_large_uploads_alternate(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    alice, bob = Principal("alice@example.org"), Principal("bob@example.org")
    pipeline.create_collection(settings, "claims", principal=LOCAL)
    for who in (alice, bob):
        pipeline.grant(settings, "claims", principal=LOCAL, user=who.user, role="write")

    def submit(pdf: Path, who: Principal) -> str:
        return pipeline.submit_upload(
            pdf.read_bytes(), pdf.name, settings, "claims", principal=who, into_existing=True
        ).id

    a = [submit(make_pdf(tmp_path / f"a{n}.pdf", f"Mack {n}", pages=30), alice) for n in range(3)]
    b = submit(make_pdf(tmp_path / "b.pdf", "Clark", pages=30), bob)
    table = open_store(settings).job_table()
    pages = PageCounts(settings)
    order = lambda queued, running: claim_order(queued, running, pages, 20)  # noqa: E731
    first = table.claim("w1", 600, order=order)
    second = table.claim("w2", 600, order=order)  # alice has one running: bob's goes before her next
    assert (first.id, second.id) == (a[0], b)


def test_a_small_upload_queued_after_a_long_one_is_searchable_before_the_long_one_ends(
    tmp_path: Path, corpus_dir: Path
) -> None:
    data = tmp_path / "lib"
    settings = Settings(data_dir=data)
    long_pdf = shutil.copy(corpus_dir / "fr_notes_ACT2005_mathematiques_actuarielles_IARD1.pdf", tmp_path)
    short_pdf = shutil.copy(corpus_dir / "en_actuar_coverage_modifications.pdf", tmp_path)
    workers = [WorkerProcess(data), WorkerProcess(data, args=["--max-pages", str(settings.jobs.small_job_pages)])]
    try:
        long_id = _submit(settings, Path(long_pdf))
        workers[0].wait_for_line(lambda ln: ln.startswith(f"EVENT {long_id} parse"), 600)
        short_id = _submit(settings, Path(short_pdf))  # queued while the long one runs
        wait_until(lambda: pipeline.get_job(short_id, settings, principal=LOCAL).state == "done", 900)
        long_job = pipeline.get_job(long_id, settings, principal=LOCAL)
        assert long_job.state == "running", "the short upload was searchable before the long one ended"
        hits = pipeline.search("coverage modifications deductible", settings, principal=LOCAL)
        assert any(h.document.file_name == "en_actuar_coverage_modifications.pdf" for h in hits.parents)
        # what is tested has happened; the rest of the long import would only cost the suite minutes
        pipeline.cancel_job(long_id, settings, principal=LOCAL)
        wait_until(lambda: pipeline.get_job(long_id, settings, principal=LOCAL).state != "running", 300)
    finally:
        for w in workers:
            w.stop()
    assert workers[1].events(short_id) and not workers[1].events(long_id)


def test_each_queued_job_knows_its_place_and_why_it_waits(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    running = _submit(settings, make_pdf(tmp_path / "first.pdf", "Schnieper", pages=30))
    assert open_store(settings).job_table().claim("w", 600).id == running  # a worker holds it
    large = _submit(settings, make_pdf(tmp_path / "large.pdf", "Mack", pages=40))
    small = _submit(settings, make_pdf(tmp_path / "small.pdf", "Benktander", pages=3))
    jobs = pipeline.list_jobs(settings, principal=LOCAL)
    places = pipeline.queue_places(settings, jobs)
    assert places == {small: (1, True, 1), large: (2, False, 1)}  # the running one has no place
