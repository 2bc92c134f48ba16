"""Ingestion end to end on real corpus PDFs: stages, reuse, staleness, delete, the CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import NotFoundError, StaleStageError
from rag_core.library import DocumentFolder
from rag_core.services.connection import open_store
from tests.store_support import SMALL_EN, SMALL_FR

LOCAL = Principal.local_operator()  # the local operator (administrator): these tests are not about access
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path):
    settings = Settings(data_dir=tmp_path_factory.mktemp("lib"))
    events = []
    results = pipeline.ingest(
        [corpus_dir / SMALL_EN, corpus_dir / SMALL_FR],
        settings,
        collection="guides",
        progress=events.append,
        principal=LOCAL,
    )
    return settings, results, events


def test_ingest_makes_documents_searchable_with_provenance(ingested) -> None:
    settings, results, events = ingested
    assert [r.status for r in results] == ["ingested", "ingested"], [r.message for r in results]
    en, fr = (r.record for r in results)
    assert en.language == "en" and fr.language == "fr"
    assert en.file_name == SMALL_EN and en.collection == "guides" and en.pages == 5
    assert en.parents > 0 and en.children >= en.parents
    # the author its metadata gives and its first page prints, and its creation date, as listed in the library
    assert (en.author, en.date) == ("Vincent Goulet", "2023-02-06")
    listed = {d.doc_id: d for d in pipeline.list_documents(settings, principal=LOCAL)}
    assert (listed[en.doc_id].author, listed[en.doc_id].date) == ("Vincent Goulet", "2023-02-06")
    assert {e.stage for e in events} == {"parse", "chunk", "embed", "write"}
    folder = DocumentFolder(settings.documents_dir, en.doc_id)
    assert (folder.root / "source.pdf").is_file() and folder.document_json.is_file()
    manifest = folder.manifest()
    assert set(manifest["stages"]) == {"parse", "chunk", "embed", "write"}
    assert manifest["stages"]["parse"]["parser"] == "pymupdf"
    assert manifest["stages"]["parse"]["versions"]
    result = pipeline.search("cdf of the payment per loss with a franchise deductible", settings, principal=LOCAL)
    assert result.parents and result.parents[0].document.doc_id == en.doc_id
    assert result.parents[0].best_child.boxes


def test_same_bytes_twice_is_the_same_document(ingested, corpus_dir: Path) -> None:
    settings, results, _ = ingested
    again = pipeline.ingest([corpus_dir / SMALL_EN], settings, collection="guides", principal=LOCAL)
    assert again[0].status == "already_present"
    assert again[0].doc_id == results[0].doc_id
    assert len(pipeline.list_documents(settings, principal=LOCAL)) == 2


def test_inspect_view_is_stable_json(ingested) -> None:
    settings, results, _ = ingested
    view = pipeline.inspect(results[0].doc_id, settings, principal=LOCAL)
    assert set(view) == {"document", "sections", "parents", "children", "tables"}
    assert view["sections"] and all(s["level"] >= 1 for s in view["sections"])
    parent_ids = {p["id"] for p in view["parents"]}
    assert all(c["parent_id"] in parent_ids for c in view["children"])
    json.dumps(view)


def test_forged_ids_get_nothing(ingested) -> None:
    settings, _, _ = ingested
    for forged in ["../../etc/passwd", "0" * 64, "abc"]:
        with pytest.raises(NotFoundError):
            pipeline.source_path(forged, settings, principal=LOCAL)
    with pytest.raises(NotFoundError):
        pipeline.artifact_path(
            pipeline.list_documents(settings, principal=LOCAL)[0].doc_id,
            "../../../../etc/passwd",
            settings,
            principal=LOCAL,
        )


def test_stages_are_reused_and_a_stale_stage_is_refused(tmp_path: Path, corpus_dir: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    first = pipeline.ingest([corpus_dir / SMALL_EN], settings, principal=LOCAL)[0]
    folder = DocumentFolder(settings.documents_dir, first.doc_id)
    before = folder.manifest()["stages"]
    # Changing the chunk size redoes chunk, embed and write, but reuses the parse.
    smaller = Settings(data_dir=tmp_path / "lib", chunking={"max_tokens": 200})
    again = pipeline.ingest([corpus_dir / SMALL_EN], smaller, principal=LOCAL)[0]
    after = folder.manifest()["stages"]
    assert again.status == "ingested"
    assert after["parse"] == before["parse"]
    assert after["chunk"]["inputs_hash"] != before["chunk"]["inputs_hash"]
    assert again.record.children >= first.record.children
    # A parsed document edited behind the pipeline's back makes the chunks stale.
    folder.document_json.write_text(folder.document_json.read_text().replace('"name"', '"name" ', 1))
    with pytest.raises(StaleStageError, match="ingest the file again"):
        pipeline.load_chunks(first.doc_id, smaller, principal=LOCAL)


def test_delete_removes_rows_and_files(tmp_path: Path, corpus_dir: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    doc_id = pipeline.ingest([corpus_dir / SMALL_EN], settings, principal=LOCAL)[0].doc_id
    pipeline.delete(doc_id, settings, principal=LOCAL)
    assert pipeline.list_documents(settings, principal=LOCAL) == []
    assert not (settings.documents_dir / doc_id).exists()
    assert pipeline.search("deductible", settings, principal=LOCAL).parents == []
    assert open_store(settings).count_children() == 0


def _cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RAG_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "rag_core", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )


def test_cli_ingest_documents_inspect_search_ask(tmp_path: Path, corpus_dir: Path) -> None:
    data = tmp_path / "cli"
    bad = tmp_path / "notes.pdf"
    bad.write_bytes(b"this is not a pdf at all")
    pdf = tmp_path / SMALL_EN
    shutil.copy(corpus_dir / SMALL_EN, pdf)
    out = _cli("ingest", str(pdf), str(bad), "--collection", "vignettes", data_dir=data)
    assert out.returncode == 2, out.stderr  # one file refused
    assert "ingested" in out.stdout and "refused" in out.stdout and "Traceback" not in out.stderr
    docs = json.loads(_cli("documents", "--json", data_dir=data).stdout)
    assert [d["file_name"] for d in docs] == [SMALL_EN]
    view = json.loads(_cli("inspect", docs[0]["doc_id"][:10], "--json", data_dir=data).stdout)
    assert view["parents"] and view["children"]
    found = _cli("search", "Klugman Panjer Willmot Loss Models", "--collection", "vignettes", data_dir=data)
    assert found.returncode == 0 and SMALL_EN in found.stdout
    answer = json.loads(_cli("ask", "Which book does the coverage vignette cite?", "--json", data_dir=data).stdout)
    assert answer["mode"] == "extractive" and answer["paragraphs"]
    # each `ask` stands alone unless a conversation is named: a later question is never read as a follow-up
    alone = _cli("ask", "and its authors?", data_dir=data)
    assert alone.returncode == 0 and "understood as:" not in alone.stdout
    assert re.search(r"^\(\d+\.\d s\)$", alone.stdout, re.M)  # the figures line closes every answer
    for question in ("Which book does the coverage vignette cite?", "and its authors?"):
        followed = _cli("ask", question, "--conversation", "c1", data_dir=data)
    assert "understood as: and its authors (" in followed.stdout
    assert _cli("inspect", "nope", data_dir=data).returncode == 1
