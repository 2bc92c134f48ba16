"""A fake chat-completions endpoint: a real HTTP server on 127.0.0.1 with scripted replies, no model.

Tests script it with a queue of replies (a JSON answer, an HTTP error, a slow reply, a stream
that is slow, cut or malformed) and read back the request bodies, paths and headers it received.
LangChain and the OpenAI client talk to it over a real socket. By `family` it behaves like the
servers teams run when asked for a structured output:

- `openai`: accepts a strict `json_schema` response format, `json_object`, tools and plain text;
- `llamacpp`, `ollama`, `vllm`: reject `json_schema` with the error (status and text) that server
  returns, accept `json_object` (and plain text); tools are rejected like llama.cpp without --jinja;
  `llamacpp` replays llama-cpp-python's server as a real one behaved (0.3.16, Gemma chat format):
  `/v1/models` says `owned_by: "me"`, streams carry no usage, system messages are dropped from the
  prompt (`dropped_system` counts them), and a request that arrives while a stream runs ends that
  stream;
- `tools`: rejects every response format, accepts tool calling;
- `text`: rejects response formats and tools, answers in plain text;
- `none`: rejects every request for its format (an endpoint that none of the dialects fits).

`disconnects` counts the clients that went away before their reply was whole (seen while waiting or
writing); `most_at_once` the most requests in progress at once. A request with `"stream": true` gets
server-sent events (the content in small pieces, a usage
chunk when `stream_options.include_usage` is set, then `[DONE]`). Besides `/v1/chat/completions`
it routes Azure's two forms: `/openai/v1/chat/completions` and
`/openai/deployments/<deployment>/chat/completions?api-version=...`.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

# The errors real servers send when they do not take `response_format: json_schema`.
JSON_SCHEMA_REJECTIONS: dict[str, tuple[int, dict[str, Any]]] = {
    # llama-cpp-python's server 0.3.16 (llama_cpp/server/app.py), as the real one answered here
    "llamacpp": (
        500,
        {
            "error": {
                "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
                "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': "
                "{'expected': \"'text' or 'json_object'\"}}\n\n  File \"llama_cpp/server/app.py\", line 376, in "
                "create_chat_completion\n    POST /v1/chat/completions",
                "type": "internal_server_error",
                "param": None,
                "code": None,
            }
        },
    ),
    # Ollama's OpenAI-compatible route, relaying its format check
    "ollama": (
        500,
        {"error": {"message": "invalid JSON schema in format", "type": "api_error", "param": None, "code": None}},
    ),
    # vLLM with the xgrammar backend (backend_xgrammar.py)
    "vllm": (
        400,
        {
            "object": "error",
            "message": "The provided JSON schema contains features not supported by xgrammar.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
    ),
}
TOOLS_REJECTION = (
    500,
    {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}},
)
FORMAT_REJECTION = (
    400,
    {"error": {"message": "response_format is not supported by this server", "type": "invalid_request_error"}},
)
FAMILIES = ("openai", "llamacpp", "ollama", "vllm", "tools", "text", "none")


@dataclass
class Reply:
    """One scripted reply: `content` becomes choices[0].message.content (a str is sent as is), or the
    tool call's arguments when the request forces a tool.

    Streamed: `chunk_delay_s` between pieces of `chunk_chars` characters; `cut_after` closes the
    connection after that many pieces (no finish reason, no [DONE]); `malformed` sends a data line
    that is not JSON after the first piece."""

    content: str | dict[str, Any] | None = None
    status: int = 200
    body: dict[str, Any] | str | None = None  # raw body for error statuses
    delay_s: float = 0.0
    prompt_tokens: int = 123
    completion_tokens: int = 45
    chunk_chars: int = 12
    chunk_delay_s: float = 0.0
    cut_after: int | None = None
    malformed: bool = False
    finish_reason: str = "stop"


@dataclass
class FakeChatServer:
    family: str = "openai"
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    disconnects: int = 0
    dropped_system: int = 0
    most_at_once: int = 0
    models_delay_s: float = 0.0  # /models answers this late (llama-cpp-python's server while it evaluates a prompt)
    _running: int = 0
    _arrived: int = 0
    _count: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    @property
    def root(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def answer(self, payload: dict[str, Any], **kw: Any) -> None:
        """Queue a successful structured answer."""
        self.queue(Reply(content=payload, **kw))

    def rejection(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """The error this family returns for the request's structured-output part; None when it takes it."""
        kind = (body.get("response_format") or {}).get("type")
        if self.family == "openai":
            return None
        if self.family == "none":
            return TOOLS_REJECTION if body.get("tools") else FORMAT_REJECTION
        if body.get("tools") and self.family != "tools":
            return TOOLS_REJECTION
        if kind == "json_schema" and self.family in JSON_SCHEMA_REJECTIONS:
            return JSON_SCHEMA_REJECTIONS[self.family]
        if kind and kind != "text" and self.family in ("tools", "text"):
            return FORMAT_REJECTION
        return None

    def start(self) -> FakeChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep pytest output quiet
                pass

            def do_GET(self) -> None:  # the name http.server calls
                if urlsplit(self.path).path.rstrip("/").endswith("/models"):
                    if server.models_delay_s and server._stop.wait(server.models_delay_s):
                        return
                    owner = "me" if server.family == "llamacpp" else "openai"
                    model = {"id": "test-model", "object": "model", "owned_by": owner, "permissions": []}
                    self._send(200, {"object": "list", "data": [model]})
                    return
                self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _gone(self) -> bool:
                """Whether the client closed its end (EOF readable without blocking)."""
                try:
                    ready, _, _ = select.select([self.connection], [], [], 0)
                    return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    return True

            def _wait(self, seconds: float) -> bool:
                """Sleep `seconds`, watching the client; True when it went away (counted) or the server stops."""
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    if server._stop.wait(min(0.02, max(end - time.monotonic(), 0))):
                        return True
                    if self._gone():
                        server._disconnected()
                        return True
                return False

            def do_POST(self) -> None:  # the name http.server calls
                with server._count:
                    server._running += 1
                    server.most_at_once = max(server.most_at_once, server._running)
                try:
                    self._post()
                finally:
                    with server._count:
                        server._running -= 1

            def _post(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                server.requests.append(body)
                if server.family == "llamacpp":
                    system = [m for m in body.get("messages", []) if m.get("role") == "system"]
                    server.dropped_system += len(system)  # the Gemma chat format leaves them out of the prompt
                with server._count:
                    server._arrived += 1  # llama-cpp-python: a running stream ends when another request arrives
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                server.paths.append(self.path)
                if not urlsplit(self.path).path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                rejected = server.rejection(body)
                if rejected is not None:
                    self._send(*rejected)
                    return
                reply = (
                    server.replies.popleft()
                    if server.replies
                    else Reply(status=500, body={"error": {"message": "no scripted reply"}})
                )
                if reply.delay_s and self._wait(reply.delay_s):
                    return
                if reply.status != 200:
                    self._send(
                        reply.status, reply.body if reply.body is not None else {"error": {"message": "scripted error"}}
                    )
                    return
                content = (
                    reply.content
                    if isinstance(reply.content, str) or reply.content is None
                    else json.dumps(reply.content)
                )
                tool = (
                    ((body.get("tool_choice") or {}).get("function") or {}).get("name")
                    if isinstance(body.get("tool_choice"), dict)
                    else None
                )
                if body.get("stream"):
                    self._stream(body, reply, content, tool)
                    return
                message: dict[str, Any] = {"role": "assistant", "content": content}
                if tool:
                    message = {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": content or ""}}
                        ],
                    }
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "test-model"),
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": "tool_calls" if tool else reply.finish_reason,
                            }
                        ],
                        "usage": _usage(reply),
                    },
                )

            def _stream(self, body: dict[str, Any], reply: Reply, content: str | None, tool: str | None) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")  # the body ends when the connection does
                self.end_headers()
                self.close_connection = True
                base = {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body.get("model", "test-model"),
                }
                text = content or ""
                pieces = [text[i : i + reply.chunk_chars] for i in range(0, len(text), reply.chunk_chars)] or [""]
                mine = server._arrived
                finish = "tool_calls" if tool else reply.finish_reason
                try:
                    for n, piece in enumerate(pieces):
                        if reply.cut_after is not None and n >= reply.cut_after:
                            return  # connection closed mid-answer
                        if n and reply.chunk_delay_s and self._wait(reply.chunk_delay_s):
                            return
                        if server.family == "llamacpp" and server._arrived != mine:
                            return  # llama-cpp-python ends this stream for the newer request
                        if tool:
                            delta: dict[str, Any] = {
                                "tool_calls": [
                                    {
                                        "index": 0,
                                        "function": {"arguments": piece},
                                        **(
                                            {
                                                "id": "call_1",
                                                "type": "function",
                                                "function": {"name": tool, "arguments": piece},
                                            }
                                            if n == 0
                                            else {}
                                        ),
                                    }
                                ]
                            }
                        else:
                            delta = {"content": piece, **({"role": "assistant"} if n == 0 else {})}
                        self._event({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
                        if reply.malformed and n == 0:
                            self.wfile.write(b'data: {"choices": [{"delta": {"content": "oops"\n\n')
                            self.wfile.flush()
                    self._event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
                    if (body.get("stream_options") or {}).get("include_usage") and server.family != "llamacpp":
                        self._event({**base, "choices": [], "usage": _usage(reply)})
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                    server._disconnected()

            def _event(self, payload: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                self.wfile.flush()

            def _send(self, status: int, payload: dict[str, Any] | str) -> None:
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def _disconnected(self) -> None:
        with self._count:
            self.disconnects += 1

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
