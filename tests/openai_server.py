"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol.

Tests script it with a queue of replies (a JSON answer, an HTTP error, a slow reply) and
read back the request bodies it received. It is a test helper, not a fake of our code:
LangChain and the OpenAI client talk to it over a real socket.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted reply: `content` becomes choices[0].message.content (a str is sent as is)."""

    content: str | dict[str, Any] | None = None
    status: int = 200
    body: dict[str, Any] | str | None = None  # raw body for error statuses
    delay_s: float = 0.0
    prompt_tokens: int = 123
    completion_tokens: int = 45


@dataclass
class ChatServer:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    _httpd: ThreadingHTTPServer | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def answer(self, payload: dict[str, Any], **kw: Any) -> None:
        """Queue a successful structured answer."""
        self.queue(Reply(content=payload, **kw))

    def start(self) -> ChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = server.replies.popleft() if server.replies else Reply(status=500, body={"error": {"message": "no scripted reply"}})
                if reply.delay_s and server._stop.wait(reply.delay_s):
                    return
                if reply.status != 200:
                    self._send(reply.status, reply.body if reply.body is not None else {"error": {"message": "scripted error"}})
                    return
                content = reply.content if isinstance(reply.content, str) or reply.content is None else json.dumps(reply.content)
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
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                        },
                    },
                )

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

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
