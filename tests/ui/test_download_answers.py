"""A deferred download's answer reaches the browser even when a script run starts before it is sent.

Streamlit queues the answer to a download button's file request (its URL, or its refusal) with the
run's messages, and the start of a whole-page run clears that queue of all but lifecycle messages.
A download whose answer was cleared so never came: the browser waited three minutes for it."""

from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from rag_app.ui import downloads


def _answer(request_id: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.backend_operation_response.request_id = request_id
    msg.backend_operation_response.deferred_file.url = f"/media/{request_id}.csv"
    return msg


def _drawn(body: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = [0, 0]
    msg.delta.new_element.markdown.body = body
    return msg


def test_a_file_answer_queued_before_a_run_starts_is_still_sent() -> None:
    downloads._install()
    queue = ForwardMsgQueue()
    queue.enqueue(_drawn("the run before"))
    queue.enqueue(_answer("r1"))
    queue.clear(retain_lifecycle_msgs=True)  # a whole-page run starts
    assert queue.flush() == [_answer("r1")]  # what the last run drew goes, the answer stays


def test_a_file_answer_is_sent_once_through_a_fragment_run_and_a_flush() -> None:
    downloads._install()
    queue = ForwardMsgQueue()
    queue.enqueue(_answer("r2"))
    queue.clear(retain_lifecycle_msgs=True, fragment_ids_this_run=["timer"])  # Streamlit keeps it here
    assert queue.flush() == [_answer("r2")]  # not twice
    assert queue.flush() == []  # a flush sent it: nothing is put back
