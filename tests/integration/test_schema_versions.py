"""Versioned stored data on real libraries (LanceDB in a temp dir): one written by the previous release
(tests/data/prev_release, made by its make_library.py with that release's code) is refused until
`python -m rag_core migrate` (the real command, in a subprocess), then searches exactly as a library this
release writes from the same PDF (the ranking rules may change between releases; the data must not be lost or
misread); one marked with a newer schema is refused with its message, by the pipeline and by `migrate`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rag_core import migrations, pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import SchemaError
from rag_core.library import SCHEMA_VERSION
from rag_core.messages import message
from rag_core.store import Store
from tests.store_support import build_store

REPO = Path(__file__).resolve().parents[2]
PREV = REPO / "tests" / "data" / "prev_release"
OPERATOR = Principal.local_operator()
PDF = PREV / "deductibles.pdf"  # the test's own PDF, the one make_library.py ingested


def _migrate(data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RAG_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "rag_core", "migrate"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def _searched(settings: Settings, question: str) -> list[dict]:
    result = pipeline.search(question, settings, language="en", principal=OPERATOR)
    return [
        {
            "id": p.parent.id,
            "fused_score": p.fused_score,
            "best_child": p.best_child.id,
            "ranks": {name: hit.rank for name, hit in p.ranks.items()},
        }
        for p in result.parents
    ]


def test_a_library_of_the_previous_release_opens_after_migrate_with_the_same_search_results(tmp_path: Path) -> None:
    library = tmp_path / "library"
    shutil.copytree(PREV / "library", library)
    settings = Settings(data_dir=library)
    expected = json.loads((PREV / "searches.json").read_text())
    assert Store(settings.db_uri).meta() is not None and "schema" not in Store(settings.db_uri).meta()  # type: ignore[operator]

    with pytest.raises(SchemaError) as refused:  # not half-read: it asks for the migration
        pipeline.search(expected[0]["question"], settings, language="en", principal=OPERATOR)
    assert refused.value.key == "library.schema_older" and "python -m rag_core migrate" in str(refused.value)

    done = _migrate(library)
    assert done.returncode == 0, done.stderr
    assert "schema 1: versioned-data" in done.stdout
    meta = Store(settings.db_uri).meta()
    assert meta is not None and meta["schema"] == SCHEMA_VERSION
    assert [m["name"] for m in json.loads(meta["migrations"])] == ["versioned-data"]

    fresh = Settings(data_dir=tmp_path / "fresh")  # the same PDF, written by this release
    pipeline.ingest([PDF], fresh, collection="prev", principal=OPERATOR)
    assert any(row["parents"] for row in expected)
    for row in expected:
        migrated, written_now = _searched(settings, row["question"]), _searched(fresh, row["question"])
        assert migrated == written_now, row["question"]
        assert bool(migrated) == bool(row["parents"]), row["question"]  # found what that release found, or nothing

    again = _migrate(library)  # recorded as applied: nothing left to do
    assert again.returncode == 0 and "nothing to migrate" in again.stdout


def test_a_library_marked_with_a_newer_schema_is_refused(tmp_path: Path) -> None:
    store, settings = build_store(Settings(data_dir=tmp_path / "library"))
    meta = store.meta()
    assert meta is not None and meta["schema"] == SCHEMA_VERSION  # a library written now is current
    store.write_meta({**meta, "schema": SCHEMA_VERSION + 1})

    with pytest.raises(SchemaError) as refused:
        pipeline.search("mortality tables", settings, language="en", principal=OPERATOR)
    assert refused.value.key == "library.schema_newer"
    assert str(refused.value) == message(
        "library.schema_newer", where=str(settings.data_dir), found=SCHEMA_VERSION + 1, current=SCHEMA_VERSION
    )
    assert "newer release" in str(refused.value)

    done = _migrate(settings.data_dir)
    assert done.returncode != 0 and "newer release" in done.stderr
    assert Store(settings.db_uri).meta()["schema"] == SCHEMA_VERSION + 1  # type: ignore[index]  # untouched


def test_the_migrations_lead_to_the_current_schema() -> None:
    targets = [m.to for m in migrations.MIGRATIONS]
    assert targets == sorted(set(targets)) and targets[-1] == SCHEMA_VERSION
    assert len({m.name for m in migrations.MIGRATIONS}) == len(targets)
