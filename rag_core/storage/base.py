"""What the library needs of the place it lives in, whether a local directory or an object store.

Keys are relative paths with `/` (`documents/<sha256>/chunks.json`, `access/grants.json`). Every
operation that two servers may run at the same moment is one the place itself makes safe:
`replace` is a compare-and-swap (it writes only over the version the caller read, or only where
nothing is yet), `append_line` never loses a record written at the same time by someone else.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rag_core.errors import RagError

log = logging.getLogger(__name__)
CAS_ATTEMPTS = 20  # a compare-and-swap lost to another writer is tried again this many times


class StorageError(RagError):
    """The library's storage refused or failed an operation (its message says what to do)."""


@dataclass(frozen=True)
class Entry:
    """One stored object: its key, size and version tag (an ETag, or a local file's identity)."""

    key: str
    size: int
    version: str


class Library(Protocol):
    """One library location. `remote` is False for a local directory (files used in place)."""

    uri: str
    remote: bool

    def read(self, key: str) -> tuple[bytes, str] | None:
        """The object's bytes and version tag; None when there is none."""
        ...

    def write(self, key: str, data: bytes) -> str:
        """Write the whole object at once (readers see the old bytes or the new ones); its new version."""
        ...

    def replace(self, key: str, data: bytes, version: str | None) -> bool:
        """Write only if the object is still at `version` (None: only if it does not exist yet).
        False when another writer got there first."""
        ...

    def append_line(self, key: str, line: bytes) -> None:
        """Add one record (a line without a newline) to the log `key`; concurrent appends all stay."""
        ...

    def import_lines(self, key: str, lines: list[bytes]) -> None:
        """Add the records of a log moved from elsewhere, before any appended since (a move into an empty library)."""
        ...

    def read_lines(self, key: str) -> list[bytes]:
        """The records of the log `key`, oldest first."""
        ...

    def head(self, key: str) -> Entry | None:
        """The object's size and version without its bytes; None when there is none."""
        ...

    def entries(self, prefix: str) -> list[Entry]:
        """The objects of the folder `prefix` (whole path segments: `a/b` lists `a/b/...`)."""
        ...

    def children(self, prefix: str) -> list[str]:
        """The names of the folders directly under `prefix` (which ends with `/`)."""
        ...

    def download(self, key: str, path: Path) -> str:
        """Copy the object to the local file `path` (written whole, then renamed); its version."""
        ...

    def upload(self, path: Path, key: str) -> str:
        """Copy the local file `path` to the object `key`; its new version."""
        ...

    def delete(self, keys: list[str]) -> None:
        """Remove these objects (missing ones are ignored)."""
        ...


def update_json(library: Library, key: str, change: Callable[[dict[str, Any] | None], dict[str, Any] | None]) -> Any:
    """Read-modify-write of one JSON object by compare-and-swap: `change(current or None)` gives the
    new value (None: leave it as it is). A write lost to another server's is redone on what that
    server wrote, so neither change is lost. Returns the value now stored."""
    for attempt in range(CAS_ATTEMPTS):
        found = library.read(key)
        current = json.loads(found[0]) if found is not None else None
        new = change(current)
        if new is None:
            return current
        data = json.dumps(new, ensure_ascii=False, indent=1, default=str).encode("utf-8")
        if library.replace(key, data, found[1] if found is not None else None):
            return new
        log.info("%s changed under us; trying again (%d)", key, attempt + 1)
        time.sleep(random.uniform(0.01, 0.05) * (attempt + 1))
    raise StorageError.of("storage.contention", key=key)
