"""One parse of a file per test session, shared by every test process (pytest-xdist workers too).

Several test files inspect the parse of the same corpus PDF with the same options; each parsed it
again. `ParseCache.parse` has `rag_core.parsing.parse`'s arguments: the first call for a file and
options really parses it (so a real parse is still run and tested) and saves the result; the others
read it back. The key is the file's sha256, a hash of the source of every module of
`rag_core/parsing` (an edited parser never reads a stale parse), the parse options, the library
versions, the file's name and the artifacts folder's name (the document's picture URIs contain it). The figure crops
are saved with the parse and copied into the caller's artifacts folder. Two settings that differ only where the
parse's output does not (the helper processes, `workers`; `auto` against the backend it resolves to) share an
entry, so a test that asks for `backend="pymupdf"` or `workers=1` reads the parse another test made with the
defaults: `rag_core.parsing.parser_options` (the manifest's record of what changes a parse) leaves them out too, and
tests/integration/test_parsing_workers.py checks that the helpers give the same document.

`ParseCache.file` builds a generated test file once per run, so that tests in different processes that generate
the same file (its bytes carry a creation time) parse the same bytes, hence share a parse.

Use it only where a test inspects a parse's result, never where the test is about the parse itself
(progress events, timings, memory, bad files, workers).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from docling_core.types.doc import DoclingDocument
from filelock import FileLock

from rag_core.config import Settings
from rag_core.library import sha256_file
from rag_core.parsing import ParsedDocument, parse, parser_signature, resolve_pdf_backend

PARSING_SOURCES = Path(__file__).resolve().parents[1] / "rag_core" / "parsing"


def parser_source_hash() -> str:
    """Hash of the names and contents of every `.py` file under `rag_core/parsing`."""
    digest = hashlib.sha256()
    for path in sorted(PARSING_SOURCES.rglob("*.py")):
        digest.update(str(path.relative_to(PARSING_SOURCES)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def output_options(settings: Settings) -> dict:
    """The parsing settings less those that leave the parse's output as it is: `workers`, and `auto` read
    as the backend it resolves to (the limits stay: a parse they refuse is no parse of the cache)."""
    options = settings.parsing.model_dump(mode="json", exclude={"workers"})
    options["backend"] = resolve_pdf_backend(settings)
    return options


def to_json(parsed: ParsedDocument) -> str:
    fields = {f.name: getattr(parsed, f.name) for f in dataclasses.fields(parsed) if f.name != "document"}
    return json.dumps({"document": parsed.document.export_to_dict(), **fields})


def from_json(text: str) -> ParsedDocument:
    data = json.loads(text)
    return ParsedDocument(document=DoclingDocument.model_validate(data.pop("document")), **data)


def shared_base(factory: pytest.TempPathFactory) -> Path:
    """The folder every process of this run sees: the xdist run's base temp dir under xdist."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


class ParseCache:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.parsed = 0  # real parses run by this process (for the cache's own tests)
        self._sources = parser_source_hash()

    def key(self, path: Path, settings: Settings, artifacts_dir: Path) -> str:
        payload = {
            "file": sha256_file(path),
            "name": path.name,  # the document's name comes from it
            "code": self._sources,
            "options": output_options(settings),
            "signature": parser_signature(settings),
            "artifacts": Path(artifacts_dir).name,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]

    def parse(self, path: Path, settings: Settings, artifacts_dir: Path) -> ParsedDocument:
        path, artifacts_dir = Path(path), Path(artifacts_dir)
        entry = self.root / self.key(path, settings, artifacts_dir)
        with FileLock(str(entry) + ".lock"):
            if not (entry / "parsed.json").is_file():
                tmp = entry.with_name(entry.name + ".tmp")
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir()
                parsed = parse(path, settings, tmp / artifacts_dir.name)
                self.parsed += 1
                (tmp / "parsed.json").write_text(to_json(parsed), encoding="utf-8")
                tmp.rename(entry)
        if (entry / artifacts_dir.name).is_dir():
            shutil.copytree(entry / artifacts_dir.name, artifacts_dir, dirs_exist_ok=True)
        else:
            artifacts_dir.mkdir(parents=True, exist_ok=True)
        return from_json((entry / "parsed.json").read_text(encoding="utf-8"))

    def file(self, name: str, build: Callable[[Path], object]) -> Path:
        """`build(path)` run once per run for `name` (every process then gets those bytes); its path."""
        target = self.root / "files" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(target) + ".lock"):
            if not target.is_file():
                building = target.with_name(target.name + ".building")
                shutil.rmtree(building, ignore_errors=True)
                building.mkdir()
                build(building / name)  # under its own name: a builder may read it
                (building / name).rename(target)
                building.rmdir()
        return target
