"""`benchmarks/ingest.py --done-when`: the import figures through the upload queue, as `serve` runs it.

A `rag_core.jobs.Worker` runs its own loop (`run_forever`, polling the queue as `serve`'s worker
does) in a thread of this process, warmed up first by one untimed import (the imports, the
models and the page helpers, which a running `serve` holds). Then:

1. every selected PDF is submitted at once (`pipeline.submit_upload`, as the Library page does)
   and the worker runs them in its own order; per document it prints each stage's s/page
   (parse, chunk, embed, write, as the job ran them) and the job's wall time from submission
   to done, then the corpus totals, and the triangles report's line again on its own;
2. a 20-page text PDF (the first 20 pages of `--text-pdf`, cut with PyMuPDF: not in the library)
   is submitted to the idle worker: the seconds from the upload to the job done, then to a
   search of the document that returns one of its passages ("upload to searchable");
3. the peak resident memory of this process and of its child processes (the page helpers),
   sampled every 0.2 s with psutil, summed over the tree and per process.

Targets (issue "Imports a team can wait for", two idle cores): corpus ≤ 0.5 s/page through the
queue, triangles report ≤ 2 s/page, 20-page text PDF searchable ≤ 20 s after its upload.
The load average is printed with each figure: they mean something only on an idle machine.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

TRIANGLES = "triangles_cadences"
TEXT_PAGES = 20


class PeakMemory:
    """Peak RSS of this process's tree (sum) and of its largest process, sampled in a thread."""

    def __init__(self, every_s: float = 0.2) -> None:
        import psutil

        self._proc = psutil.Process()
        self.tree_mb = self.process_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._thread.start()

    def _run(self, every_s: float) -> None:
        import psutil

        while not self._stop.wait(every_s):
            sizes = []
            for proc in [self._proc, *self._proc.children(recursive=True)]:
                try:
                    sizes.append(proc.memory_info().rss / 2**20)
                except psutil.Error:
                    continue
            self.tree_mb = max(self.tree_mb, sum(sizes))
            self.process_mb = max(self.process_mb, max(sizes, default=0.0))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _machine_cpu():
    import psutil

    return psutil.cpu_times()


def _busy_cores(before, after, wall: float) -> float:
    """Cores busy on average between two readings of the machine's CPU times (idle and I/O wait are
    not busy): on an idle machine, how much of the two cores the queue used."""
    idle = (after.idle - before.idle) + (getattr(after, "iowait", 0.0) - getattr(before, "iowait", 0.0))
    total = sum(after) - sum(before)
    return (total - idle) / total * (os.cpu_count() or 1) if total > 0 else 0.0


def run(pdfs: list[Path], data_dir: Path, text_pdf: Path) -> int:
    import warnings

    import pymupdf

    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings
    from rag_core.jobs import LocalStageRunner, Worker

    warnings.filterwarnings("ignore", category=UserWarning, module=r"docling_core\.transforms\.chunker")
    local = Principal.local_operator()
    settings = Settings(data_dir=data_dir / "queue")
    stages: dict[str, dict[str, float]] = {}  # job id -> the stages' seconds, as the job ran them

    class RecordingRunner(LocalStageRunner):
        def run(self, job, *args, **kwargs):
            result = super().run(job, *args, **kwargs)
            stages[job.id] = dict(result.stage_seconds)
            return result

    memory = PeakMemory()
    print(f"{len(pdfs)} PDFs through the upload queue, {os.cpu_count()} cores, load {_load()}", flush=True)
    # untimed warm-up: what a running serve already holds (imports, models, the page helpers)
    pipeline.ingest([pdfs[0]], Settings(data_dir=data_dir / "warm-up"), principal=local)
    worker = Worker(settings, runner=RecordingRunner())
    thread = threading.Thread(target=worker.run_forever, name="worker", daemon=True)
    thread.start()
    try:
        started, started_at, cpu_before = time.perf_counter(), time.time(), _machine_cpu()
        submitted = [
            (pdf, pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=local)) for pdf in pdfs
        ]
        done = {job.id: _wait(job.id, settings, local) for _, job in submitted}
        wall = time.perf_counter() - started
        busy = _busy_cores(cpu_before, _machine_cpu(), wall)
        rows = []
        for pdf, job in submitted:
            final, _ = done[job.id]
            seconds = stages.get(job.id)
            if final.state != "done" or seconds is None:
                print(f"{pdf.name}: {final.state} {final.message}")
                continue
            pages = pymupdf.open(pdf).page_count
            rows.append((pdf.name, pages, seconds, final.finished_at - started_at))
        if not rows:
            return 1
        names = ("parse", "chunk", "embed", "write")
        for name, pages, seconds, at in rows:
            print(
                f"{name[:60]:<60} {pages:>4} p  "
                + "  ".join(f"{s} {seconds.get(s, 0.0) / pages:.3f}" for s in names)
                + f"  s/page, done {at:6.1f} s after the uploads"
            )
        total_pages = sum(r[1] for r in rows)
        print(f"\n{len(rows)} documents, {total_pages} pages through the queue: wall {wall:.1f} s = ", end="")
        print(f"{wall / total_pages:.3f} s/page (target ≤ 0.5), load {_load()}")
        print(f"  the machine's cores busy on average over that wall: {busy:.2f} of {os.cpu_count()}")
        for stage in names:
            total = sum(r[2].get(stage, 0.0) for r in rows)
            print(f"  {stage:<6} {total:7.1f} s  {total / total_pages:.3f} s/page")
        for name, pages, seconds, _ in rows:
            if TRIANGLES in name:
                whole = sum(seconds.get(s, 0.0) for s in names)
                print(
                    f"triangles report: {whole / pages:.2f} s/page through the queue (target ≤ 2; "
                    f"parse {seconds.get('parse', 0.0) / pages:.2f}), load {_load()}"
                )
        _text_upload(text_pdf, data_dir, settings, local)
    finally:
        worker.stopping.set()
        thread.join()
        memory.stop()
    print(
        f"peak resident memory: {memory.tree_mb:.0f} MB for this process and its helpers together, "
        f"{memory.process_mb:.0f} MB for the largest process"
    )
    _serve_workers(pdfs, data_dir, text_pdf)
    return 0


