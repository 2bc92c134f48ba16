"""The upload queue under faults: real worker processes on a real LanceDB library in a temp dir.

A worker SIGKILLed in each stage (a new one finishes the job from the stage after the last
finished one, and the library passes the consistency checks of test_robustness), two workers
racing for ten jobs (each runs once), a worker stopped and restarted with jobs queued.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.library import DocumentFolder, sha256_file
from rag_core.services.connection import open_store
from tests.bad_files import make_pdf
from tests.jobs_support import WorkerProcess, wait_until

LOCAL = Principal.local_operator()
FAST_LEASE = {"RAG_JOBS__LEASE_S": "2", "RAG_JOBS__HEARTBEAT_S": "1"}


def _submit(settings: Settings, pdf: Path) -> str:
    return pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=LOCAL).id


def _state(settings: Settings, job_id: str) -> str:
    return pipeline.get_job(job_id, settings, principal=LOCAL).state


def _ended(settings: Settings, ids: list[str]) -> bool:
    return all(_state(settings, i) in ("done", "failed", "cancelled") for i in ids)


@pytest.mark.parametrize("stage", ["parse", "chunk", "embed", "write"])
def test_worker_killed_in_a_stage_resumes_at_the_next_one(tmp_path: Path, stage: str) -> None:
    data = tmp_path / "lib"
    settings = Settings(data_dir=data)
    keep = make_pdf(tmp_path / "kept.pdf", "Bornhuetter")
    assert pipeline.ingest([keep], settings, principal=LOCAL)[0].status == "ingested"
    victim = make_pdf(tmp_path / "victim.pdf", "Mack chain ladder")
    job_id = _submit(settings, victim)

    first = WorkerProcess(data, FAST_LEASE)
    first.wait_for_line(lambda ln: ln.startswith(f"EVENT {job_id} {stage} "))
    first.kill()
    assert _state(settings, job_id) == "running"  # nobody told the table: the lease will run out
    folder = DocumentFolder(settings.documents_dir, sha256_file(victim))
    finished = set(folder.manifest().get("stages", {}))
    assert finished <= {"parse", "chunk", "embed", "write"}
    victim_id = sha256_file(victim)
    ids = [r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)]
    if victim_id not in ids:  # half-written: nothing of it is searchable
        hits = pipeline.search("Mack chain ladder development factors", settings, principal=LOCAL).parents
        assert all(h.document.doc_id != victim_id for h in hits)

    second = WorkerProcess(data, FAST_LEASE)
    try:
        wait_until(lambda: _ended(settings, [job_id]), 300)
    finally:
        second.stop()
    job = pipeline.get_job(job_id, settings, principal=LOCAL)
    assert job.state == "done", (job.message_key, job.message)
    assert job.attempts == 2
    # the second run reused exactly what had finished (a finished write makes it "already present")
    assert set(filter(None, job.reused.split(","))) == finished - {"write"}, (stage, job.reused, finished)
    # the consistency checks of an interrupted inline ingestion
    store = open_store(settings)
    assert store.purge_orphans() == 0
    assert {r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)} == {sha256_file(keep), victim_id}
    assert set(folder.manifest()["stages"]) == {"parse", "chunk", "embed", "write"}
    assert not list(folder.root.glob(".*.tmp*"))
    hits = pipeline.search("Mack chain ladder development factors", settings, principal=LOCAL).parents
    assert any(h.document.doc_id == victim_id for h in hits)
    assert pipeline.search("Bornhuetter reserves", settings, principal=LOCAL).parents


def test_two_workers_ten_jobs_each_runs_once(tmp_path: Path) -> None:
    data = tmp_path / "lib"
    settings = Settings(data_dir=data)
    topics = [
        "Mack",
        "Bornhuetter",
        "bootstrap",
        "Cape Cod",
        "Munich chain ladder",
        "Benktander",
        "Schnieper",
        "Clark",
        "Merz Wuthrich",
        "Taylor separation",
    ]
    ids = [_submit(settings, make_pdf(tmp_path / f"r{n}.pdf", topic, pages=1)) for n, topic in enumerate(topics)]
    workers = [WorkerProcess(data), WorkerProcess(data)]
    try:
        wait_until(lambda: _ended(settings, ids), 600)
    finally:
        for w in workers:
            w.stop()
    jobs = [pipeline.get_job(i, settings, principal=LOCAL) for i in ids]
    assert [j.state for j in jobs] == ["done"] * 10
    assert [j.attempts for j in jobs] == [1] * 10
    for job_id in ids:  # each job's stages ran in exactly one worker
        assert sum(1 for w in workers if w.events(job_id)) == 1, job_id
    assert all(w.events() for w in workers), "both workers took jobs"
    assert len(pipeline.list_documents(settings, principal=LOCAL)) == 10
    done = [e for e in pipeline.audit_events(settings, principal=LOCAL) if e["event"] == "job_done"]
    assert sorted(e["job_id"] for e in done) == sorted(ids)


def test_restarted_worker_runs_the_jobs_left_in_the_queue(tmp_path: Path) -> None:
    data = tmp_path / "lib"
    settings = Settings(data_dir=data)
    ids = [
        _submit(settings, make_pdf(tmp_path / f"q{n}.pdf", topic, pages=1))
        for n, topic in enumerate(["Mack", "Bornhuetter", "bootstrap"])
    ]
    assert pipeline.live_workers(settings) == []  # the app says no worker runs
    worker = WorkerProcess(data)
    wait_until(lambda: _state(settings, ids[0]) == "done", 300)
    assert worker.stop() == 0  # SIGTERM: a job it was running goes back to the queue, not lost
    states = [_state(settings, i) for i in ids]
    assert "running" not in states, states
    wait_until(lambda: not pipeline.live_workers(settings), 30)  # its heartbeat row is gone

    again = WorkerProcess(data)
    try:
        wait_until(lambda: _ended(settings, ids), 300)
        assert pipeline.live_workers(settings)
    finally:
        again.stop()
    assert [_state(settings, i) for i in ids] == ["done"] * 3
    assert len(pipeline.list_documents(settings, principal=LOCAL)) == 3


def test_cli_queue_and_jobs_list(tmp_path: Path) -> None:
    import subprocess
    import sys

    data = tmp_path / "lib"
    pdf = make_pdf(tmp_path / "cli.pdf", "Mack", pages=1)
    env = {"RAG_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}

    def run(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "rag_core", *a],
            capture_output=True,
            text=True,
            env=env,
            cwd=Path(__file__).resolve().parents[2],
            timeout=120,
        )

    queued = run("ingest", "--queue", str(pdf))
    assert queued.returncode == 0 and "queued" in queued.stdout and "No worker is running" in queued.stdout
    listed = json.loads(run("jobs", "list", "--json").stdout)
    assert listed["workers"] == 0 and [j["state"] for j in listed["jobs"]] == ["queued"]
    assert "owner" not in listed["jobs"][0] and "groups" not in listed["jobs"][0]
    stranger = run("jobs", "cancel", listed["jobs"][0]["id"][:8], "--as-user", "eve@example.org")
    assert stranger.returncode == 1 and "No single import matches" in stranger.stderr
    assert json.loads(run("jobs", "--json", "--as-user", "eve@example.org").stdout)["jobs"] == []
    cancelled = run("jobs", "cancel", listed["jobs"][0]["id"][:8])
    assert cancelled.returncode == 0 and "cancelled" in cancelled.stdout
    retried = run("jobs", "retry", listed["jobs"][0]["id"][:8])
    assert retried.returncode == 0 and "queued again" in retried.stdout
