"""Session-state keys and accessors: one Streamlit session = one conversation, never module globals."""

from __future__ import annotations

import uuid
from typing import Any

import streamlit as st

from rag_core.pipeline import ViewerTarget

CONVERSATION_ID = "conversation_id"
MESSAGES = "messages"  # list[dict]: {"role": "user", "text": str} | {"role": "assistant", "answer": Answer}
VIEWER = "viewer"  # the ViewerTarget shown, or absent
INGEST_RESULTS = "ingest_results"
UPLOAD_NONCE = "upload_nonce"  # bumped to reset the file uploader after an ingestion
SEARCH_RESULT = "search_result"
SEARCH_PREFILL = "search_prefill"  # a query handed to the Search page, searched on its next run


def conversation_id() -> str:
    if CONVERSATION_ID not in st.session_state:
        st.session_state[CONVERSATION_ID] = uuid.uuid4().hex
    return st.session_state[CONVERSATION_ID]


def new_conversation() -> None:
    st.session_state[CONVERSATION_ID] = uuid.uuid4().hex
    st.session_state[MESSAGES] = []
    st.session_state.pop(VIEWER, None)


CONVERSATION_PARAM = "c"  # the conversation in the Ask page's address: a reload reopens that one


def clean_conversation_id(value: str) -> str:
    return "".join(ch for ch in value if ch.isalnum() or ch in "-_")[:64]


def open_conversation(answers: list[Any], conversation: str) -> None:
    """Show `conversation` with its stored `answers` (each with its question), the viewer closed."""
    st.session_state[CONVERSATION_ID] = conversation
    st.session_state[MESSAGES] = [
        message
        for answer in answers
        for message in ({"role": "user", "text": answer.question}, {"role": "assistant", "answer": answer})
    ]
    st.session_state.pop(VIEWER, None)


def needs_restoring() -> bool:
    """True on the Ask page's first run in a browser session (a reload or a new tab): no conversation yet."""
    return CONVERSATION_ID not in st.session_state


def wanted_conversation() -> str:
    """The conversation named in the address, cleaned ('' when none)."""
    return clean_conversation_id(str(st.query_params.get(CONVERSATION_PARAM, "")))


def show_conversation_in_address() -> None:
    if st.query_params.get(CONVERSATION_PARAM) != conversation_id():
        st.query_params[CONVERSATION_PARAM] = conversation_id()


def messages() -> list[dict[str, Any]]:
    return st.session_state.setdefault(MESSAGES, [])


def open_viewer(target: ViewerTarget) -> None:
    """Button callback: remember what the viewer must show on the next run."""
    st.session_state[VIEWER] = target


def close_viewer() -> None:
    st.session_state.pop(VIEWER, None)


def shown_target() -> ViewerTarget | None:
    """What the viewer shows now (None: closed)."""
    target = st.session_state.get(VIEWER)
    return target if isinstance(target, ViewerTarget) else None


def upload_nonce() -> int:
    return st.session_state.setdefault(UPLOAD_NONCE, 0)


def bump_upload_nonce() -> None:
    st.session_state[UPLOAD_NONCE] = upload_nonce() + 1


FLASH = "flash"  # messages set in callbacks, shown once on the next run


def flash(kind: str, text: str) -> None:
    st.session_state.setdefault(FLASH, []).append((kind, text))


def pop_flash() -> list[tuple[str, str]]:
    return st.session_state.pop(FLASH, [])
