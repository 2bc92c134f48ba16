"""An OpenAI-compatible chat endpoint: `GET /v1/models` (one model per collection scope) and
`POST /v1/chat/completions` (streamed and not), so any OpenAI client can ask the library.

The model `library` searches every collection the caller may read; `library/<collection>` only
that one. The last user message is the question; the earlier user and assistant messages are
the conversation, which a follow-up is rewritten from as on the Ask page (an assistant message
is read without its citation markers and its "Sources" block). The answer's
text carries numbered markers `[1]`, `[2]`... after each paragraph, and ends with a "Sources"
block listing each number's document and page, so a client that shows only text still shows
the citations. The structured citations are in the extension field `citations` of the response
(and of the last chunk when streamed): number, source id, document id, file name, collection,
pages, label, highlight boxes, the paragraph's quote and `links` (the page as a highlighted image,
the cited pages as a PDF: GET them with the same token); `standalone_question` is the follow-up
as it was understood (empty when it stood alone). Streaming sends the verified answer
paragraph by paragraph once it is checked: no unverified draft ever reaches the client.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import StreamingResponse

from rag_core import pipeline
from rag_core.api import schemas
from rag_core.api.citations import request_base, with_links
from rag_core.api.errors import stream_error
from rag_core.api.security import Caller
from rag_core.errors import InputError, NotFoundError
from rag_core.models import Answer

router = APIRouter(prefix="/v1", tags=["openai-compatible"])
ALL = "library"


def caller(request: Request) -> Caller:
    return request.app.state.authenticate(request, "api")


CallerDep = Annotated[Caller, Depends(caller)]


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens...: accepted, not used
    model: str = ALL
    messages: list[Message] = Field(min_length=1)
    stream: bool = False
    user: str | None = None


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if part.get("type") == "text")
    return content or ""


@router.get("/models")
def models(who: CallerDep, request: Request) -> dict[str, Any]:
    names = pipeline.LibraryClient(request.app.state.settings, who.principal).list_collections()
    ids = [ALL] + [f"{ALL}/{name}" for name in names]
    return {"object": "list", "data": [{"id": i, "object": "model", "created": 0, "owned_by": "library"} for i in ids]}


def _collections(model: str, settings: Any, who: Caller) -> list[str] | None:
    if model == ALL:
        return None
    name = model.removeprefix(f"{ALL}/")
    if (
        not model.startswith(f"{ALL}/")
        or name not in pipeline.LibraryClient(settings, who.principal).list_collections()
    ):
        raise NotFoundError(f"There is no model '{model}' you may use; GET /v1/models lists yours.")
    return [name]


def citations(answer: Answer) -> list[dict[str, Any]]:
    """The answer's cited sources, numbered in the order the paragraphs first cite them."""
    by_id = {s.id: s for s in answer.sources}
    numbered: dict[str, dict[str, Any]] = {}
    for paragraph in answer.paragraphs:
        for sid in paragraph.source_ids:
            if sid in by_id and sid not in numbered:
                s = by_id[sid]
                numbered[sid] = {
                    "number": len(numbered) + 1,
                    "source_id": s.id,
                    "doc_id": s.doc_id,
                    "file_name": s.file_name,
                    "collection": s.collection,
                    "pages": s.pages,
                    "label": s.label,
                    "quote": paragraph.quote,
                    "boxes": [b.model_dump(mode="json") for b in s.boxes],
                }
    return list(numbered.values())


def paragraphs_text(answer: Answer, cites: list[dict[str, Any]]) -> list[str]:
    """Each paragraph with its markers; a refusal or a reply without paragraphs as its message."""
    number = {c["source_id"]: c["number"] for c in cites}
    parts = []
    for paragraph in answer.paragraphs:
        marks = "".join(f"[{number[s]}]" for s in dict.fromkeys(paragraph.source_ids) if s in number)
        parts.append(f"{paragraph.text} {marks}".rstrip())
    if answer.missing_information and (answer.mode in ("refused", "greeting") or not parts):
        parts.append(answer.missing_information)
    return parts


def sources_block(cites: list[dict[str, Any]]) -> str:
    if not cites:
        return ""
    lines = [f"[{c['number']}] {c['file_name']}, p. {', '.join(map(str, c['pages']))} ({c['label']})" for c in cites]
    return "Sources:\n" + "\n".join(lines)


_MARKERS = re.compile(r"\s*\[\d+\]")


def conversation(messages: list[Message]) -> list[tuple[Literal["user", "assistant"], str]]:
    """The earlier user and assistant turns, oldest first, as the follow-up rewrite reads them."""
    turns: list[tuple[Literal["user", "assistant"], str]] = []
    for m in messages:
        text = _text(m.content).strip()
        if m.role == "assistant":
            text = _MARKERS.sub("", text.split("\n\nSources:\n")[0]).strip()
            turns.append(("assistant", text))
        elif m.role == "user" and text:
            turns.append(("user", text))
    return turns


def _completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


@router.post("/chat/completions", response_model=None, responses=schemas.ok(schemas.ChatCompletion))
def chat(body: ChatRequest, who: CallerDep, request: Request) -> dict[str, Any] | StreamingResponse:
    settings = request.app.state.settings
    last = next((i for i in range(len(body.messages) - 1, -1, -1) if body.messages[i].role == "user"), None)
    if last is None:
        raise InputError("The messages hold no user message to answer.")
    question = _text(body.messages[last].content)  # checked by the façade before any work, as on every channel
    collections = _collections(body.model, settings, who)
    history = conversation(body.messages[:last])
    stream = pipeline.LibraryClient(settings, who.principal).ask_stream(question, None, collections, history=history)
    if body.stream:
        return StreamingResponse(_chunks(stream, body.model, request_base(request)), media_type="text/event-stream")
    answer = stream.result()
    cites = with_links(citations(answer), request_base(request))
    text = "\n\n".join([*paragraphs_text(answer, cites), sources_block(cites)]).strip()
    return {
        "id": _completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop", "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "total_tokens": answer.prompt_tokens + answer.completion_tokens,
        },
        "citations": cites,
        "answer_mode": answer.mode,
        "standalone_question": answer.standalone_question,
    }


def _chunks(stream: Iterable[pipeline.Event], model: str, base: str) -> Iterator[str]:
    cid, created = _completion_id(), int(time.time())

    def chunk(delta: dict[str, Any], finish: Literal["stop"] | None = None, **extra: Any) -> str:
        data = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
            **extra,
        }
        return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    try:
        yield from _answer_chunks(stream, chunk, base)
    except Exception as err:  # an error event the OpenAI clients raise (APIError), then the stream's proper end
        yield f"data: {json.dumps(stream_error(err), ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"


def _answer_chunks(stream: Iterable[pipeline.Event], chunk: Any, base: str) -> Iterator[str]:
    end = next(e for e in stream if isinstance(e, pipeline.Done | pipeline.Failed))
    if isinstance(end, pipeline.Failed):
        raise end.error
    answer = end.answer
    cites = with_links(citations(answer), base)
    parts = paragraphs_text(answer, cites)
    for i, part in enumerate(parts):
        yield chunk({"content": ("\n\n" if i else "") + part})
    block = sources_block(cites)
    yield chunk(
        {"content": "\n\n" + block if block else ""},
        "stop",
        citations=cites,
        answer_mode=answer.mode,
        standalone_question=answer.standalone_question,
    )
