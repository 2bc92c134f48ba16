"""Where the library lives: one URI for everything two servers must agree on.

`settings.library_uri` names it: a local directory (the default, `settings.data_dir`) or an
object store (`s3://bucket/prefix`). Under it: the LanceDB tables (`lancedb/`), the document
folders (`documents/<sha256>/`), the uploads waiting for their job (`uploads/`), the grants
(`access/grants.json`), the audit trail and the citation reports (append-only logs), the
uploaded glossary and thesaurus. With an object store, document folders and uploads are read
and written through a bounded local cache (`storage.cache_dir`, `storage.cache_max_mb`).
"""

from __future__ import annotations

import fcntl
import shutil
import threading
import time
from pathlib import Path

from rag_core.config import Settings
from rag_core.library import DocumentFolder
from rag_core.storage.base import Entry, Library, StorageError, update_json
from rag_core.storage.local import LocalLibrary
from rag_core.storage.mirror import INDEX, FolderMirror

__all__ = [
    "Entry",
    "Library",
    "StorageError",
    "document_folder",
    "document_ids",
    "drop_upload",
    "local_copy",
    "open_library",
    "save_upload",
    "update_json",
    "upload_copy",
]

_EVICT_EVERY_S = 60.0
_copied: dict[Path, str] = {}  # local copy -> version of the object it holds (`local_copy`)
_last_eviction: dict[str, float] = {}
_evict_lock = threading.Lock()


def open_library(settings: Settings) -> Library:
    """The library `settings` name (an object store is checked once per process, see `objects`)."""
    if settings.library_is_remote:
        from rag_core.storage.objects import open_object_library  # obstore only for an object store

        return open_object_library(str(settings.library_uri))
    return LocalLibrary(settings.data_dir)


def document_folder(settings: Settings, doc_id: str) -> DocumentFolder:
    """A document's folder, up to date with the library (pulled into the cache when it is remote)."""
    library = open_library(settings)
    folder = DocumentFolder(settings.documents_dir, doc_id)
    if library.remote:
        folder.mirror = FolderMirror(library, f"documents/{doc_id}", folder.root)
        folder.mirror.pull()
        _evict(settings, keep=doc_id)
    return folder


def document_ids(settings: Settings) -> list[str]:
    """The ids of the document folders in the library (finished or not)."""
    library = open_library(settings)
    if library.remote:
        return [name for name in library.children("documents/") if len(name) == 64]
    root = settings.documents_dir
    return sorted(p.name for p in root.iterdir() if p.is_dir() and len(p.name) == 64) if root.is_dir() else []


def local_copy(settings: Settings, key: str) -> Path | None:
    """A local file holding the object `key` (the file itself for a local library); None when absent."""
    library = open_library(settings)
    if not library.remote:
        path = settings.data_dir / key
        return path if path.is_file() else None
    target = settings.storage.cache_dir / "objects" / key
    entry = library.head(key)  # read on every question (the word lists): fetched only when it changed
    if entry is None:
        target.unlink(missing_ok=True)
        return None
    if _copied.get(target) != entry.version or not target.is_file():
        _copied[target] = library.download(key, target)
    return target


def save_upload(settings: Settings, written: Path, name: str) -> None:
    """Keep an accepted upload (`written`, a local file) as `uploads/<name>` in the library, before its
    job is queued: from then on a crash of this server loses nothing."""
    library = open_library(settings)
    target = settings.uploads_dir / name
    if library.remote:
        library.upload(written, f"uploads/{name}")
    target.parent.mkdir(parents=True, exist_ok=True)
    written.replace(target)


def upload_copy(settings: Settings, name: str) -> Path | None:
    """A local file of the upload `uploads/<name>` (fetched when the library is remote); None when gone."""
    target = settings.uploads_dir / name
    library = open_library(settings)
    if not library.remote:
        return target if target.is_file() else None
    entry = library.head(f"uploads/{name}")
    if entry is None:
        return None
    if not target.is_file() or target.stat().st_size != entry.size:
        library.download(entry.key, target)
    return target


def drop_upload(settings: Settings, name: str) -> None:
    """Forget an upload whose document is done (its bytes are the document's `source.*` now)."""
    library = open_library(settings)
    if library.remote:
        library.delete([f"uploads/{name}"])
    (settings.uploads_dir / name).unlink(missing_ok=True)


def _evict(settings: Settings, keep: str) -> None:
    """Keep the cache of document folders under `storage.cache_max_mb`: the least recently used go."""
    root = settings.documents_dir
    with _evict_lock:
        if time.monotonic() - _last_eviction.get(str(root), -_EVICT_EVERY_S) < _EVICT_EVERY_S:
            return
        _last_eviction[str(root)] = time.monotonic()
    folders = []
    for folder in root.iterdir() if root.is_dir() else []:
        if folder.is_dir() and folder.name != keep:
            size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
            used = (folder / INDEX).stat().st_mtime if (folder / INDEX).exists() else 0.0
            folders.append((used, size, folder))
    total = sum(size for _, size, _ in folders)
    budget = settings.storage.cache_max_mb * 1024 * 1024
    for _, size, folder in sorted(folders, key=lambda f: f[0]):
        if total <= budget:
            break
        with (folder / ".lock").open("w") as handle:  # the lock an ingestion here holds (DocumentFolder.locked)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            shutil.rmtree(folder, ignore_errors=True)
        total -= size


def require_available(settings: Settings) -> None:
    """Raise `StorageError` with a clear message when the library cannot be used (checked at start)."""
    open_library(settings)
