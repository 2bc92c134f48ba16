"""A raw client of Streamlit's websocket (`/_stcore/stream`), for the access tests: what any program
can send without a browser. Streamlit's protocol is protobuf over the websocket: the client sends
`BackMsg`s (a script run with its widget values, a deferred-file request) and receives
`ForwardMsg`s (the session id, the elements drawn, the end of the run, the answer to a request).

The client can present its own request headers (header mode's identity) and resume an existing
session id (the third `Sec-WebSocket-Protocol` entry, as the browser does on reconnect). It
decodes what the page drew well enough to find widgets by label, download buttons, image URLs.
"""

from __future__ import annotations

import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect

_DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


class StreamClient:
    """One websocket session; `run(page)` runs a page and keeps the elements it drew."""

    def __init__(
        self, url: str, headers: dict[str, str] | None = None, resume: str | None = None, timeout_s: float = 120
    ) -> None:
        ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        # entries: the subprotocol, an XSRF token (none: no cookie is read), the session to resume
        protocols = ["streamlit", "no-xsrf-token"] + ([resume] if resume else [])
        # the ignore below: websockets types subprotocols as its Subprotocol NewType
        self.ws = connect(
            ws_url,
            additional_headers=headers or {},
            subprotocols=protocols,  # type: ignore[arg-type]
            open_timeout=timeout_s,
            max_size=None,
        )
        self.timeout_s = timeout_s
        self.session_id = ""
        self.elements: list[Any] = []
        self.seen: list[Any] = []  # every element drawn since the connection opened, all runs together
        self.responses: dict[str, Any] = {}

    def close(self) -> None:
        self.ws.close()

    def __enter__(self) -> StreamClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _receive(self) -> ForwardMsg:
        msg = ForwardMsg.FromString(self.ws.recv(timeout=self.timeout_s))
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.session_id = msg.new_session.initialize.session_id
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self.elements.append(msg.delta.new_element)
            self.seen.append(msg.delta.new_element)
        elif kind == "backend_operation_response":
            self.responses[msg.backend_operation_response.request_id] = msg.backend_operation_response
        return msg

    def run(self, page: str = "", widgets: list[WidgetState] | None = None) -> StreamClient:
        """Run `page` (its url path; "" the home page) with these widget values, until the run ends."""
        self.elements = []
        back = BackMsg()
        back.rerun_script.query_string = ""
        back.rerun_script.page_name = page
        back.rerun_script.widget_states.widgets.extend(widgets or [])
        self.ws.send(back.SerializeToString())
        while True:
            msg = self._receive()
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished in _DONE:
                return self

    def request_file(self, file_id: str) -> Any:
        """A deferred download's bytes asked for, as this session: the `BackendOperationResponse`."""
        request_id = uuid.uuid4().hex
        back = BackMsg()
        back.backend_operation_request.request_id = request_id
        back.backend_operation_request.session_id = self.session_id
        back.backend_operation_request.deferred_file.file_id = file_id
        self.ws.send(back.SerializeToString())
        while request_id not in self.responses:
            self._receive()
        return self.responses.pop(request_id)

    # ---- what the last run drew
    def of_kind(self, kind: str) -> Iterator[Any]:
        return (getattr(e, kind) for e in self.elements if e.WhichOneof("type") == kind)

    def text(self) -> str:
        """Everything the last run drew, as protobuf text (labels, values, markdown, data)."""
        return "\n".join(str(e) for e in self.elements)

    def downloads(self) -> dict[str, str]:
        """Download buttons: label -> deferred file id."""
        return {b.label: b.deferred_file_id for b in self.of_kind("download_button")}

    def media_urls(self, every_run: bool = False) -> list[str]:
        """Every `/media/...` URL the last run's elements name (with `every_run`, all runs' elements)."""
        text = "\n".join(str(e) for e in self.seen) if every_run else self.text()
        return sorted({part.split('"')[0] for part in text.split("/media/")[1:]})

    def widget_id(self, kind: str, label: str) -> str:
        return next(w.id for w in self.of_kind(kind) if w.label == label)


def text_value(widget_id: str, value: str) -> WidgetState:
    return WidgetState(id=widget_id, string_value=value)


def trigger(widget_id: str) -> WidgetState:
    return WidgetState(id=widget_id, trigger_value=True)


def fetch(url: str) -> tuple[int, bytes]:
    """GET `url` with no cookie and no identity header: (status, body)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, b""


# ---- the same protocol inside a browser page (Playwright)
class PageStream:
    """A Playwright page's Streamlit websocket, seen and driven from the test: every ForwardMsg the
    server sends is decoded (`elements`, `session_id`, `responses`), and `request_file` sends a
    deferred-file request on the page's own connection, as its own session (what a user of that
    browser could do from the developer console). Call before the page's first `goto`."""

    def __init__(self, page) -> None:
        import re

        self.page = page
        self.session_id = ""
        self.elements: list[Any] = []
        self.responses: dict[str, Any] = {}
        self._server = None
        page.route_web_socket(re.compile(r".*/_stcore/stream$"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self._server = server
        ws.on_message(lambda message: server.send(message))
        server.on_message(lambda message: (self._seen(message), ws.send(message)))

    def _seen(self, payload: str | bytes) -> None:
        if isinstance(payload, str):
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.session_id = msg.new_session.initialize.session_id
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self.elements.append(msg.delta.new_element)
        elif kind == "backend_operation_response":
            self.responses[msg.backend_operation_response.request_id] = msg.backend_operation_response

    def downloads(self) -> dict[str, str]:
        return {
            e.download_button.label: e.download_button.deferred_file_id
            for e in self.elements
            if e.WhichOneof("type") == "download_button"
        }

    def request_file(self, file_id: str, timeout_ms: int = 60_000) -> Any:
        request_id = uuid.uuid4().hex
        back = BackMsg()
        back.backend_operation_request.request_id = request_id
        back.backend_operation_request.session_id = self.session_id
        back.backend_operation_request.deferred_file.file_id = file_id
        assert self._server is not None, "the page has no Streamlit websocket yet"
        self._server.send(back.SerializeToString())
        waited = 0
        while request_id not in self.responses:
            assert waited < timeout_ms, "no answer to the deferred-file request"
            self.page.wait_for_timeout(50)  # lets Playwright deliver the frames
            waited += 50
        return self.responses.pop(request_id)
