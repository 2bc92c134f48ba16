"""One library on an S3 API shared by several servers and workers (real `moto_server` on 127.0.0.1,
real LanceDB on it, real worker processes): what one server does, another sees; grants and the
audit trail lose nothing when two processes change them at once; a store that ignores conditional
writes is refused. "Server A" and "server B" are two `Settings` with their own local caches, as two
app servers on two machines would have; the browser test of two Streamlit servers is in tests/ui.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.request import Request, urlopen

import pytest

from rag_core import pipeline, storage
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.library import sha256_file
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store
from rag_core.services.conversations import conversation_history
from tests.bad_files import make_pdf
from tests.jobs_support import REPO, WorkerProcess, wait_until
from tests.s3_support import moto_server, new_bucket, s3_env

LOCAL = Principal.local_operator()
BOB = Principal("bob@example.org")


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with moto_server(tmp_path_factory.mktemp("moto") / "moto.log") as url:
        yield url


@pytest.fixture
def library(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket; the AWS variables in this process's environment (obstore and LanceDB read them)."""
    for name, value in s3_env(endpoint).items():
        monkeypatch.setenv(name, value)
    return f"s3://{new_bucket(endpoint)}/library"


def _server(uri: str, cache: Path) -> Settings:
    return Settings(library_uri=uri, data_dir=cache / "data", storage={"cache_dir": cache / "cache"})


def _worker(uri: str, cache: Path, endpoint: str) -> WorkerProcess:
    env = {**s3_env(endpoint), "RAG_LIBRARY_URI": uri, "RAG_STORAGE__CACHE_DIR": str(cache / "cache")}
    return WorkerProcess(cache / "data", env)


def _done(settings: Settings, ids: list[str]) -> bool:
    return all(pipeline.get_job(i, settings, principal=LOCAL).state in ("done", "failed") for i in ids)


def test_what_server_a_ingests_server_b_lists_searches_opens_and_deletes(
    library: str, endpoint: str, tmp_path: Path
) -> None:
    a, b = _server(library, tmp_path / "a"), _server(library, tmp_path / "b")
    pdf = make_pdf(tmp_path / "mack.pdf", "Mack chain ladder reserve variability", pages=3)
    job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, a, "reserving", principal=LOCAL)
    worker = _worker(library, tmp_path / "w", endpoint)
    try:
        wait_until(lambda: _done(a, [job.id]), 300)
    finally:
        worker.stop()
    seen_on_b = pipeline.get_job(job.id, b, principal=LOCAL)
    assert seen_on_b.state == "done", (seen_on_b.message, worker.lines[-20:])
    doc_id = sha256_file(pdf)
    assert [r.doc_id for r in pipeline.list_documents(b, principal=LOCAL)] == [doc_id]
    hits = pipeline.search("Mack chain ladder reserve variability", b, principal=LOCAL).parents
    assert hits and hits[0].document.doc_id == doc_id
    source = pipeline.source_path(doc_id, b, principal=LOCAL)  # fetched from the library into B's cache
    assert source.read_bytes() == pdf.read_bytes() and str(tmp_path / "b") in str(source)
    assert pipeline.load_chunks(doc_id, b, principal=LOCAL).children
    assert not list((tmp_path / "a").rglob("lancedb"))  # nothing shared lives on a server's disk

    # a grant given on B applies to A's next question
    with pytest.raises(NotFoundError):
        pipeline.get_document(doc_id, a, principal=BOB)
    refused = pipeline.ask("What is the Mack chain ladder reserve variability?", a, principal=BOB)
    assert all(s.doc_id != doc_id for s in refused.sources)
    pipeline.grant(b, "reserving", principal=LOCAL, user=BOB.user, role="read")
    answered = pipeline.ask("What is the Mack chain ladder reserve variability?", a, principal=BOB)
    assert answered.paragraphs and {s.doc_id for s in answered.sources} == {doc_id}

    # deleted on B: gone for A, and from the object store
    pipeline.delete(doc_id, b, principal=LOCAL)
    assert pipeline.list_documents(a, principal=LOCAL) == []
    assert storage.open_library(a).entries(f"documents/{doc_id}/") == []
    events = [e["event"] for e in pipeline.audit_events(a, principal=LOCAL)]
    assert {"job_queued", "job_done", "document_opened", "grant", "deletion"} <= set(events), events


