"""Wall time of upload jobs with the local executor and with the Ray executor, on the same PDFs and cores.

    .venv/bin/python -m benchmarks.ingest_ray [--pdf-dir ../shared/corpus/pdfs] [--pdfs NAME ...] [--limit N]

Runs itself again inside a network namespace that only has loopback (root and `unshare` needed),
starts a Ray cluster of two nodes with one CPU each on 127.0.0.1 (this machine's two cores, so
the comparison is like for like), and runs each PDF as an upload job through a
`rag_core.jobs.Worker` twice: into one library with the local executor (its page helpers,
`RAG_PARSING__WORKERS` default), into another with the Ray executor, alternating which goes first
PDF by PDF. An 8-page generated PDF goes through both first, untimed (model loading). Prints per
PDF and in total the wall seconds of each, Ray's overhead in per cent and pages per second per core.

`--pdfs` keeps the PDFs whose file name contains one of the strings; `--limit N` keeps the N
smallest files of those (default: the whole corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
CORES = 2  # one CPU per Ray node, two nodes; the local run uses the same machine


def _job(pdf: Path, data_dir: Path, address: str | None) -> tuple[float, int, str, dict[str, float]]:
    """(wall seconds, pages, state, seconds per stage) of one upload job run by a worker of this process."""
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings
    from rag_core.jobs import Worker
    from rag_core.storage import document_folder

    settings = Settings(data_dir=data_dir, ingest={"executor": "ray", "ray_address": address} if address else {})
    job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=Principal.local_operator())
    worker = Worker(settings)
    started = time.perf_counter()
    while worker.run_once():
        pass
    seconds = time.perf_counter() - started
    done = worker.table.get(job.id)
    assert done is not None, f"job {job.id} left the table"
    pages = next((r.pages for r in worker.store.documents() if r.doc_id == done.doc_id), 0)
    stages = document_folder(settings, done.doc_id).manifest().get("stages", {}) if done.doc_id else {}
    return seconds, pages, done.state, {k: v.get("seconds", 0.0) for k, v in stages.items()}


def _measure(pdfs: list[Path], work: Path, address: str) -> list[dict]:
    from tests.bad_files import make_pdf

    warm = make_pdf(work / "warm-up.pdf", "warm up", pages=8)
    for name, addr in (("local", None), ("ray", address)):
        _job(warm, work / f"warm-{name}", addr)
    rows = []
    for k, pdf in enumerate(pdfs):
        row: dict = {"pdf": pdf.name}
        order = [("local", None), ("ray", address)]
        for name, addr in order if k % 2 == 0 else order[::-1]:
            seconds, pages, state, stages = _job(pdf, work / name, addr)
            row.update({name: seconds, f"{name}_state": state, f"{name}_stages": stages, "pages": pages})
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def _inside(pdfs: list[Path]) -> None:
    from tests.ray_support.cluster import Cluster

    work = Path(tempfile.mkdtemp(prefix="ingest-ray-"))
    cluster = Cluster(6381, Path(tempfile.mkdtemp(prefix="ray", dir="/tmp")))
    try:
        rows = _measure(pdfs, work, cluster.address)
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(rows))


def _report(rows: list[dict]) -> None:
    print(f"{'pdf':60} {'pages':>5} {'local s':>8} {'ray s':>8} {'overhead':>8}")
    for r in rows:
        overhead = 100 * (r["ray"] / r["local"] - 1)
        print(f"{r['pdf'][:60]:60} {r['pages']:5d} {r['local']:8.1f} {r['ray']:8.1f} {overhead:7.1f}%")
    pages = sum(r["pages"] for r in rows)
    local, ray = sum(r["local"] for r in rows), sum(r["ray"] for r in rows)
    states = {r["local_state"] for r in rows} | {r["ray_state"] for r in rows}
    print(f"{len(rows)} PDFs, {pages} pages, job states {sorted(states)}")
    print(f"local executor: {local:.1f} s wall, {pages / local / CORES:.3f} pages/s per core")
    print(f"ray executor (2 nodes x 1 CPU): {ray:.1f} s wall, {pages / ray / CORES:.3f} pages/s per core")
    print(f"Ray's overhead: {100 * (ray / local - 1):+.1f} %")
    for stage in ("parse", "chunk", "embed", "write"):
        here, there = (sum(r[f"{name}_stages"].get(stage, 0.0) for r in rows) for name in ("local", "ray"))
        print(
            f"  {stage:6} local {here:7.1f} s   ray {there:7.1f} s   {100 * (there / here - 1) if here else 0:+6.1f} %"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pdf-dir",
        type=Path,
        default=Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared")) / "corpus" / "pdfs",
    )
    parser.add_argument("--pdfs", nargs="*", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--inside", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside is not None:
        _inside([Path(p) for p in args.inside])
        return 0
    pdfs = sorted(args.pdf_dir.glob("*.pdf"))
    if args.pdfs:
        pdfs = [p for p in pdfs if any(s in p.name for s in args.pdfs)]
    if args.limit:
        pdfs = sorted(pdfs, key=lambda p: p.stat().st_size)[: args.limit]
    from tests.ray_support.cluster import in_loopback_namespace, namespace_problem

    problem = namespace_problem()
    if problem:
        print(f"cannot run: {problem}", file=sys.stderr)
        return 1
    done = in_loopback_namespace("benchmarks.ingest_ray", "--inside", *map(str, pdfs), timeout_s=3600)
    sys.stderr.write(done.stderr[-4000:] if done.returncode else "")
    if done.returncode or not done.stdout.strip():
        print(f"the run inside the namespace failed ({done.returncode})", file=sys.stderr)
        return 1
    _report(json.loads(done.stdout.strip().splitlines()[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
