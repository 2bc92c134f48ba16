"""Seconds per page for each ingestion stage (parse, chunk, embed, write) over the corpus.

    .venv/bin/python benchmarks/ingest.py [--pdf-dir ../shared/corpus/pdfs] [--data-dir DIR]

Ingests every PDF into a fresh library (a temp dir unless --data-dir is given) and prints,
per document and overall, seconds per page per stage: median over documents and total.
Targets for the offline backends on 2 cores: parse + chunk ≤ 0.5 s/page, whole ≤ 1.5 s/page.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rag_core import pipeline  # noqa: E402
from rag_core.config import Settings  # noqa: E402

STAGES = ("parse", "chunk", "embed", "write")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pdf-dir", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="bench-ingest-"))
    settings = Settings(data_dir=data_dir)
    pdfs = sorted(Path(args.pdf_dir).glob("*.pdf"))
    rows = []
    started = time.perf_counter()
    for pdf in pdfs:
        result = pipeline.ingest([pdf], settings)[0]
        if result.record is None:
            print(f"{pdf.name}: {result.status}: {result.message}")
            continue
        pages = result.record.pages
        per_page = {s: result.stage_seconds.get(s, 0.0) / pages for s in STAGES}
        rows.append((pdf.name, pages, per_page, result.stage_seconds))
        print(f"{pdf.name[:60]:<60} {pages:>4} p  " + "  ".join(f"{s} {per_page[s]:.3f}" for s in STAGES)
              + f"  s/page ({result.status})", flush=True)
    wall = time.perf_counter() - started
    total_pages = sum(r[1] for r in rows)
    print(f"\n{len(rows)} documents, {total_pages} pages, wall {wall:.1f} s "
          f"(includes index optimisation), peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print(f"{'stage':<14}{'median s/page':>15}{'total s':>10}{'total s/page':>14}")
    for stage in STAGES:
        median = statistics.median(r[2][stage] for r in rows)
        total = sum(r[3].get(stage, 0.0) for r in rows)
        print(f"{stage:<14}{median:>15.3f}{total:>10.1f}{total / total_pages:>14.3f}")
    pc = sum(r[3].get("parse", 0) + r[3].get("chunk", 0) for r in rows) / total_pages
    whole = sum(sum(r[3].values()) for r in rows) / total_pages
    print(f"{'parse+chunk':<14}{statistics.median(r[2]['parse'] + r[2]['chunk'] for r in rows):>15.3f}"
          f"{'':>10}{pc:>14.3f}   target ≤ 0.5")
    print(f"{'whole':<14}{statistics.median(sum(r[2].values()) for r in rows):>15.3f}{'':>10}{whole:>14.3f}"
          f"   target ≤ 1.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