def _serve_workers(pdfs: list[Path], data_dir: Path, text_pdf: Path) -> None:
    """The corpus again through the worker processes `serve` starts on this machine (`worker_commands`:
    one per two cores, plus the small-files lane), each warmed up first by one untimed job of its own:
    the wall from the uploads to the last job done, and the cores busy meanwhile."""
    import signal
    import subprocess
    import sys

    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.cli.serve import worker_commands
    from rag_core.config import Settings

    local = Principal.local_operator()
    root = data_dir / "serve-workers"
    settings = Settings(data_dir=root)
    commands = worker_commands(settings)
    env = {**os.environ, "RAG_DATA_DIR": str(root)}
    memory = PeakMemory()
    logs = [open(root.parent / f"serve-worker-{i}.log", "w") for i in range(len(commands))]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "rag_core", *cmd],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        for cmd, log in zip(commands, logs, strict=True)
    ]
    try:
        # warm-up, untimed: a large cut for the main worker (the small lane may not take it), then a small
        # one, which the small lane takes while the main worker is busy; each starts its page helpers
        warm = []
        for first, last in (
            (0, settings.jobs.small_job_pages),
            (settings.jobs.small_job_pages + 1, 2 * settings.jobs.small_job_pages - 8),
        ):
            cut = _cut(text_pdf, root.parent / f"warm-{first}-{last}.pdf", first, last)
            warm.append(pipeline.submit_upload(cut.read_bytes(), cut.name, settings, principal=local))
            while pipeline.get_job(warm[-1].id, settings, principal=local).state == "queued":
                time.sleep(0.2)
        for job in warm:
            _wait(job.id, settings, local)
        started, cpu_before = time.perf_counter(), _machine_cpu()
        jobs = [pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=local) for pdf in pdfs]
        finished = [_wait(job.id, settings, local)[0] for job in jobs]
        wall = time.perf_counter() - started
        busy = _busy_cores(cpu_before, _machine_cpu(), wall)
    finally:
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in procs:
            proc.wait()
        for log in logs:
            log.close()
        memory.stop()
    import pymupdf

    pages = sum(pymupdf.open(pdf).page_count for pdf, job in zip(pdfs, finished, strict=True) if job.state == "done")
    failed = [job.file_name for job in finished if job.state != "done"]
    print(
        f"\nthe same corpus through the {len(procs)} worker processes serve starts here "
        f"({', '.join(' '.join(c) for c in commands)}): {pages} pages, wall {wall:.1f} s = {wall / pages:.3f} s/page "
        f"(target ≤ 0.5), cores busy {busy:.2f} of {os.cpu_count()}, load {_load()}"
        + (f"; not done: {failed}" if failed else "")
    )
    print(
        f"peak resident memory: {memory.tree_mb:.0f} MB for the worker processes and their helpers together, "
        f"{memory.process_mb:.0f} MB for the largest process"
    )


def _cut(source: Path, out: Path, first: int, last: int) -> Path:
    """Pages `first`..`last` (inclusive, 0-based) of `source` as a new PDF."""
    import pymupdf

    with pymupdf.open(source) as src, pymupdf.open() as pdf:
        pdf.insert_pdf(src, from_page=first, to_page=min(last, src.page_count - 1))
        pdf.save(out)
    return out


def _text_upload(source: Path, data_dir: Path, settings, principal) -> None:
    """Seconds from the upload of a 20-page text PDF to its job done and to a search that finds it."""
    import pymupdf

    from rag_core import pipeline

    pdf = data_dir / f"{source.stem}_first{TEXT_PAGES}.pdf"
    with pymupdf.open(source) as src, pymupdf.open() as out:
        out.insert_pdf(src, from_page=0, to_page=TEXT_PAGES - 1)
        out.save(pdf)
        words = " ".join(src[min(4, src.page_count - 1)].get_text().split()[20:32])
    started = time.perf_counter()
    job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=principal)
    final, done_at = _wait(job.id, settings, principal, every_s=0.1)
    found = pipeline.search(words, settings, doc_ids=[final.doc_id], principal=principal) if final.doc_id else None
    searchable = time.perf_counter() - started
    hits = len(found.parents) if found is not None else 0
    print(
        f"{TEXT_PAGES}-page text PDF ({source.name}): job done {done_at - started:.1f} s after its upload, "
        f"searched and found ({hits} passages) at {searchable:.1f} s (target ≤ 20), load {_load()}"
    )


def _wait(job_id: str, settings, principal, every_s: float = 0.5):
    """The job once finished, and when this poll saw it (perf_counter)."""
    from rag_core import pipeline

    while True:
        job = pipeline.get_job(job_id, settings, principal=principal)
        if job.state in ("done", "failed", "cancelled"):
            return job, time.perf_counter()
        time.sleep(every_s)


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"
