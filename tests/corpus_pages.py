"""Pages cut out of corpus PDFs and ingested into a library of their own, as several answer tests need."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pymupdf

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import IngestResult


def cut_pages(corpus_dir: Path, pages: Mapping[str, Sequence[int]], root: Path) -> list[Path]:
    """Each corpus PDF of `pages` cut down to its listed pages (1-based), saved under `root` by its name."""
    files = []
    for name, wanted in pages.items():
        with pymupdf.open(corpus_dir / name) as doc:
            doc.select([p - 1 for p in wanted])
            doc.save(root / name)
        files.append(root / name)
    return files


def ingest_pages(
    corpus_dir: Path, pages: Mapping[str, Sequence[int]], root: Path, principal: Principal
) -> tuple[Settings, list[IngestResult]]:
    """The cut PDFs ingested by the real offline pipeline into `root / "data"`; every one must be ingested."""
    settings = Settings(data_dir=root / "data")
    results = pipeline.ingest(cut_pages(corpus_dir, pages, root), settings, principal=principal)
    assert all(r.status == "ingested" for r in results), [r.message for r in results]
    return settings, results
