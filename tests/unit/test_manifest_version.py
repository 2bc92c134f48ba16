"""A document's manifest carries the schema version it was written with (`schema`); one written by a newer
release is refused where it is read, with nothing changed, and an older one (no `schema`) is read as today's
and takes the current version at its next stage. Real files in a temp folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core.errors import SchemaError
from rag_core.library import SCHEMA_VERSION, DocumentFolder
from rag_core.messages import recognise


def _folder(tmp_path: Path, manifest: dict) -> DocumentFolder:
    folder = DocumentFolder(tmp_path, "b" * 64)
    folder.root.mkdir(parents=True)
    folder.manifest_path.write_text(json.dumps(manifest))
    return folder


def test_a_manifest_of_a_newer_release_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    stages = {"chunk": {"inputs_hash": "x", "output_sha256": None}}
    folder = _folder(tmp_path, {"doc_id": "b" * 64, "schema": SCHEMA_VERSION + 1, "stages": stages})
    before = folder.manifest_path.read_bytes()
    for read in (
        folder.manifest,
        lambda: folder.is_fresh("chunk", {}),
        lambda: folder.record_stage("chunk", {}, 1, {}),
    ):
        with pytest.raises(SchemaError) as refused:
            read()
        key, values = recognise(str(refused.value))
        assert key == "doc.manifest_newer", str(refused.value)
        assert values == {"doc": "b" * 12, "found": str(SCHEMA_VERSION + 1), "current": str(SCHEMA_VERSION)}
    assert folder.manifest_path.read_bytes() == before


def test_a_manifest_of_this_release_or_an_older_one_is_read(tmp_path: Path) -> None:
    current = _folder(tmp_path / "now", {"doc_id": "b" * 64, "schema": SCHEMA_VERSION, "stages": {}})
    assert current.manifest()["schema"] == SCHEMA_VERSION
    older = _folder(tmp_path / "old", {"doc_id": "b" * 64, "stages": {}})  # version 0: no `schema`
    assert older.manifest()["stages"] == {}
    older.chunks_json.write_text("{}")  # the stage's output, hashed into the manifest
    older.record_stage("chunk", {"k": 1}, 0.5, {})
    assert json.loads(older.manifest_path.read_text())["schema"] == SCHEMA_VERSION
