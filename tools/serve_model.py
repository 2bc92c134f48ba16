"""Serve a GGUF chat model over llama.cpp's own OpenAI-compatible HTTP server, in process, without a compile.

    .venv/bin/python tools/serve_model.py [--gguf models/reader/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf]
        [--port 8080] [--ctx 4096] [--threads 1]

The `xllamacpp` wheel (installed by `make install`, with the weights) runs llama.cpp's server: streamed
`/v1/chat/completions` with usage and timings, `json_schema` grammars, the GGUF's own chat template. It
listens on 127.0.0.1 only and runs until stopped (Ctrl+C). Point the product at it with

    RAG_LLM__BASE_URL=http://127.0.0.1:8080/v1 RAG_LLM__MODEL=qwen2.5-coder-1.5b \\
    RAG_LLM__ENDPOINT_CONTEXT_TOKENS=4096 RAG_LLM__TIMEOUT_S=300 make run

One slot: requests are served one after the other. One thread: on a busy two-core machine two OpenMP
threads spin and slow generation (OMP_WAIT_POLICY=PASSIVE is set before loading).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_GGUF = REPO / "models" / "reader" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def start(gguf: Path, port: int, ctx: int, threads: int) -> object:
    """The running server (keep the object alive: dropping it stops the server)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.n_ctx = ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = -1
    params.hostnames = ["127.0.0.1"]
    params.port = port
    return xllamacpp.Server(params)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, default=DEFAULT_GGUF)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--ctx", type=int, default=4096, help="the server's context (n_ctx), in tokens")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if not args.gguf.is_file():
        print(f"no model at {args.gguf}: run `make install` (it assembles the 1.5B) or give --gguf", file=sys.stderr)
        return 2
    server = start(args.gguf, args.port, args.ctx, args.threads)
    print(f"serving {args.gguf.name} on {server.listening_address}/v1 (n_ctx {args.ctx})", flush=True)  # type: ignore[attr-defined]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
