"""Move a library from a local directory to another location (an object store, or another
directory), then check the copy: `python -m rag_core migrate --to s3://bucket/prefix`.

Every file is copied under the same key, byte for byte: the document folders, the uploads waiting
for a job, the grants, the glossary and thesaurus, and the LanceDB tables (Lance datasets are
files with relative paths, so their versions and indexes come along as they are). A JSON-lines
file (the audit trail, the citation reports, the conversations) is a log: its lines become the
log's records in the target, oldest first. The target must be empty, so nothing there is
overwritten; the source is left as it was. The check reads every copied file back and compares
its SHA-256, counts every log's records, and opens both libraries' tables to compare their rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rag_core.config import Settings, is_object_store
from rag_core.storage.base import Library, StorageError
from rag_core.storage.local import LocalLibrary

_SKIPPED_DIRS = {"cache"}  # a remote library's local copies, when they sit under data_dir


@dataclass
class Migration:
    files: int = 0
    bytes: int = 0
    logs: dict[str, int] = field(default_factory=dict)  # key -> records
    tables: dict[str, int] = field(default_factory=dict)  # LanceDB table -> rows, equal on both sides


def _target(uri: str) -> Library:
    if is_object_store(uri):
        from rag_core.storage.objects import open_object_library

        return open_object_library(uri)
    return LocalLibrary(Path(uri.removeprefix("file://")))


def _plan(root: Path) -> tuple[list[str], list[str]]:
    """(files, logs) under `root`, as keys; lock files, temporary files and the cache are left out."""
    files: list[str] = []
    logs: list[str] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or any(p.startswith(".") for p in rel.parts) or rel.parts[0] in _SKIPPED_DIRS:
            continue
        (logs if path.suffix == ".jsonl" else files).append(rel.as_posix())
    return files, logs


def migrate(settings: Settings, to: str, say: Callable[[str], None] = print) -> Migration:
    source = LocalLibrary(settings.data_dir)
    if settings.library_is_remote or not settings.data_dir.is_dir():
        raise StorageError(f"The library to move must be a local directory; {settings.data_dir} is not one.")
    target = _target(to)
    if target.entries(""):
        raise StorageError(
            f"{to} is not empty; a library is moved only into an empty place, so nothing is overwritten."
        )
    files, logs = _plan(settings.data_dir)
    report = Migration()
    say(f"copying {len(files)} files and {len(logs)} logs to {to}")
    with ThreadPoolExecutor(max_workers=8) as pool:
        for size in pool.map(lambda key: _copy(source, target, key), files):
            report.files += 1
            report.bytes += size
    for key in logs:
        lines = source.read_lines(key)
        target.import_lines(key, lines)
        report.logs[key] = len(lines)
    say("checking the copy")
    with ThreadPoolExecutor(max_workers=8) as pool:
        bad = [key for key, ok in zip(files, pool.map(lambda key: _same(source, target, key), files)) if not ok]
    bad += [key for key, count in report.logs.items() if len(target.read_lines(key)) != count]
    if bad:
        raise StorageError(f"The copy differs from the library for {len(bad)} file(s), first {bad[0]}; run it again.")
    report.tables = _compare_tables(settings, to)
    say(
        f"done: {report.files} files ({report.bytes / 1e6:.1f} MB), {sum(report.logs.values())} log records, "
        f"{len(report.tables)} tables; the copy matches"
    )
    return report


def _copy(source: LocalLibrary, target: Library, key: str) -> int:
    path = source.path(key)
    target.upload(path, key)
    return path.stat().st_size


def _same(source: LocalLibrary, target: Library, key: str) -> bool:
    found = target.read(key)
    return (
        found is not None
        and hashlib.sha256(found[0]).digest() == hashlib.sha256(source.path(key).read_bytes()).digest()
    )


def _compare_tables(settings: Settings, to: str) -> dict[str, int]:
    """Rows of every LanceDB table, which must be the same in the copy."""
    from rag_core.store import Store

    if settings.lancedb_uri:
        return {}  # tables kept elsewhere are not part of the directory that moved
    before = Store(settings.db_uri)
    after = Store(f"{to.rstrip('/')}/lancedb")
    counts = {}
    for name in sorted(before._names()):
        rows = before.db.open_table(name).count_rows()
        if name not in after._names() or after.db.open_table(name).count_rows() != rows:
            raise StorageError(f"The table {name} was not copied whole; run the move again into an empty place.")
        counts[name] = rows
    return counts
