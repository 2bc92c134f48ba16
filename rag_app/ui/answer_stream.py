"""The Ask page's answer while the model writes it: drafts, marks per paragraph, a stop button, its cost.

`stream_answer` shows the façade's typed events (`pipeline.ask_stream`): the paragraph being written
as a grey draft, then each completed paragraph with its verification mark and number marks as
soon as `rag_core` has checked it. The final, fully verified answer replaces all of it (the page
renders it with its usual widgets). A click on the stop button reruns the page, which ends the
run at its next event: the paragraphs verified before it are kept (the stream's `stop`) and handed
to `keep` like a final answer; a `Failed` event is shown as the error it carries. Streamlit starts
the new run at once, in another thread, while the stopped one is still unwinding: `await_stopped`
makes the new run wait for that hand-over.
`answer_cost` shows tokens, dialect and times of an answer. This module decides nothing about
verification and stores nothing itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import streamlit as st

from rag_app.ui.i18n import t, user_message
from rag_app.ui.markdown import escape_md
from rag_app.ui.number_marks import marked_text
from rag_core.errors import RagError
from rag_core.models import Answer
from rag_core.pipeline import Checked, Done, Draft, Failed, Queued

log = logging.getLogger(__name__)
STOP_REQUESTED, HANDOFF = "ask_stop_requested", "ask_stream_handoff"


def _request_stop() -> None:
    st.session_state[STOP_REQUESTED] = True


def await_stopped(timeout_s: float = 30.0) -> None:
    """After a stop click: wait until the stopped run has kept its verified paragraphs (at most `timeout_s`;
    the answer is stored in the conversation either way)."""
    if st.session_state.pop(STOP_REQUESTED, False):
        handoff = st.session_state.get(HANDOFF)
        if handoff is not None:
            handoff.wait(timeout_s)


def _show_checked(slot: Any, event: Checked) -> None:
    with slot.container():
        if event.paragraph is None:
            st.caption(escape_md(t("stream.removed", reason=event.dropped)))
            return
        st.markdown(marked_text(event.paragraph))
        supported = event.paragraph.status == "supported"
        st.badge(
            t("stream.checked") if supported else t("stream.partial"),
            color="green" if supported else "orange",
            icon=":material/check_circle:" if supported else ":material/warning:",
        )


def stream_answer(stream: Any, keep: Callable[[Answer], None]) -> Answer | None:
    """Show `stream` (the façade's `ask_stream`) as it is written; the answer kept (None after an error shown)."""
    board = st.empty()
    kept: Answer | None = None
    failed = False
    error: RagError | None = None
    handoff = st.session_state[HANDOFF] = threading.Event()
    try:
        with board.container(), st.spinner(t("ask.thinking")):
            st.button(t("stream.stop"), key="ask_stop", icon=":material/stop_circle:", on_click=_request_stop)
            slots: dict[int, Any] = {}
            queue = st.empty()
            for event in stream:
                if isinstance(event, Done):
                    kept = event.answer
                    break
                if isinstance(event, Failed):
                    error = event.error
                    break
                if not isinstance(event, (Draft, Checked, Queued)):
                    continue  # searching: the spinner says so
                if isinstance(event, Queued):
                    queue.info(t("stream.queued", n=event.position), icon=":material/hourglass_top:")
                    continue
                queue.empty()
                if event.index not in slots:
                    if not slots:
                        st.caption(t("stream.final"), help=t("stream.draft"))
                    slots[event.index] = st.empty()
                if isinstance(event, Draft):
                    slots[event.index].caption(escape_md(event.text) + " ▌")
                elif isinstance(event, Checked):
                    _show_checked(slots[event.index], event)
        if error is not None:  # shown outside the board, which is emptied below
            failed = True
            st.error(escape_md(user_message(error)))
    except Exception:
        failed = True
        log.exception("the answer stream failed")
        st.error(t("error.generic"))
    finally:  # also when a stop click (a rerun) interrupts the loop: keep what was verified
        if kept is None and not failed:
            try:
                kept = stream.stop()
            except Exception:  # the stop must not hide why the run ended
                log.exception("stopping the answer stream failed")
        if kept is not None:
            keep(kept)
        handoff.set()
    board.empty()
    return kept


def answer_cost(answer: Answer) -> None:
    """Tokens in and out (the endpoint's count), the structured-output dialect, time to first paragraph and in all."""
    if answer.mode not in ("llm", "extractive") or not (answer.prompt_tokens or answer.completion_tokens):
        return
    text = t(
        "stream.cost",
        prompt=answer.prompt_tokens,
        completion=answer.completion_tokens,
        dialect=answer.dialect or "—",
        first=answer.first_paragraph_s,
        total=answer.elapsed_s,
    )
    if answer.tokens_estimated:
        text += t("stream.estimated")
    if answer.check_prompt_tokens:
        text += t("stream.cost_check", prompt=answer.check_prompt_tokens, completion=answer.check_completion_tokens)
    st.caption(text)
