"""API cost: search and ask latency through the real API server against the same call in-process
(p50 overhead), then N concurrent API clients asking for a while: errors, and any answer citing a
collection its user may not read (a cross-user result). Prints figures; asserts nothing.

    nice -n 10 .venv/bin/python benchmarks/api_overhead.py [--n 30] [--clients 20] [--seconds 60]

The library is the access tests' (three one-page PDFs, three collections), built in a temp dir.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag_core import pipeline  # noqa: E402
from tests.access_support import ADMIN, ALICE, BOB, SECRET_QUERY, build_template, share_guides  # noqa: E402
from tests.api_support import Served, start_api, token_of  # noqa: E402

QUESTIONS = [SECRET_QUERY, "What does the Quokka reserving guide protect?", "Wombat claims handling payments"]


def p50(values: list[float]) -> float:
    return statistics.median(values) * 1000


def timed(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        start = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="api-bench-"))
    lib = build_template(root)
    share_guides(lib)
    users = {"admin": ADMIN, "alice": ALICE, "bob": BOB}
    readable = {name: set(pipeline.list_collections(lib.settings, principal=p)) for name, p in users.items()}
    tokens = {name: token_of(lib, p) for name, p in users.items()}
    proc, url = start_api(lib, RAG_API__RATE_LIMIT_PER_MINUTE="100000")
    served = Served(lib, url, proc, tokens, "")
    try:
        q = lambda i: QUESTIONS[i % len(QUESTIONS)]  # noqa: E731
        for verb, inproc, remote in (
            (
                "search",
                lambda i: pipeline.search(q(i), lib.settings, principal=ALICE),
                lambda i: served.call("POST", "/api/search", tokens["alice"], {"query": q(i)}),
            ),
            (
                "ask",
                lambda i: pipeline.ask(q(i), lib.settings, principal=ALICE),
                lambda i: served.call("POST", "/api/ask", tokens["alice"], {"question": q(i)}),
            ),
        ):
            timed(inproc, 3), timed(remote, 3)  # warm both
            a, b = p50(timed(inproc, args.n)), p50(timed(remote, args.n))
            print(f"{verb}: in-process p50 {a:.1f} ms, API p50 {b:.1f} ms, overhead {b - a:.1f} ms (n={args.n})")
        errors, leaks, calls = [], [], [0]
        lock = threading.Lock()
        stop = time.monotonic() + args.seconds

        def client(k: int) -> None:
            who = list(users)[k % len(users)]
            i = 0
            while time.monotonic() < stop:
                status, _, body = served.call("POST", "/api/ask", tokens[who], {"question": q(k + i)})
                i += 1
                with lock:
                    calls[0] += 1
                    if status != 200:
                        errors.append((who, status, body[:200]))
                        continue
                    cited = {s["collection"] for s in json.loads(body)["sources"]}
                    if cited - readable[who]:
                        leaks.append((who, sorted(cited - readable[who])))

        threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(
            f"{args.clients} clients for {args.seconds:.0f} s: {calls[0]} asks, {len(errors)} errors, "
            f"{len(leaks)} cross-user results"
        )
        for e in errors[:3]:
            print("  error:", e)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
