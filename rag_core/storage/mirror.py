"""A document folder of a library kept in an object store, worked on through a local copy.

Ingestion, the viewer and the answers read and write a document's files on a local disk
(`rag_core.library.DocumentFolder`). When the library lives in an object store, that folder is a
copy in the cache (`storage.cache_dir`): `pull` brings it up to date before it is read (one
listing, then only the objects whose version changed), `push` sends what a stage wrote, its
manifest last, so a server that sees the manifest finds every file it names. A document
becomes searchable only when its row is written, after its files are pushed. A local file is
removed by a pull only when an earlier sync knew it and the library no longer has it.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag_core.library import atomic_write_json
from rag_core.storage.base import Library, StorageError

INDEX = ".synced.json"  # name -> [version, size, mtime_ns] of the files pulled or pushed
MANIFEST = "manifest.json"
LOCK_STALE_S = 600.0  # a document lock older than this was left by a killed process


class FolderMirror:
    def __init__(self, library: Library, prefix: str, root: Path) -> None:
        self.library, self.prefix, self.root = library, prefix.rstrip("/") + "/", Path(root)

    def _index(self) -> dict[str, list]:
        try:
            return json.loads((self.root / INDEX).read_text())
        except (OSError, ValueError):
            return {}

    def _save_index(self, index: dict[str, list]) -> None:
        atomic_write_json(self.root / INDEX, index)

    def pull(self) -> None:
        """Make the local copy what the library holds now."""
        index = self._index()
        remote = {e.key[len(self.prefix) :]: e for e in self.library.entries(self.prefix) if not _hidden(e.key)}
        changed = False
        for name, entry in remote.items():
            local = self.root / name
            known = index.get(name)
            if known and known[0] == entry.version and _stat(local) == (known[1], known[2]):
                continue
            version = self.library.download(entry.key, local)
            index[name] = [version, *_stat(local)]
            changed = True
        for name in [n for n in index if n not in remote]:  # removed in the library since our last sync
            (self.root / name).unlink(missing_ok=True)
            del index[name]
            changed = True
        if changed or not (self.root / INDEX).exists():
            self.root.mkdir(parents=True, exist_ok=True)
            self._save_index(index)
        else:
            os.utime(self.root / INDEX)  # recently used: the cache keeps it longest

    def push(self) -> None:
        """Send the files written here since the last sync; the manifest goes last."""
        index = self._index()
        names = sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(self.root).parts)
        )
        names.sort(key=lambda n: n == MANIFEST)
        for name in names:
            path = self.root / name
            known = index.get(name)
            if known and _stat(path) == (known[1], known[2]):
                continue
            version = self.library.upload(path, self.prefix + name)
            index[name] = [version, *_stat(path)]
        self._save_index(index)

    def remove(self) -> None:
        """Delete every object of the folder in the library (the local copy is the caller's)."""
        self.library.delete([e.key for e in self.library.entries(self.prefix)])

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One ingestion of this document at a time across machines: an object created only where
        none is, removed at the end; one older than `LOCK_STALE_S` was left by a killed process."""
        key, token = self.prefix + ".lock", json.dumps({"id": uuid.uuid4().hex, "at": time.time()}).encode()
        waited = 0.0
        while not self.library.replace(key, token, None):
            found = self.library.read(key)
            if found is not None and time.time() - float(json.loads(found[0]).get("at", 0)) > LOCK_STALE_S:
                if self.library.replace(key, token, found[1]):
                    break
                continue
            if waited > 2 * LOCK_STALE_S:
                raise StorageError.of("storage.busy_ingest")
            time.sleep(0.5)
            waited += 0.5
        try:
            yield
        finally:
            found = self.library.read(key)
            if found is not None and found[0] == token:
                self.library.delete([key])


def _hidden(key: str) -> bool:
    return any(part.startswith(".") for part in key.split("/"))


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except FileNotFoundError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)