def test_uploads_on_two_servers_at_once_lose_nothing(library: str, endpoint: str, tmp_path: Path) -> None:
    servers = {"a": _server(library, tmp_path / "a"), "b": _server(library, tmp_path / "b")}
    pdfs = {
        (name, n): make_pdf(tmp_path / f"{name}{n}.pdf", f"{topic} report {name}", pages=2)
        for name in servers
        for n, topic in enumerate(["Bornhuetter Ferguson", "Cape Cod", "bootstrap"])
    }
    ids: dict[tuple[str, int], str] = {}

    def submit(name: str) -> None:  # each server queues its uploads into its own new collection
        for (server, n), pdf in pdfs.items():
            if server == name:
                who = Principal(f"{name}@example.org")  # not an administrator: the collection is registered
                job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, servers[name], f"team {name}", principal=who)
                ids[(server, n)] = job.id

    threads = [threading.Thread(target=submit, args=(name,)) for name in servers]
    workers = [_worker(library, tmp_path / f"w{name}", endpoint) for name in servers]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wait_until(lambda: _done(servers["a"], list(ids.values())), 600)
    finally:
        for worker in workers:
            worker.stop()
    a = servers["a"]
    assert {pipeline.get_job(i, a, principal=LOCAL).state for i in ids.values()} == {"done"}
    records = pipeline.list_documents(a, principal=LOCAL)
    assert sorted(r.doc_id for r in records) == sorted(sha256_file(p) for p in pdfs.values())
    assert {r.collection for r in records} == {"team a", "team b"}
    store = open_store(a)
    for record in records:  # every chunk of every document is there, in its folder (read through B)...
        assert len(pipeline.load_chunks(record.doc_id, servers["b"], principal=LOCAL).children) == record.children
    assert store.count_children() == sum(r.children for r in records)  # ...and in the table
    managers = {(g.collection, g.subject) for g in pipeline.list_grants(a, principal=LOCAL) if g.role == "manage"}
    assert managers == {("team a", "a@example.org"), ("team b", "b@example.org")}  # both creators' grants
    events = pipeline.audit_events(a, principal=LOCAL)
    assert sorted(e["job_id"] for e in events if e["event"] == "job_queued") == sorted(ids.values())
    assert sorted(e["job_id"] for e in events if e["event"] == "job_done") == sorted(ids.values())


_CHANGES = """
import sys
from rag_core import storage
from rag_core.access import AuditLog, GrantStore, Principal
from rag_core.config import Settings
settings = Settings(library_uri=sys.argv[1])
library = storage.open_library(settings)
for n in range(int(sys.argv[3])):
    GrantStore(library).register(f"{sys.argv[2]}-{n}", "ann@example.org")
    AuditLog(library).append("collection_created", Principal("ann@example.org"), {"collection": f"{sys.argv[2]}-{n}"})
"""


def test_two_processes_granting_and_auditing_at_once_keep_every_change(library: str, tmp_path: Path) -> None:
    env = {**os.environ}
    runs = [
        subprocess.Popen([sys.executable, "-c", _CHANGES, library, tag, "12"], cwd=REPO, env=env) for tag in ("p", "q")
    ]
    assert [run.wait(timeout=300) for run in runs] == [0, 0]
    settings = Settings(library_uri=library, storage={"cache_dir": tmp_path / "cache"})
    table = perm.grants_of(settings)
    expected = {f"{tag}-{n}" for tag in ("p", "q") for n in range(12)}
    assert set(table.created) == expected  # no grant change lost to the other process's
    logged = [e["collection"] for e in pipeline.audit_events(settings, principal=LOCAL)]
    assert sorted(logged) == sorted(expected)  # no audit record lost


