"""A library in an object store (`s3://bucket/prefix`, also MinIO, Ceph or any S3 API) through
`obstore`, the Python binding of the Rust `object_store` crate: create-only and compare-and-swap
puts, streaming gets, and the `AWS_*` variables read as the AWS tools read them (`AWS_ENDPOINT`,
`AWS_REGION`, keys, `AWS_ALLOW_HTTP=true` for a local test server).

What two servers rely on, and how it is kept:
- `replace` is a conditional put (`If-Match` on the version read, `If-None-Match: *` for a new
  object): the store itself refuses the second of two writers, who reads again and retries.
- `append_line` writes each record as an object of its own, created only where none is, under a
  key that begins with the time: nothing is ever rewritten, so two appends cannot lose either.
- `check_guarantees` tries both conditions once when a library is opened and refuses a store that
  ignores them (some S3 clones accept the headers and overwrite anyway), since LanceDB's own
  commits rely on the same `If-None-Match`; LanceDB's `s3+ddb://` commit store is the remedy there.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import obstore
from obstore.exceptions import AlreadyExistsError, NotFoundError, PreconditionError

from rag_core.storage.base import Entry, StorageError

_LOG_SUFFIX = ".d/"  # the records of the log `key` are the objects under `key + .d/`


class ObjectLibrary:
    remote = True

    def __init__(self, uri: str) -> None:
        from obstore.store import from_url

        self.uri = uri.rstrip("/")
        try:
            self._store: Any = from_url(self.uri)
        except Exception as err:  # obstore raises several kinds for a bad URI or config
            raise StorageError.of("storage.cannot_open", uri=self.uri, detail=err) from None

    def read(self, key: str) -> tuple[bytes, str] | None:
        try:
            result = obstore.get(self._store, key)
        except (NotFoundError, FileNotFoundError):
            return None
        return bytes(result.bytes()), str(result.meta["e_tag"])

    def write(self, key: str, data: bytes) -> str:
        return str(obstore.put(self._store, key, data)["e_tag"])

    def replace(self, key: str, data: bytes, version: str | None) -> bool:
        mode: Any = "create" if version is None else {"e_tag": version}
        try:
            obstore.put(self._store, key, data, mode=mode)
        except (AlreadyExistsError, PreconditionError):
            return False
        return True

    def append_line(self, key: str, line: bytes) -> None:
        record = f"{key}{_LOG_SUFFIX}{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex}"
        obstore.put(self._store, record, line.replace(b"\n", b" "), mode="create")

    def import_lines(self, key: str, lines: list[bytes]) -> None:
        """Records of a log moved from elsewhere, in parallel: their keys sort before any appended later."""
        with ThreadPoolExecutor(max_workers=16) as pool:
            list(
                pool.map(
                    lambda n: obstore.put(
                        self._store, f"{key}{_LOG_SUFFIX}{n:020d}-moved", lines[n].replace(b"\n", b" "), mode="create"
                    ),
                    range(len(lines)),
                )
            )

    def read_lines(self, key: str) -> list[bytes]:
        keys = sorted(e.key for e in self.entries(key + _LOG_SUFFIX))
        with ThreadPoolExecutor(max_workers=16) as pool:
            return list(pool.map(lambda k: bytes(obstore.get(self._store, k).bytes()), keys))

    def head(self, key: str) -> Entry | None:
        try:
            meta = obstore.head(self._store, key)
        except (NotFoundError, FileNotFoundError):
            return None
        return Entry(key, int(meta["size"]), str(meta["e_tag"]))

    def entries(self, prefix: str) -> list[Entry]:
        entries = []
        for batch in obstore.list(self._store, prefix=prefix or None, chunk_size=1000):
            for meta in batch:
                entries.append(Entry(str(meta["path"]), int(meta["size"]), str(meta["e_tag"])))
        return sorted(entries, key=lambda e: e.key)

    def children(self, prefix: str) -> list[str]:
        found = obstore.list_with_delimiter(self._store, prefix=prefix)
        return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in found["common_prefixes"])

    def download(self, key: str, path: Path) -> str:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:8]}.tmp"
        try:
            result = obstore.get(self._store, key)
            with open(tmp, "wb") as handle:
                for chunk in result:
                    handle.write(chunk)
            tmp.replace(path)
        except (NotFoundError, FileNotFoundError):
            raise StorageError.of("storage.key_missing", key=key, uri=self.uri) from None
        finally:
            tmp.unlink(missing_ok=True)
        return str(result.meta["e_tag"])

    def upload(self, path: Path, key: str) -> str:
        with open(path, "rb") as handle:
            return str(obstore.put(self._store, key, handle)["e_tag"])

    def delete(self, keys: list[str]) -> None:
        if keys:
            obstore.delete(self._store, keys)

    def check_guarantees(self) -> None:
        """Refuse a store whose conditional writes do not hold (see the module's docstring)."""
        probe = f"_probe/{uuid.uuid4().hex}"
        try:
            first = self.write(probe, b"1")
            ignored = self.replace(probe, b"2", None) or self.replace(probe, b"3", first + "-stale")
        except Exception as err:  # any failure here means the library cannot be used
            raise StorageError.of("storage.cannot_write", uri=self.uri, detail=err) from None
        finally:
            try:
                self.delete([probe])
            except Exception:  # a probe left behind is harmless
                pass
        if ignored:
            raise StorageError.of("storage.no_conditional_writes", uri=self.uri)


_OPENED: dict[str, ObjectLibrary] = {}
_OPEN_LOCK = threading.Lock()


def open_object_library(uri: str) -> ObjectLibrary:
    """One checked client per URI and process."""
    with _OPEN_LOCK:
        library = _OPENED.get(uri)
        if library is None:
            library = ObjectLibrary(uri)
            library.check_guarantees()
            _OPENED[uri] = library
        return library
