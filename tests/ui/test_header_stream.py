"""Header mode against a real `streamlit run app.py` on 127.0.0.1, through a raw websocket client
(`websockets` + `streamlit.proto`) that presents whatever headers a proxy or a client could send:
an identity header sent twice is refused with the sign-in screen's reason, and a group whose
name holds a comma stays whole with another separator. The control run sends each header once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from tests.ui.browser_support import start_app, stop_app

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "header-stream"
_DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


def drawn(url: str, headers: list[tuple[str, str]]) -> str:
    """Everything the home page draws for one websocket session with these request headers."""
    ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
    # the ignore below: websockets types subprotocols as its Subprotocol NewType
    with connect(
        ws_url,
        additional_headers=headers,
        subprotocols=["streamlit", "no-xsrf-token"],  # type: ignore[list-item]
        open_timeout=60,
        max_size=None,
    ) as ws:
        back = BackMsg()
        back.rerun_script.query_string = ""
        back.rerun_script.page_name = ""
        ws.send(back.SerializeToString())
        elements = []
        while True:
            msg = ForwardMsg.FromString(ws.recv(timeout=120))
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                elements.append(text_format.MessageToString(msg.delta.new_element, as_utf8=True))
            if kind == "script_finished" and msg.script_finished in _DONE:
                return "\n".join(elements)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("header-stream") / "data"
    env = {"RAG_AUTH__MODE": "header", "RAG_AUTH__TRUST_PROXY_HEADERS": "true", "RAG_AUTH__GROUPS_SEPARATOR": "|"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    proc, url = start_app(data, ARTIFACTS / "streamlit.log", env=env)
    try:
        yield url
    finally:
        stop_app(proc)


def test_one_value_of_each_identity_header_signs_in(app: str) -> None:
    text = drawn(app, [("X-Forwarded-Email", "alice@example.org"), ("X-Forwarded-Groups", "Finance, board|staff")])
    assert "Connecté : alice@example.org (groupes : Finance, board, staff)" in text.replace("\\", "")


@pytest.mark.parametrize("twice", ["X-Forwarded-Email", "X-Forwarded-Groups"])
def test_an_identity_header_sent_twice_signs_nobody_in(app: str, twice: str) -> None:
    headers = [
        ("X-Forwarded-Email", "alice@example.org"),
        ("X-Forwarded-Groups", "staff"),
        (twice, "mallory@example.org" if twice == "X-Forwarded-Email" else "board"),
    ]
    text = drawn(app, headers).replace("\\", "")
    assert "plusieurs fois un en-tête d'identité" in text
    assert "Connecté" not in text and "alice@example.org" not in text
    log = (ARTIFACTS / "streamlit.log").read_text()
    assert "mallory" not in log and "alice@example.org" not in log  # the refusal is logged without values
