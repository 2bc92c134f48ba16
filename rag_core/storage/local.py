"""A library in a local directory (the default, `data/`): the files are used in place.

Compare-and-swap holds an exclusive `fcntl` lock on a lock file beside the object while it
compares and renames; appends hold one on the log itself. Both hold between processes of one
machine only, which is all a local directory can be shared by.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from rag_core.library import atomic_write_bytes
from rag_core.storage.base import Entry, Library, StorageError


def _version(path: Path) -> str | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return f"{st.st_ino}-{st.st_mtime_ns}-{st.st_size}"


def as_library(place: Path | str | Library) -> Library:
    """A library given as a directory (its older form) or as itself."""
    return LocalLibrary(Path(place)) if isinstance(place, (Path, str)) else place


class LocalLibrary:
    remote = False

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.uri = str(self.root)

    def path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise StorageError.of("storage.outside", key=repr(key))
        return path

    @contextlib.contextmanager
    def _locked(self, path: Path) -> Iterator[None]:
        path.parent.mkdir(parents=True, exist_ok=True)
        with (path.parent / f".{path.name}.lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def read(self, key: str) -> tuple[bytes, str] | None:
        path = self.path(key)
        for _ in range(3):  # a rename between the stat and the read: read again
            before = _version(path)
            if before is None:
                return None
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            if _version(path) == before:
                return data, before
        raise StorageError.of("storage.changing", key=key)

    def write(self, key: str, data: bytes) -> str:
        path = self.path(key)
        atomic_write_bytes(path, data)
        return _version(path) or ""

    def replace(self, key: str, data: bytes, version: str | None) -> bool:
        path = self.path(key)
        with self._locked(path):
            if _version(path) != version:
                return False
            atomic_write_bytes(path, data)
            fd = os.open(path.parent, os.O_RDONLY)  # the rename itself survives a crash
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        return True

    def append_line(self, key: str, line: bytes) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                handle.seek(0, os.SEEK_END)
                if handle.tell():  # a previous writer killed mid-line: start on a line of our own
                    handle.seek(-1, os.SEEK_END)
                    if handle.read(1) != b"\n":
                        handle.write(b"\n")
                handle.write(line.replace(b"\n", b" ") + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def import_lines(self, key: str, lines: list[bytes]) -> None:
        for line in lines:
            self.append_line(key, line)

    def read_lines(self, key: str) -> list[bytes]:
        path = self.path(key)
        if not path.is_file():
            return []
        return [line for line in path.read_bytes().splitlines() if line.strip()]

    def head(self, key: str) -> Entry | None:
        path = self.path(key)
        version = _version(path)
        return Entry(key, path.stat().st_size, version) if version is not None and path.is_file() else None

    def entries(self, prefix: str) -> list[Entry]:
        base = self.path(prefix.rstrip("/")) if prefix.strip("/") else self.root
        if base.is_file():
            files = [base]
        elif base.is_dir():
            files = [p for p in base.rglob("*") if p.is_file()]
        else:
            return []
        root = self.root.resolve()
        entries = []
        for path in sorted(files):
            key = path.resolve().relative_to(root).as_posix()
            version = _version(path)
            if key.startswith(prefix) and version is not None and not path.name.startswith("."):
                entries.append(Entry(key, path.stat().st_size, version))
        return entries

    def children(self, prefix: str) -> list[str]:
        base = self.path(prefix.rstrip("/"))
        return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    def download(self, key: str, path: Path) -> str:
        source = self.path(key)
        if source != Path(path).resolve():
            atomic_write_bytes(Path(path), source.read_bytes())
        return _version(source) or ""

    def upload(self, path: Path, key: str) -> str:
        target = self.path(key)
        if Path(path).resolve() != target:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.parent / f".{target.name}.upload.tmp"
            shutil.copyfile(path, tmp)
            tmp.replace(target)
        return _version(target) or ""

    def delete(self, keys: list[str]) -> None:
        for key in keys:
            self.path(key).unlink(missing_ok=True)
