"""Wall time and peak memory of ingesting one long generated PDF (default 2,000 pages).

    nice -n 10 .venv/bin/python -m benchmarks.memory_2000_pages [--pages 2000] [--keep DIR]

Generates a PDF of small pages (A6) with a heading every ten pages and a short paragraph on
each, then ingests it with `pipeline.ingest` into a temporary data dir, in a child process
(spawned with `subprocess`, so the figure is the ingestion's own, not this script's). While
the child runs, its resident memory (RSS) is sampled every 0.2 s with psutil and logged at
each tenth of each stage, so a peak that grows with the pages shows as a rising column.
At the end: wall time, seconds per stage, the sampled peak RSS and the kernel's peak
(`getrusage(RUSAGE_CHILDREN).ru_maxrss`). Timings depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pymupdf

REPO = Path(__file__).resolve().parents[1]
WORKER = """
import json, sys
from pathlib import Path
from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings

def show(event):
    print("EVENT", event.stage, event.done, event.total, flush=True)

result = pipeline.ingest([Path(sys.argv[1])], Settings(data_dir=Path(sys.argv[2])), progress=show,
                         principal=Principal.local_operator())[0]
print("RESULT", json.dumps({"status": result.status, "message": result.message,
                            "seconds": result.stage_seconds,
                            "children": result.record.children if result.record else 0,
                            "warnings": len(result.record.warnings) if result.record else 0}), flush=True)
"""


def make_long_pdf(path: Path, pages: int) -> Path:
    """Small pages with a little text each: a heading every ten pages, two sentences per page."""
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page(width=298, height=420)  # A6
        y = 40
        if n % 10 == 1:
            page.insert_text((24, y), f"{n // 10 + 1} Reserving chapter {n // 10 + 1}", fontsize=13)
            y += 26
        page.insert_textbox(
            pymupdf.Rect(24, y, 274, 380),
            f"Page {n}: the chain ladder factor for development year {n % 40 + 1} is "
            f"{1 + (n % 17) / 100:.2f}. Paid claims of accident year {1990 + n % 30} are "
            f"reviewed against the Bornhuetter-Ferguson estimate.",
            fontsize=9,
        )
        page.insert_text((140, 405), str(n), fontsize=8)
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def rss_mb(proc: psutil.Process) -> float:
    try:
        return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)]) / 2**20
    except psutil.NoSuchProcess:
        return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--keep", help="use this data dir (kept) instead of a temporary one")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-mem-"))
    data_dir = Path(args.keep) if args.keep else work / "data"
    t0 = time.perf_counter()
    pdf = make_long_pdf(work / f"long-{args.pages}.pdf", args.pages)
    print(
        f"generated {args.pages} pages, {pdf.stat().st_size / 2**20:.1f} MB, in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(pdf), str(data_dir)], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    handle = psutil.Process(child.pid)
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.2):
            peak[0] = max(peak[0], rss_mb(handle))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    result: dict = {}
    marks: set[tuple[str, int]] = set()
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("EVENT "):
            _, stage, done, total = line.split()
            quarter = int(done) * 10 // max(int(total), 1)  # a tenth of the stage
            if (stage, quarter) not in marks:
                marks.add((stage, quarter))
                now = rss_mb(handle)
                peak[0] = max(peak[0], now)
                print(
                    f"  {time.perf_counter() - started:7.1f} s  {stage:<6} {done:>5}/{total:<5} RSS {now:7.0f} MB",
                    flush=True,
                )
        elif line.startswith("RESULT "):
            result = json.loads(line[7:])
    child.wait()
    stop.set()
    sampler.join()
    wall = time.perf_counter() - started
    kernel_peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KB on Linux
    print(f"\nstatus: {result.get('status')} ({result.get('message')})")
    print(f"pages: {args.pages}, children: {result.get('children')}, warnings: {result.get('warnings')}")
    print("seconds per stage: " + ", ".join(f"{k} {v:.1f}" for k, v in result.get("seconds", {}).items()))
    print(f"wall time: {wall:.1f} s ({wall / args.pages:.3f} s/page)")
    print(f"peak RSS (sampled every 0.2 s): {peak[0]:.0f} MB")
    print(f"peak RSS (getrusage RUSAGE_CHILDREN, ru_maxrss): {kernel_peak_mb:.0f} MB")
    return 0 if result.get("status") == "ingested" else 1


if __name__ == "__main__":
    sys.exit(main())
