"""API cost: search and ask latency through the real API server against the same call in-process
(p50 overhead), then N concurrent API clients asking for a while: errors, and any answer showing
a collection its user may not read (a cross-user result). Prints figures; asserts nothing.

    nice -n 10 .venv/bin/python -m benchmarks.api_overhead [--n 40] [--clients 20] [--seconds 60]

`--n 0` skips the latency pairs, `--seconds 0` the concurrent run. The library is the access
tests' (three one-page PDFs, three collections: alice reads "guides", bob none, the admin all),
built in a temp dir.

The latency calls are paired and interleaved: call i in-process, then call i through the API, the
same question, alternating which goes first. On this shared 2-core machine the query embedding
alone swings from 60 ms to over a second with the load of other processes, so timing all
in-process calls and then all API calls measures the load's drift, not the API: an unpaired run
once showed search +1.1 s. Here the in-process calls run in a worker thread, as the app's do
(Streamlit runs each page in its script thread, the API server each route in its thread pool):
on this machine a search on this script's main thread took 1.7 s at p50 against 0.2 s in a
worker thread of the same process, on the same library (the cause is not pinned down).

The figure that answers "what does the API add" is the first line of each verb: the client's time
for a call less the library call's time inside the server on that same call (the server's
`Server-Timing` header), immune to both effects. The paired end-to-end figures follow: the median
of the paired differences and, for comparison, the difference of the two p50s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rag_core import pipeline
from tests.access_support import ADMIN, ALICE, BOB, SECRET_QUERY, TOPICS, build_template, share_guides
from tests.api_support import Served, start_api, token_of

QUESTIONS = [SECRET_QUERY, "What does the Quokka reserving guide protect?", "Wombat claims handling payments"]


def ms(seconds: float) -> float:
    return seconds * 1000


def _once(fn: Callable[[int], object], i: int) -> float:
    start = time.perf_counter()
    fn(i)
    return time.perf_counter() - start


_APP_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="in-process")


def in_app_thread(fn: Callable[[int], object]) -> Callable[[int], object]:
    """`fn` run in a worker thread, as the app runs the façade (not on this script's main thread)."""
    return lambda i: _APP_THREAD.submit(fn, i).result()


def paired(inproc: Callable[[int], object], remote: Callable[[int], object], n: int) -> tuple[list[float], list[float]]:
    """n interleaved pairs, the order within a pair alternating (neither side always runs warm)."""
    a, b = [], []
    for i in range(n):
        if i % 2:
            b.append(_once(remote, i))
            a.append(_once(inproc, i))
        else:
            a.append(_once(inproc, i))
            b.append(_once(remote, i))
    return a, b


def latency(served: Served, n: int) -> None:
    lib, token = served.lib, served.tokens["alice"]
    worked: dict[str, list[float]] = {"/api/search": [], "/api/ask": []}
    added: dict[str, list[float]] = {"/api/search": [], "/api/ask": []}

    def api(path: str, body: dict) -> None:
        start = time.perf_counter()
        status, headers, _ = served.call("POST", path, token, body)
        took = time.perf_counter() - start
        assert status == 200, status
        # Server-Timing: the server's time on the call (app) and its library call's (library)
        timing = dict(part.strip().split(";dur=") for part in headers["server-timing"].split(","))
        worked[path].append(float(timing["app"]) / 1000)
        added[path].append(took - float(timing["library"]) / 1000)

    def q(i: int) -> str:
        return QUESTIONS[i % len(QUESTIONS)]

    for verb, inproc, remote in (
        (
            "search",
            in_app_thread(lambda i: pipeline.search(q(i), lib.settings, principal=ALICE)),
            lambda i: api("/api/search", {"query": q(i)}),
        ),
        (
            "ask",
            in_app_thread(lambda i: pipeline.ask(q(i), lib.settings, principal=ALICE)),
            lambda i: api("/api/ask", {"question": q(i)}),
        ),
    ):
        paired(inproc, remote, 4)  # warm both
        worked[f"/api/{verb}"].clear()
        added[f"/api/{verb}"].clear()
        a, b = paired(inproc, remote, n)
        diff = statistics.median(y - x for x, y in zip(a, b, strict=True))
        inside = worked[f"/api/{verb}"]
        outside = statistics.median(y - w for y, w in zip(b, inside, strict=True))
        print(
            f"{verb}: the API's own overhead (client's time less the library call's, same call) "
            f"p50 {ms(statistics.median(added[f'/api/{verb}'])):.1f} ms, "
            f"max {ms(max(added[f'/api/{verb}'])):.1f} ms (n={n})"
        )
        print(
            f"  in-process p50 {ms(statistics.median(a)):.1f} ms, API p50 {ms(statistics.median(b)):.1f} ms "
            f"(server at work p50 {ms(statistics.median(inside)):.1f} ms, HTTP and client p50 {ms(outside):.1f} ms); "
            f"overhead: median of paired differences {ms(diff):+.1f} ms, "
            f"difference of p50s {ms(statistics.median(b) - statistics.median(a)):+.1f} ms (n={n} pairs)"
        )


def soak(served: Served, users: dict, clients: int, seconds: float) -> None:
    """`clients` threads ask through the API for `seconds`, each as one of the users in turn."""
    readable = {name: set(pipeline.list_collections(served.lib.settings, principal=p)) for name, p in users.items()}
    unreadable = {
        name: [f"{TOPICS[c]} report".encode() for c in TOPICS if c not in readable[name]]
        + [f"{c}.pdf".encode() for c in TOPICS if c not in readable[name]]
        + [served.lib.doc_ids[c].encode() for c in TOPICS if c not in readable[name]]
        for name in users
    }
    errors: list[tuple] = []
    leaks: list[tuple] = []
    times: list[float] = []
    per_user: dict[str, int] = dict.fromkeys(users, 0)
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(k: int) -> None:
        who = list(users)[k % len(users)]
        i = 0
        while time.monotonic() < stop:
            start = time.perf_counter()
            status, _, body = served.call("POST", "/api/ask", served.tokens[who], {"question": QUESTIONS[(k + i) % 3]})
            took = time.perf_counter() - start
            i += 1
            with lock:
                times.append(took)
                per_user[who] += 1
                if status != 200:
                    errors.append((who, status, body[:200]))
                    continue
                cited = {s["collection"] for s in json.loads(body)["sources"]}
                shown = [w.decode() for w in unreadable[who] if w in body]
                if cited - readable[who] or shown:
                    leaks.append((who, sorted(cited - readable[who]), shown))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - began
    q = statistics.quantiles(times, n=20) if len(times) > 1 else [float("nan")] * 19
    print(
        f"{clients} clients for {seconds:.0f} s ({wall:.0f} s wall): {len(times)} asks "
        f"({', '.join(f'{u} {c}' for u, c in per_user.items())}), {len(times) / wall:.1f}/s, "
        f"latency p50 {ms(statistics.median(times)):.0f} ms p95 {ms(q[18]):.0f} ms; "
        f"{len(errors)} errors, {len(leaks)} cross-user results"
    )
    for e in errors[:3]:
        print("  error:", e)
    for leak in leaks[:3]:
        print("  cross-user:", leak)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="api-bench-"))
    lib = build_template(root)
    share_guides(lib)
    users = {"admin": ADMIN, "alice": ALICE, "bob": BOB}
    tokens = {name: token_of(lib, p) for name, p in users.items()}
    proc, url = start_api(lib, RAG_API__RATE_LIMIT_PER_MINUTE="100000")
    served = Served(lib, url, proc, tokens, "")
    print(f"library in {root}")
    try:
        if args.n:
            latency(served, args.n)
        if args.seconds:
            soak(served, users, args.clients, args.seconds)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