class _IgnoringProxy(BaseHTTPRequestHandler):
    """A FAKE object store: forwards to the real S3 API but drops the conditional headers, as some
    S3 clones do, so every conditional write succeeds. Only for the refusal test."""

    upstream = ""

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("if-match", "if-none-match", "host")}
        request = Request(self.upstream + self.path, data=body, headers=headers, method=self.command)
        try:
            with urlopen(request, timeout=30) as reply:
                status, reply_headers, data = reply.status, reply.headers.items(), reply.read()
        except Exception as err:  # an HTTP error is passed on as it is
            status, reply_headers, data = getattr(err, "code", 502), getattr(err, "headers", {}).items(), b""
        self.send_response(status)
        for key, value in reply_headers:
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    def log_message(self, *args: object) -> None:
        pass


def test_a_store_that_ignores_conditional_writes_is_refused(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bucket = new_bucket(endpoint)
    handler = type("Proxy", (_IgnoringProxy,), {"upstream": endpoint})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        for name, value in s3_env(f"http://127.0.0.1:{proxy.server_port}").items():
            monkeypatch.setenv(name, value)
        settings = Settings(library_uri=f"s3://{bucket}/refused")
        with pytest.raises(storage.StorageError, match="ignores conditional writes"):
            storage.open_library(settings)
        env = {**os.environ, "RAG_LIBRARY_URI": settings.library_uri or ""}  # a worker refuses to start on it
        worker = subprocess.run(
            [sys.executable, "-m", "rag_core", "worker"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
        )
        assert worker.returncode == 1 and "ignores conditional writes" in worker.stderr, worker.stderr[-2000:]
        for name, value in s3_env(endpoint).items():  # the same bucket through the real API is accepted
            monkeypatch.setenv(name, value)
        assert storage.open_library(Settings(library_uri=f"s3://{bucket}/accepted")).remote
    finally:
        proxy.shutdown()


def test_a_local_library_moves_to_s3_with_one_command(library: str, endpoint: str, tmp_path: Path) -> None:
    local = Settings(data_dir=tmp_path / "local")
    pdf = make_pdf(tmp_path / "cape.pdf", "Cape Cod expected loss ratio", pages=2)
    assert pipeline.ingest([pdf], local, collection="pricing", principal=LOCAL)[0].status == "ingested"
    pipeline.grant(local, "pricing", principal=LOCAL, user=BOB.user, role="read")
    pipeline.ask("Cape Cod expected loss ratio", local, principal=BOB, conversation_id="c1")
    trail = pipeline.audit_events(local, principal=LOCAL)
    env = {**os.environ, **s3_env(endpoint), "RAG_DATA_DIR": str(local.data_dir)}
    env.pop("RAG_LIBRARY_URI", None)
    command = [sys.executable, "-m", "rag_core", "migrate", "--to", library]
    moved = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert moved.returncode == 0, moved.stderr
    assert "the copy matches" in moved.stderr

    remote = _server(library, tmp_path / "server")
    doc_id = sha256_file(pdf)
    assert [r.doc_id for r in pipeline.list_documents(remote, principal=BOB)] == [doc_id]
    assert pipeline.search("Cape Cod expected loss ratio", remote, principal=BOB).parents[0].document.doc_id == doc_id
    assert pipeline.source_path(doc_id, remote, principal=BOB).read_bytes() == pdf.read_bytes()
    moved_trail = pipeline.audit_events(remote, principal=LOCAL)
    assert moved_trail[: len(trail)] == trail  # every record moved, in order, before the ones written since
    assert conversation_history(remote, "c1", principal=BOB)  # Bob's conversation came along
    again = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 1 and "is not empty" in again.stderr  # nothing is ever overwritten
