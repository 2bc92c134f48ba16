"""An ingestion that meets a document whose manifest a newer release wrote refuses the file with the
manifest's message and changes nothing (real 4-page corpus PDF, real library in a temp dir)."""

from __future__ import annotations

import json
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.library import SCHEMA_VERSION, DocumentFolder

SMALL_PDF = "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf"


def test_ingesting_again_over_a_newer_manifest_is_refused(corpus_dir: Path, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    operator = Principal.local_operator()
    (first,) = pipeline.ingest([corpus_dir / SMALL_PDF], settings, principal=operator)
    assert first.status == "ingested", first.message
    folder = DocumentFolder(settings.documents_dir, first.doc_id)
    manifest = json.loads(folder.manifest_path.read_text())
    folder.manifest_path.write_text(json.dumps({**manifest, "schema": SCHEMA_VERSION + 1}))
    before = folder.manifest_path.read_bytes()
    (again,) = pipeline.ingest([corpus_dir / SMALL_PDF], settings, principal=operator)
    assert again.status == "refused"
    assert f"The record of the document {first.doc_id[:12]} was written by a newer release" in again.message
    assert folder.manifest_path.read_bytes() == before
