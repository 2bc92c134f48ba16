"""The `/media` URLs of this process's exports: which session made which file, and when each URL dies.

A `/media/<id>` URL is a bearer link, so each export's URL is deleted `lifetime_s` after its click
(`remember_export`), and at once when its session signs out or changes principal (`forget_exports`,
called by `ui.auth`). Kept apart from `ui.downloads` (which checks who may click) so that `ui.auth`
can drop a session's URLs without importing the download buttons, which ask `ui.auth` who is signed in.
"""

from __future__ import annotations

import functools
import threading
import time

_EXPORTS: dict[str, set[str]] = {}  # session id -> /media file ids made by its bound downloads
_DEADLINES: dict[str, float] = {}  # /media file id -> time.monotonic() after which its URL is deleted
_EXPORTS_LOCK = threading.Lock()
_SWEEP_LOCK = threading.Lock()


def remember_export(session_id: str, file_id: str, lifetime_s: float) -> None:
    # Streamlit names stored bytes by their hash: the same export clicked again is the same file,
    # whose address lives until the latest click's deadline.
    _outlive_streamlits_sweep()
    with _EXPORTS_LOCK:
        _EXPORTS.setdefault(session_id, set()).add(file_id)
        _DEADLINES[file_id] = max(_DEADLINES.get(file_id, 0.0), time.monotonic() + lifetime_s)
    timer = threading.Timer(lifetime_s, _expire, args=(file_id,))
    timer.daemon = True
    timer.start()


def _outlive_streamlits_sweep() -> None:
    """Keep a live export out of Streamlit's own cleanup (once per process).

    Streamlit deletes a download that no element of any session maps, at the second script run of any
    session after it was made: a deferred download is never mapped, and the pages' fragments run every
    few seconds, so its address died after 3 to 6 s, whatever the lifetime setting said. A slow fetch
    (a loaded server, a browser that asks again) then got 404. The exports' own deadlines and
    `forget_exports` delete them instead; every other file is left to Streamlit."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    with _SWEEP_LOCK:
        original = MediaFileManager._get_inactive_file_ids
        if getattr(original, "_keeps_exports", False):
            return

        @functools.wraps(original)
        def inactive(self: MediaFileManager) -> set[str]:
            with _EXPORTS_LOCK:  # never held while the manager's lock is taken, so no lock-order cycle
                live = set(_DEADLINES)
            return original(self) - live

        inactive._keeps_exports = True  # type: ignore[attr-defined]  # a marker on the wrapper: install once
        MediaFileManager._get_inactive_file_ids = inactive  # type: ignore[method-assign]


def _expire(file_id: str) -> None:
    with _EXPORTS_LOCK:
        if time.monotonic() < _DEADLINES.get(file_id, 0.0) - 0.5:
            return  # clicked again since: that click's timer deletes it
    _delete_exports([file_id])


def _delete_exports(file_ids: list[str]) -> None:
    """Remove these files from Streamlit's media storage: their `/media` URLs answer 404 from now on."""
    from streamlit import runtime

    with _EXPORTS_LOCK:
        for made in _EXPORTS.values():
            made.difference_update(file_ids)
        for file_id in file_ids:
            _DEADLINES.pop(file_id, None)
    if not runtime.exists():
        return
    manager = runtime.get_instance().media_file_mgr
    with manager._lock:
        for file_id in file_ids:
            manager._storage.delete_file(file_id)
            manager._file_metadata.pop(file_id, None)


def forget_exports(session_id: str | None = None) -> None:
    """Delete now every export URL made for this session (sign-out, another principal)."""
    session_id = session_id or current_session_id()
    if session_id is None:
        return
    with _EXPORTS_LOCK:
        made = list(_EXPORTS.pop(session_id, set()))
    if made:
        _delete_exports(made)


def current_session_id() -> str | None:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None
