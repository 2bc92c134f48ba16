"""Seconds per page for each ingestion stage (parse, chunk, embed, write) over the corpus.

    .venv/bin/python benchmarks/ingest.py [--pdf-dir ../shared/corpus/pdfs] [--pdfs NAME ...]
                                          [--stages parse,chunk] [--data-dir DIR]

Ingests every PDF into a fresh library (a temp dir unless --data-dir is given) and prints,
per document and overall, seconds per page per stage: median over documents and total.
Targets for the offline backends on 2 cores: parse + chunk ≤ 0.5 s/page, whole ≤ 1.5 s/page.

`--pdfs` keeps only the PDFs whose file name contains one of the given strings.
`--stages parse,chunk` runs only the parse and chunk stages (what the pipeline does in them:
parse, write document.json, chunk, write chunks.json) without embedding or writing the index;
the outputs stay in `<data dir>/<pdf stem>/` so that two code versions can be compared.
The parse stage analyses pages in `RAG_PARSING__WORKERS` processes (default: min(2, cores)).
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
sys.path.insert(0, str(REPO))

STAGES = ("parse", "chunk", "embed", "write")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf-dir", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    parser.add_argument("--pdfs", nargs="+", metavar="NAME", help="only PDFs whose file name contains one of these")
    parser.add_argument("--stages", default=",".join(STAGES),
                        help="parse,chunk,embed,write (all, through the pipeline) or parse,chunk (no index)")
    parser.add_argument("--data-dir")
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
    print(f"{len(pdfs)} PDFs, stages {','.join(stages)}, parse workers {workers}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
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
        print(f"{pdf.name[:60]:<60} {pages:>4} p  " + "  ".join(f"{s} {per_page[s]:.3f}" for s in stages)
              + f"  s/page ({status})", flush=True)
    if not rows:
        return 1
    wall = time.perf_counter() - started
    total_pages = sum(r[1] for r in rows)
    print(f"\n{len(rows)} documents, {total_pages} pages, wall {wall:.1f} s "
          f"(includes index optimisation), peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
          f"load average now {os.getloadavg()[0]:.2f}")
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
    print(f"{'parse+chunk':<14}{statistics.median(r[2]['parse'] + r[2]['chunk'] for r in rows):>15.3f}"
          f"{'':>10}{pc:>14.3f}   target ≤ 0.5")
    if stages == STAGES:
        whole = sum(sum(r[3].values()) for r in rows) / total_pages
        print(f"{'whole':<14}{statistics.median(sum(r[2].values()) for r in rows):>15.3f}{'':>10}{whole:>14.3f}"
              f"   target ≤ 1.5")
    return 0


def _ingest(pdf: Path, settings) -> tuple[int, dict[str, float], str] | str:
    from rag_core import pipeline
    from rag_core.access import Principal

    result = pipeline.ingest([pdf], settings, principal=Principal.local_operator())[0]
    if result.record is None:
        return f"{result.status}: {result.message}"
    return result.record.pages, result.stage_seconds, result.status


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
