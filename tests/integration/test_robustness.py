"""Interrupted ingestions and concurrent users on one data dir (real processes, real LanceDB)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.library import DocumentFolder, sha256_file
from rag_core.services.connection import open_store
from tests.bad_files import make_pdf

LOCAL = Principal.local_operator()  # the local operator (administrator): these tests are not about access
REPO = Path(__file__).resolve().parents[2]
WORKER = """
import sys
from pathlib import Path
from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings

def show(event):
    print(f"EVENT {event.stage} {event.done}/{event.total} {event.message}", flush=True)

result = pipeline.ingest([Path(sys.argv[1])], Settings(), progress=show, principal=Principal.local_operator())[0]
print("RESULT", result.status, result.message, flush=True)
"""


def _run_and_kill(pdf: Path, data_dir: Path, stage: str) -> list[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RAG_DATA_DIR": str(data_dir)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(pdf)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    seen = []
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line.strip())
        if line.startswith(f"EVENT {stage} "):
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=120)
    return seen


@pytest.mark.parametrize("stage", ["parse", "chunk", "embed", "write"])
def test_killed_ingestion_leaves_a_consistent_library(tmp_path: Path, stage: str) -> None:
    data = tmp_path / "lib"
    settings = Settings(data_dir=data)
    keep = make_pdf(tmp_path / "kept.pdf", "Bornhuetter")
    assert pipeline.ingest([keep], settings, principal=LOCAL)[0].status == "ingested"
    victim = make_pdf(tmp_path / "victim.pdf", "Mack chain ladder")
    seen = _run_and_kill(victim, data, stage)
    assert any(line.startswith(f"EVENT {stage}") for line in seen), seen
    assert not any(line.startswith("RESULT") for line in seen)
    victim_id = sha256_file(victim)

    # Consistent: the old document is intact, the victim is either fully there or not at all.
    ids = [r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)]
    assert sha256_file(keep) in ids
    store = open_store(settings)
    if victim_id not in ids:
        hits = pipeline.search("Mack chain ladder development factors", settings, principal=LOCAL).parents
        assert all(h.document.doc_id != victim_id for h in hits)
    assert pipeline.search("Bornhuetter reserves", settings, principal=LOCAL).parents

    # Ingesting again completes and reuses the stages that had finished.
    events = []
    result = pipeline.ingest([victim], settings, progress=events.append, principal=LOCAL)[0]
    assert result.status in ("ingested", "already_present"), result.message
    reused = {e.stage for e in events if e.message == "reused"}
    finished_before = {
        "parse": set(),
        "chunk": {"parse"},
        "embed": {"parse", "chunk"},
        "write": {"parse", "chunk", "embed"},
    }[stage]
    assert finished_before <= reused, (stage, reused)
    assert store.purge_orphans() == 0
    assert {r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)} == {sha256_file(keep), victim_id}
    folder = DocumentFolder(settings.documents_dir, victim_id)
    assert set(folder.manifest()["stages"]) == {"parse", "chunk", "embed", "write"}
    assert not list(folder.root.glob(".*.tmp*"))


def _ingest_in_process(pdf: str, data_dir: str, out: mp.Queue) -> None:
    os.environ["RAG_DATA_DIR"] = data_dir
    result = pipeline.ingest([Path(pdf)], Settings(data_dir=Path(data_dir)), principal=LOCAL)[0]
    out.put(("ingest", result.status, result.message))


def _ask_in_process(data_dir: str, rounds: int, out: mp.Queue) -> None:
    settings = Settings(data_dir=Path(data_dir))
    for _ in range(rounds):
        answer = pipeline.ask("How are development factors computed?", settings, principal=LOCAL)
        out.put(("ask", answer.mode, len(answer.sources)))


def test_parallel_ingestions_and_questions(tmp_path: Path) -> None:
    data = tmp_path / "lib"
    settings = Settings(data_dir=data)
    first = make_pdf(tmp_path / "a.pdf", "Bornhuetter")
    assert pipeline.ingest([first], settings, principal=LOCAL)[0].status == "ingested"
    others = [make_pdf(tmp_path / "b.pdf", "Mack"), make_pdf(tmp_path / "c.pdf", "bootstrap")]
    ctx = mp.get_context("spawn")  # never fork once lancedb is loaded
    out: mp.Queue = ctx.Queue()
    procs = [ctx.Process(target=_ingest_in_process, args=(str(p), str(data), out)) for p in others]
    procs += [ctx.Process(target=_ask_in_process, args=(str(data), 2, out)) for _ in range(2)]
    for p in procs:
        p.start()
    errors: list[BaseException] = []
    states: list[set[str]] = []

    def ask_loop() -> None:
        try:
            for _ in range(2):
                answer = pipeline.ask("Which development factors are used?", settings, principal=LOCAL)
                states.append({s.doc_id for s in answer.sources + answer.uncited})
                time.sleep(0.2)
        except BaseException as err:  # collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=ask_loop) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    for p in procs:
        p.join(timeout=600)
        assert p.exitcode == 0
    messages = [out.get(timeout=5) for _ in range(2 + 2 * 2)]
    assert not errors, errors
    assert sorted(m[1] for m in messages if m[0] == "ingest") == ["ingested", "ingested"], messages
    assert all(m[1] in ("extractive", "refused") for m in messages if m[0] == "ask")
    records = pipeline.list_documents(settings, principal=LOCAL)
    assert sorted(r.file_name for r in records) == ["a.pdf", "b.pdf", "c.pdf"]  # none lost or duplicated
    every = {r.doc_id for r in records}
    assert all(state <= every for state in states)
    store = open_store(settings)
    assert store.count_children() == sum(r.children for r in records)
