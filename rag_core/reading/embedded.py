"""The embedded reader: a GGUF model run in the app process by llama.cpp (the `xllamacpp` wheel, no compile).

The file is checked before it is loaded: present, and of the configured SHA-256 (once per process); a
missing file or a wrong checksum is a `BackendUnavailable` that says what to do, never a silent fallback.
One server with one slot: calls are serialised, and the slot's cache keeps the prompt's prefix (the
instructions and the question) from one candidate to the next. OpenMP threads wait passively, since
spinning threads on a busy two-core machine slow generation tenfold.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag_core.config import Settings
from rag_core.errors import BackendUnavailable
from rag_core.library import sha256_file
from rag_core.reading.base import ASK, COPY, messages, register, yes_share

TOP_LOGPROBS = 10
COPY_TOKENS = 48


def check_weights(path: Path, sha256: str | None) -> None:
    """The reader's GGUF file is there and, when a checksum is configured, has it."""
    if not path.is_file():
        raise BackendUnavailable.of("backend.reader_weights", path=path)
    if sha256 and sha256_file(path) != sha256.lower():
        raise BackendUnavailable.of("backend.reader_checksum", path=path, expected=sha256[:12])


class EmbeddedReader:
    name = "embedded"

    def __init__(self, settings: Settings) -> None:
        r = settings.reader
        check_weights(r.gguf, r.sha256)
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import xllamacpp
        except ImportError as exc:
            raise BackendUnavailable.of("backend.reader_package") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(r.gguf)
        params.n_ctx = r.context_tokens
        params.n_parallel = 1
        params.cpuparams.n_threads = r.threads
        params.cpuparams_batch.n_threads = r.threads
        params.warmup = False
        params.verbosity = -1
        self._server = xllamacpp.Server(params)
        self._lock = threading.Lock()
        self.model = r.gguf.name

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            reply = self._server.handle_chat_completions({**body, "temperature": 0, "cache_prompt": True})
        if not isinstance(reply, dict) or "choices" not in reply:
            raise BackendUnavailable.of("backend.reader_failed", detail=str(reply)[:200])
        return reply

    def judge(self, question: str, passages: Sequence[str], language: str) -> list[float]:
        out = []
        for passage in passages:
            reply = self._call(
                {
                    "messages": messages(ASK, question, passage, language),
                    "max_tokens": 1,
                    "logprobs": True,
                    "top_logprobs": TOP_LOGPROBS,
                }
            )
            content = (reply["choices"][0].get("logprobs") or {}).get("content") or [{}]
            top = [(t["token"], math.exp(t["logprob"])) for t in content[0].get("top_logprobs", [])]
            out.append(yes_share(top))
        return out

    def copy(self, question: str, passage: str, language: str) -> str:
        reply = self._call({"messages": messages(COPY, question, passage, language), "max_tokens": COPY_TOKENS})
        return str(reply["choices"][0]["message"].get("content") or "").strip()


register("embedded", EmbeddedReader)
