"""Seconds per page for each ingestion stage (parse, chunk, embed, write) over the corpus.

    .venv/bin/python -m benchmarks.ingest [--pdf-dir ../shared/corpus/pdfs] [--pdfs NAME ...]
                                          [--stages parse,chunk] [--data-dir DIR]

Ingests every PDF into a fresh library (a temp dir unless --data-dir is given) and prints,
per document and overall, seconds per page per stage: median over documents and total.
Targets for the offline backends on 2 cores: parse + chunk ≤ 0.5 s/page, whole ≤ 1.5 s/page.

`--pdfs` keeps only the PDFs whose file name contains one of the given strings.
`--stages parse,chunk` runs only the parse and chunk stages (what the pipeline does in them:
parse, write document.json, chunk, write chunks.json) without embedding or writing the index;
the outputs stay in `<data dir>/<pdf stem>/` so that two code versions can be compared.
The parse stage analyses pages in `RAG_PARSING__WORKERS` processes (default: min(2, cores)).

`--queue` measures the upload queue against inline ingestion on the same PDFs instead: each
PDF is ingested inline into one fresh library and submitted to the queue of another, run by a
`rag_core.jobs.Worker` in this process (claim, lease renewal, progress writes, outcome, the same
warm imports as inline, after an untimed warm-up), the order alternating PDF by PDF so that
the machine's load drifts alike for both. It prints both wall times, the overhead in per
cent (target ≤ 5 %), the time the queue spent outside the stages (robust to a loaded machine)
and the job table's versions before and after compaction.

`--done-when` gives the figures the imports issue asks for, through the upload queue as `serve`
runs it (`benchmarks/ingest_queue.py`): each stage's s/page per document and in total, the
corpus's s/page from the uploads to the last job done, the triangles report's s/page, a 20-page
text PDF's seconds from upload to searchable (`--text-pdf`, its first 20 pages), peak memory;
then the corpus again through the worker processes `serve` starts on this machine (its wall,
cores busy and peak memory), each worker warmed up by one untimed job first.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
STAGES = ("parse", "chunk", "embed", "write")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf-dir", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    parser.add_argument("--pdfs", nargs="+", metavar="NAME", help="only PDFs whose file name contains one of these")
    parser.add_argument(
        "--stages",
        default=",".join(STAGES),
        help="parse,chunk,embed,write (all, through the pipeline) or parse,chunk (no index)",
    )
    parser.add_argument("--data-dir")
    parser.add_argument("--queue", action="store_true", help="queue vs inline on the same PDFs")
    parser.add_argument("--done-when", action="store_true", help="the issue's figures through the upload queue")
    parser.add_argument(
        "--text-pdf",
        default="en_EIOPA_guidelines_valuation_technical_provisions.pdf",
        help="--done-when: the text PDF (in --pdf-dir) whose first 20 pages are uploaded alone",
    )
    args = parser.parse_args()
    stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    if stages not in (STAGES, STAGES[:2]):
        parser.error("--stages must be parse,chunk,embed,write or parse,chunk")
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="bench-ingest-"))
    pdfs = sorted(Path(args.pdf_dir).glob("*.pdf"))
    if args.pdfs:
        pdfs = [p for p in pdfs if any(name in p.name for name in args.pdfs)]
    if not pdfs:
        parser.error("no PDF selected")
    if args.queue:
        return _queue_vs_inline(pdfs, data_dir)
    if args.done_when:
        from benchmarks.ingest_queue import run as done_when

        return done_when(pdfs, data_dir, Path(args.pdf_dir) / args.text_pdf)

    # imported after parsing the arguments: --help answers at once
    from rag_core.config import Settings

    settings = Settings(data_dir=data_dir)
    try:
        from rag_core.parsing.page_workers import default_workers
    except ImportError:  # a version without parse workers (to compare with)

        def default_workers() -> int:
            return 1

    workers = getattr(settings.parsing, "workers", None) or default_workers()
    # docling-core warns for each child whose heading path alone is over budget: noise here
    warnings.filterwarnings("ignore", category=UserWarning, module=r"docling_core\.transforms\.chunker")
    run = _ingest if stages == STAGES else _parse_and_chunk
    print(
        f"{len(pdfs)} PDFs, stages {','.join(stages)}, parse workers {workers}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    rows = []
    started = time.perf_counter()
    for pdf in pdfs:
        outcome = run(pdf, settings)
        if isinstance(outcome, str):
            print(f"{pdf.name}: {outcome}")
            continue
        pages, seconds, status = outcome
        per_page = {s: seconds.get(s, 0.0) / pages for s in stages}
        rows.append((pdf.name, pages, per_page, seconds))
        print(
            f"{pdf.name[:60]:<60} {pages:>4} p  "
            + "  ".join(f"{s} {per_page[s]:.3f}" for s in stages)
            + f"  s/page ({status})",
            flush=True,
        )
    if not rows:
        return 1
    wall = time.perf_counter() - started
    total_pages = sum(r[1] for r in rows)
    print(
        f"\n{len(rows)} documents, {total_pages} pages, wall {wall:.1f} s "
        f"(includes index optimisation), peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
        f"load average now {os.getloadavg()[0]:.2f}"
    )
    print(f"{'stage':<14}{'median s/page':>15}{'total s':>10}{'total s/page':>14}")
    for stage in stages:
        median = statistics.median(r[2][stage] for r in rows)
        total = sum(r[3].get(stage, 0.0) for r in rows)
        print(f"{stage:<14}{median:>15.3f}{total:>10.1f}{total / total_pages:>14.3f}")
    for stage in (f"{s}_cpu" for s in stages):
        if all(stage in r[3] for r in rows):  # CPU seconds, helper processes included (a loaded machine
            total = sum(r[3][stage] for r in rows)  # inflates wall time, not these)
            print(f"{stage:<14}{'':>15}{total:>10.1f}{total / total_pages:>14.3f}")
    pc = sum(r[3].get("parse", 0) + r[3].get("chunk", 0) for r in rows) / total_pages
    print(
        f"{'parse+chunk':<14}{statistics.median(r[2]['parse'] + r[2]['chunk'] for r in rows):>15.3f}"
        f"{'':>10}{pc:>14.3f}   target ≤ 0.5"
    )
    if stages == STAGES:
        whole = sum(sum(r[3].values()) for r in rows) / total_pages
        print(
            f"{'whole':<14}{statistics.median(sum(r[2].values()) for r in rows):>15.3f}{'':>10}{whole:>14.3f}"
            f"   target ≤ 1.5"
        )
    return 0


def _ingest(pdf: Path, settings) -> tuple[int, dict[str, float], str] | str:
    from rag_core import pipeline
    from rag_core.access import Principal

    result = pipeline.ingest([pdf], settings, principal=Principal.local_operator())[0]
    if result.record is None:
        return f"{result.status}: {result.message}"
    return result.record.pages, result.stage_seconds, result.status


def _queue_vs_inline(pdfs: list[Path], data_dir: Path) -> int:
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings
    from rag_core.jobs import Worker
    from rag_core.services.connection import open_store

    warnings.filterwarnings("ignore", category=UserWarning, module=r"docling_core\.transforms\.chunker")
    local = Principal.local_operator()
    inline_settings, queue_settings = Settings(data_dir=data_dir / "inline"), Settings(data_dir=data_dir / "queue")
    from rag_core.jobs import LocalStageRunner

    class TimedRunner(LocalStageRunner):
        """The stages, timed: what the queue adds is the rest of the job's wall time."""

        seconds = 0.0

        def run(self, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return super().run(*args, **kwargs)
            finally:
                TimedRunner.seconds += time.perf_counter() - t0

    worker = Worker(queue_settings, runner=TimedRunner())
    print(f"{len(pdfs)} PDFs, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    # warm-up, not timed: the chunker's and the embedder's imports and model loads, paid once per process
    pipeline.ingest([pdfs[0]], Settings(data_dir=data_dir / "warm-up"), principal=local)
    inline_s = queue_s = 0.0
    pages = 0

    def inline(pdf: Path):
        t0 = time.perf_counter()
        (result,) = pipeline.ingest([pdf], inline_settings, principal=local)
        return result, time.perf_counter() - t0

    def queued(pdf: Path):
        t0 = time.perf_counter()
        job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, queue_settings, principal=local)
        while worker.run_once():
            pass
        return pipeline.get_job(job.id, queue_settings, principal=local), time.perf_counter() - t0

    for n, pdf in enumerate(pdfs):
        if n % 2 == 0:  # alternate which goes first, so that neither always runs on a cooler machine
            (result, inline_one), (done, queue_one) = inline(pdf), queued(pdf)
        else:
            (done, queue_one), (result, inline_one) = queued(pdf), inline(pdf)
        pages += result.record.pages if result.record else 0
        inline_s, queue_s = inline_s + inline_one, queue_s + queue_one
        print(
            f"{pdf.name[:60]:<60} inline {inline_one:7.1f} s  queue {queue_one:7.1f} s  "
            f"({result.status} / {done.state})",
            flush=True,
        )
    table = open_store(queue_settings).job_table()
    before = table.versions()
    left = table.compact(keep_s=0)
    print(
        f"\n{len(pdfs)} documents, {pages} pages: inline {inline_s:.1f} s, queue {queue_s:.1f} s, "
        f"overhead {100 * (queue_s - inline_s) / inline_s:+.1f} % (target ≤ 5 %), "
        f"load average now {os.getloadavg()[0]:.2f}"
    )
    stages_s = TimedRunner.seconds
    print(
        f"queue bookkeeping (submit, claim, lease, progress writes, outcome, compaction): "
        f"{queue_s - stages_s:.1f} s of {queue_s:.1f} s = {100 * (queue_s - stages_s) / queue_s:.1f} % of the "
        "queue's wall time (the same stages ran in the remaining time)"
    )
    print(
        f"job table versions: {before['jobs']} before compaction, {left['jobs']} after "
        f"(workers table {before['workers']} -> {left['workers']}); the worker compacts every "
        f"{queue_settings.jobs.compact_every_s:g} s while it runs"
    )
    return 0


def _cpu_s() -> float:
    """CPU seconds of this process and of its live children (the parse helpers), when psutil is there."""
    total = time.process_time()
    try:
        import psutil
    except ImportError:
        return total
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _parse_and_chunk(pdf: Path, settings) -> tuple[int, dict[str, float], str] | str:
    from rag_core import chunking, parsing
    from rag_core.errors import RagError
    from rag_core.library import sha256_file
    from rag_core.parsing.files import save_document

    folder = settings.data_dir / pdf.stem
    folder.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    t0, c0 = time.perf_counter(), _cpu_s()
    try:
        parsed = parsing.parse(pdf, settings, folder / "artifacts")
    except RagError as err:
        return f"refused: {err}"
    save_document(parsed.document, folder / "document.json")
    seconds["parse"] = time.perf_counter() - t0
    t0, c1 = time.perf_counter(), _cpu_s()
    chunked = chunking.build_chunks(parsed.document, sha256_file(pdf), settings)
    (folder / "chunks.json").write_bytes(chunked.model_dump_json().encode())
    seconds["chunk"] = time.perf_counter() - t0
    seconds["parse_cpu"], seconds["chunk_cpu"] = c1 - c0, _cpu_s() - c1
    return parsed.pages, seconds, "parsed and chunked"


if __name__ == "__main__":
    sys.exit(main())
