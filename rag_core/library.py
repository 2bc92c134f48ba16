"""The on-disk library: one folder per document, named by the SHA-256 of its bytes.

    documents/<sha256>/source.<ext>   the original file, byte for byte
                       document.json  the parsed DoclingDocument
                       artifacts/     figure crops
                       chunks.json    parents and children
                       vectors.npy    the children's embeddings
                       manifest.json  per stage: inputs, their hash, options, versions, output hash

A stage is reused when the hash of its inputs matches the manifest and its output file
still has the recorded hash; otherwise it is redone, and every later stage with it.
Files are written to a temporary name and renamed, so a killed process never leaves a
half-written output that looks complete. `package_versions` gives the installed versions
recorded next to every output (manifests, evaluation results). This module does not parse,
chunk or embed.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

from rag_core.errors import NotFoundError, SchemaError, StaleStageError
from rag_core.models import STAGES

# The schema of what a library stores (tables, document folders, grants, answers, jobs): bumped with a
# migration in `rag_core.migrations` whenever their format changes; recorded in the LanceDB `meta` row.
SCHEMA_VERSION = 1
# Bump a stage's version when its code changes its output: the stage and later ones are redone.
CODE_VERSIONS = {"parse": "1", "chunk": "1", "embed": "1", "write": "2"}  # write 2: the pages table
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_json(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def clean_file_name(name: str) -> str:
    """A displayable file name: no directories, no control characters, at most 200 characters."""
    base = re.split(r"[\\/]", name)[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C").strip().strip(".")
    if not base:
        base = "document"
    if len(base) > 200:
        stem, dot, ext = base.rpartition(".")
        base = (stem[: 200 - len(ext) - 1] + "." + ext) if dot and len(ext) <= 8 else base[:200]
    return base


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, value: Any) -> None:
    atomic_write_bytes(path, json.dumps(value, ensure_ascii=False, indent=1, default=str).encode())


class DocumentFolder:
    """Files and manifest of one document."""

    def __init__(self, documents_dir: Path, doc_id: str) -> None:
        if not _HEX64.match(doc_id):
            raise NotFoundError.of("doc.bad_id")
        self.doc_id = doc_id
        self.root = documents_dir / doc_id
        self.document_json = self.root / "document.json"
        self.chunks_json = self.root / "chunks.json"
        self.vectors = self.root / "vectors.npy"
        self.artifacts = self.root / "artifacts"
        self.manifest_path = self.root / "manifest.json"
        # Set by `rag_core.storage` when the library is in an object store and this is its local copy:
        # `pull()`, `push()`, `remove()` and a `locked()` that holds across machines.
        self.mirror: Any = None

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One ingestion of a document at a time (two uploads of the same file, two processes, and
        two machines when the library is shared through an object store)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                if self.mirror is None:
                    yield
                else:
                    with self.mirror.locked():
                        self.mirror.pull()  # another machine may have run stages since
                        yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def remove(self) -> None:
        """Delete the folder (in the library too when it is remote)."""
        if self.mirror is not None:
            self.mirror.remove()
        shutil.rmtree(self.root, ignore_errors=True)

    def sweep_temporary_files(self) -> None:
        """Remove half-written files a killed ingestion left behind (their real names were never made)."""
        for tmp in self.root.glob(".*.tmp*"):
            tmp.unlink(missing_ok=True)

    def source(self) -> Path:
        found = sorted(self.root.glob("source.*"))
        if not found:
            raise NotFoundError.of("doc.no_original")
        return found[0]

    def manifest(self) -> dict[str, Any]:
        """The manifest; one written by a newer release (its `schema` above `SCHEMA_VERSION`) is refused, not
        read: its stages could mean something else. One without `schema` (version 0) is read as today's and
        takes the current version at its next stage."""
        if not self.manifest_path.is_file():
            return {"doc_id": self.doc_id, "stages": {}}
        manifest = json.loads(self.manifest_path.read_text())
        found = int(manifest.get("schema") or 0)
        if found > SCHEMA_VERSION:
            raise SchemaError.of("doc.manifest_newer", doc=self.doc_id[:12], found=found, current=SCHEMA_VERSION)
        return manifest

    def save_manifest(self, manifest: dict[str, Any]) -> None:
        """Record the manifest; in a remote library, the stage's files and then the manifest are sent."""
        atomic_write_json(self.manifest_path, manifest)
        if self.mirror is not None:
            self.mirror.push()

    def output_of(self, stage: str) -> Path | None:
        return {"parse": self.document_json, "chunk": self.chunks_json, "embed": self.vectors}.get(stage)

    def is_fresh(self, stage: str, inputs: dict[str, Any]) -> bool:
        """The stage ran with exactly these inputs and its output is intact."""
        entry = self.manifest().get("stages", {}).get(stage)
        if not entry or entry.get("inputs_hash") != hash_json(inputs):
            return False
        output = self.output_of(stage)
        return output is None or (output.is_file() and entry.get("output_sha256") == sha256_file(output))

    def record_stage(self, stage: str, inputs: dict[str, Any], seconds: float, extra: dict[str, Any]) -> None:
        manifest = self.manifest()
        stages = manifest.setdefault("stages", {})
        output = self.output_of(stage)
        stages[stage] = {
            "inputs": inputs,
            "inputs_hash": hash_json(inputs),
            "output_sha256": sha256_file(output) if output is not None else None,
            "code_version": CODE_VERSIONS[stage],
            "seconds": round(seconds, 3),
            **extra,
        }
        manifest["schema"] = SCHEMA_VERSION
        # Later stages depended on the old output: forget them so they are redone.
        for later in STAGES[STAGES.index(stage) + 1 :]:
            stages.pop(later, None)
        self.save_manifest(manifest)

    def require_fresh(self, stage: str, inputs: dict[str, Any], what: str) -> None:
        if not self.is_fresh(stage, inputs):
            raise StaleStageError.of("doc.stale", what=what)


def package_versions(names: Iterable[str]) -> dict[str, str]:
    """`{name: version}`; a package that is not installed is reported as "not installed"."""
    versions: dict[str, str] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
