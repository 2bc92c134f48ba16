"""Download buttons whose bytes only the session that drew them, and whoever is signed in to that
session when the button is clicked, can obtain; and images sent without a `/media` URL.

Streamlit runs a deferred download's callable for whichever websocket session sends the button's
file id (its handler is given the asking session's id and ignores it), on a worker thread with no
script context, and serves the bytes under `/media/<id>` to anyone holding the URL. So:

- `_install` wraps Streamlit's deferred-file handler once per process: the asking session's id
  is put in a context variable, which `asyncio.to_thread` copies into the worker thread.
- `download` gives `st.download_button` a callable that refuses (raises, so Streamlit answers
  "failed to generate the file": no bytes, no `/media` URL, nothing recorded) unless the asking
  session is the one that drew the button and the principal signed in to it now, read again from
  that session's connection (its headers, its sign-in), is the one it was drawn for; `produce`
  then gets that principal, and `rag_core` checks its scope and records the export under it.
- The `/media` URL Streamlit then hands back for the bytes is a bearer link (no session check):
  it is deleted `settings.audit.export_url_lifetime_s` after the click, and at once when its
  session signs out or changes principal (`forget_exports`), instead of waiting for Streamlit's
  own cleanup (minutes when the tab was closed).
- Its click runs no script, and its answer is kept when a run starts before it is sent
  (`_keep_answers_through_a_run_start`): either lost the file, and the browser waited for nothing.
- `inline_image` sends an image inside the page's own websocket message, as a data URI.

This module does not decide what anyone may read (`rag_core` does); it reaches into Streamlit's
runtime (the active session's connection and sign-in), and fails closed if those change.
"""

from __future__ import annotations

import base64
import contextvars
import functools
import html
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from rag_app.ui import auth
from rag_app.ui.export_urls import current_session_id, remember_export
from rag_core.errors import AccessDenied
from rag_core.pipeline import Principal, Settings

log = logging.getLogger(__name__)


@dataclass
class _Asking:
    """The deferred-file request being served: which session asks, how long its file's URL may live."""

    session_id: str
    lifetime_s: float = 0.0  # set by a bound callable that made bytes: how long their URL may live


_ASKING: contextvars.ContextVar[_Asking | None] = contextvars.ContextVar("deferred_download_request", default=None)
_INSTALL_LOCK = threading.Lock()
_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}


def _install() -> None:
    """Make the asking session's id known to deferred callables, and keep their answers through a
    run's start (once per process)."""
    from streamlit.runtime.backend_operation_handler import DeferredFileHandler

    with _INSTALL_LOCK:
        if getattr(DeferredFileHandler.handle, "_tells_session", False):
            return
        _keep_answers_through_a_run_start()
        original = DeferredFileHandler.handle

        @functools.wraps(original)
        async def handle(self, request, session_id):
            asking = _Asking(session_id)
            token = _ASKING.set(asking)
            try:
                response = await original(self, request, session_id)
            finally:
                _ASKING.reset(token)
            url = response.deferred_file.url if response.HasField("deferred_file") else ""
            if asking.lifetime_s and url:
                remember_export(session_id, url.rsplit("/", 1)[-1].split(".", 1)[0], asking.lifetime_s)
            return response

        handle._tells_session = True  # type: ignore[attr-defined]  # a marker on the wrapper: install once
        DeferredFileHandler.handle = handle  # type: ignore[method-assign]  # wrapping Streamlit's handler is the point


def _keep_answers_through_a_run_start() -> None:
    """A deferred file's answer (its URL, or its refusal) survives the start of a script run.

    Streamlit queues that answer for the browser like any message, and a whole-page run that starts
    before the queue is sent clears it of everything but lifecycle messages: the answer was lost, the
    browser waited for it (three minutes) and no file came. A loaded server, where the queue waits
    longest, lost one so. Nothing in the answer belongs to the run that starts, so it is kept."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    original = ForwardMsgQueue.clear

    @functools.wraps(original)
    def clear(self, retain_lifecycle_msgs: bool = False, fragment_ids_this_run: list[str] | None = None) -> None:
        answers = [m for m in self._queue if m.WhichOneof("type") == "backend_operation_response"]
        original(self, retain_lifecycle_msgs, fragment_ids_this_run)
        if retain_lifecycle_msgs:  # a run starts; a clear without it is a flush, which sent them
            self._queue.extend(m for m in answers if not any(m is kept for kept in self._queue))

    ForwardMsgQueue.clear = clear  # type: ignore[method-assign]  # keeping what Streamlit drops is the point


def session_principal(settings: Settings, session_id: str) -> Principal | None:
    """Who is signed in to the active session `session_id` now, from its current connection;
    None when the session is gone or nobody is signed in to it."""
    from streamlit import runtime
    from streamlit.runtime.context import StreamlitHeaders

    if not runtime.exists():
        return None
    instance = runtime.get_instance()
    client = instance.get_client(session_id)
    info = instance._session_mgr.get_active_session_info(session_id)
    if client is None or info is None:
        return None
    context = client.client_context
    headers = StreamlitHeaders(context.headers if context is not None else [])
    user_info = dict(getattr(info.session, "_user_info", None) or {})
    principal, _ = auth.resolve(settings, user_info=user_info, headers=headers)
    return principal


def bound(
    produce: Callable[[Principal], bytes | str], settings: Settings, principal: Principal, what: str
) -> Callable[[], bytes | str]:
    """The deferred callable: `produce(principal now)`, for the drawing session and principal only."""
    _install()
    drawn_in, drawn_for = current_session_id(), auth.principal_key(principal)

    def on_click() -> bytes | str:
        request = _ASKING.get()
        asking = request.session_id if request is not None else None
        if drawn_in is None or asking != drawn_in:
            log.warning("download of %s refused: asked from another session than the one that showed it", what)
            raise AccessDenied("This download belongs to another session; open the page again.")
        now = session_principal(settings, asking)
        if now is None or auth.principal_key(now) != drawn_for:
            log.warning("download of %s refused: the session's signed-in user changed", what)
            raise AccessDenied("This download was shown to another user; open the page again.")
        data = produce(now)
        # the ignore below: set while a request is served
        request.lifetime_s = settings.audit.export_url_lifetime_s  # type: ignore[union-attr]
        return data

    return on_click


def download(
    label: str,
    produce: Callable[[Principal], bytes | str],
    file_name: str,
    mime: str,
    *,
    key: str,
    settings: Settings,
    principal: Principal,
    container: Any = None,
    **options: Any,
) -> None:
    """A deferred `st.download_button` (in `container` when given) whose bytes are `produce(principal)`,
    made on click only, and only for this session and its signed-in principal (see `bound`)."""
    target = container if container is not None else st
    # on_click="ignore": a click runs no script. A run started by the click raced the file's answer
    # (see `_keep_answers_through_a_run_start`), and the page has nothing to redraw for a download.
    target.download_button(
        label, bound(produce, settings, principal, key), file_name, mime, key=key, on_click="ignore", **options
    )


def inline_image(path: Path, caption: str, width: int = 480) -> None:
    """An image (a figure crop `rag_core` checked) inside the page's websocket message as a data
    URI: no `/media` URL exists for it, so nobody can fetch it outside this session's page."""
    mime = _MIME.get(path.suffix.lower(), "image/png")
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    st.html(
        f'<img src="data:{mime};base64,{data}" alt="{html.escape(caption, quote=True)}" '
        f'style="max-width:100%;width:{int(width)}px" data-testid="inline-figure">'
    )
