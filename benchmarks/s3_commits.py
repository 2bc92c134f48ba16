"""Commit rates of a library on an S3 API: what the shared library's writes cost and where they conflict.

    .venv/bin/python -m benchmarks.s3_commits [--commits 40] [--writers 1,2,4]

Starts a local `moto_server` (the S3 API the tests use), then measures, for 1, 2 and 4 writer
processes at once:
- LanceDB commits: each writer appends one-row batches to one table (as progress writes of the job
  table do); commits per second in all, and how long one takes (median, max);
- grant changes: compare-and-swap rewrites of `access/grants.json` (`storage.update_json`), with
  how many attempts lost the race and were redone;
- audit records: `append_line` (one object each, created only where none is).
It then times one document's write stage (`Store.write_document`, the batched commit an ingestion
makes) on S3 and in a local directory. moto answers from memory on this machine: a real store
adds its network latency (tens of ms per request) to every figure; the rates are upper bounds and
the conflict counts are what matters for the design.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path


def _lance_writer(uri: str, table: str, commits: int, queue) -> None:
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(uri)
    t = db.open_table(table)
    times, began = [], time.time()
    for n in range(commits):
        started = time.perf_counter()
        t.add(pa.table({"id": [f"{os.getpid()}-{n}"], "value": [float(n)]}))
        times.append(time.perf_counter() - started)
    queue.put((times, began, time.time(), 0))


def _grant_writer(uri: str, commits: int, tag: str, queue) -> None:
    from rag_core import storage
    from rag_core.config import Settings
    from rag_core.storage import base

    library = storage.open_library(Settings(library_uri=uri))
    lost = 0
    original = library.replace

    def counted(key: str, data: bytes, version: str | None) -> bool:
        nonlocal lost
        ok = original(key, data, version)
        lost += not ok
        return ok

    library.replace = counted  # type: ignore[method-assign]  # count the lost races
    times, began = [], time.time()
    for n in range(commits):
        started = time.perf_counter()

        def grant(d: dict | None, n: int = n) -> dict:
            return {**(d or {}), f"{tag}-{n}": n}

        base.update_json(library, "access/grants.json", grant)
        times.append(time.perf_counter() - started)
    queue.put((times, began, time.time(), lost))


def _audit_writer(uri: str, commits: int, queue) -> None:
    from rag_core import storage
    from rag_core.config import Settings

    library = storage.open_library(Settings(library_uri=uri))
    times, began = [], time.time()
    for n in range(commits):
        started = time.perf_counter()
        library.append_line("audit/audit.jsonl", json.dumps({"n": n, "pid": os.getpid()}).encode())
        times.append(time.perf_counter() - started)
    queue.put((times, began, time.time(), 0))


def _run(target, args_of, writers: int) -> tuple[float, list[float], int]:
    """Wall seconds from the first commit to the last (imports and process starts left out), every
    commit's seconds, and the lost races."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=target, args=(*args_of(w), queue)) for w in range(writers)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    wall = max(r[2] for r in results) - min(r[1] for r in results)
    return wall, sum((r[0] for r in results), []), sum(r[3] for r in results)


def _line(what: str, writers: int, wall: float, times: list[float], extra: str = "") -> None:
    median_ms, max_ms = statistics.median(times) * 1000, max(times) * 1000
    rate = len(times) / wall
    print(
        f"{what:<16} writers {writers}  {rate:7.1f} commits/s"
        f"  one: median {median_ms:6.1f} ms  max {max_ms:7.1f} ms{extra}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=40, help="commits per writer")
    parser.add_argument("--writers", default="1,2,4")
    args = parser.parse_args()
    from tests.s3_support import moto_server, new_bucket, s3_env

    with tempfile.TemporaryDirectory() as tmp, moto_server(Path(tmp) / "moto.log") as endpoint:
        os.environ.update(s3_env(endpoint))
        for writers in [int(w) for w in args.writers.split(",")]:
            uri = f"s3://{new_bucket(endpoint)}/lib"
            import lancedb
            import pyarrow as pa

            lancedb.connect(f"{uri}/lancedb").create_table("t", pa.table({"id": ["seed"], "value": [0.0]}))
            wall, times, _ = _run(_lance_writer, lambda w: (f"{uri}/lancedb", "t", args.commits), writers)
            rows = lancedb.connect(f"{uri}/lancedb").open_table("t").count_rows()
            _line("lancedb append", writers, wall, times, f"  rows {rows}/{writers * args.commits + 1}")
            wall, times, lost = _run(_grant_writer, lambda w: (uri, args.commits, f"w{w}"), writers)
            _line("grant (CAS)", writers, wall, times, f"  races lost and redone {lost}")
            wall, times, _ = _run(_audit_writer, lambda w: (uri, args.commits), writers)
            _line("audit append", writers, wall, times)
        _document_write(endpoint, Path(tmp))


def _document_write(endpoint: str, tmp: Path) -> None:
    """One real document's write stage on S3 and in a local directory (the same folder both times)."""
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings
    from tests.bad_files import make_pdf
    from tests.s3_support import new_bucket

    pdf = make_pdf(tmp / "report.pdf", "Mack chain ladder reserve", pages=20)
    for name, settings in (
        ("local directory", Settings(data_dir=tmp / "local")),
        ("s3 (moto)", Settings(library_uri=f"s3://{new_bucket(endpoint)}/lib", storage={"cache_dir": tmp / "c"})),
    ):
        result = pipeline.ingest([pdf], settings, principal=Principal.local_operator())[0]
        print(f"write stage, 20-page document, {name:<16} {result.stage_seconds['write']:.2f} s", flush=True)


if __name__ == "__main__":
    main()
