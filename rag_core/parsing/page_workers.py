"""Run page batches in the calling process and in spawned helper processes; results in batch order.

PyMuPDF's layout analysis runs its ONNX models on one thread per process (`layout_runtime`),
so on a 2-core machine one process leaves a core idle. Here the calling process takes
batches from the front of the list while each helper (fed by a thread of this process that
only waits) takes them from the back, until none is left: long OCR batches balance
themselves. The results come back in batch order, so the document built from them is the
same as the one a single process builds (tests/integration/test_parsing_workers.py checks it on
corpus PDFs).

Helpers are started with the **spawn** method only (a process forked after lancedb was
loaded hangs, NOTES.md) without re-running a `__main__` script (a Streamlit page), once per
process, and kept for later documents: starting one costs
about 3.5 s of CPU (imports and the layout models), so a short document does not start them
(`MIN_PAGES_TO_START`) but uses them when they already run. A helper that dies or fails
hands its batch back to the calling process, which then finishes the document alone.
A helper never outlives the process that started it: each watches its parent (`_watch_parent`) and
ends itself once that parent is gone, however it ended (a signal, a kill, a crash); a command
stopped by a signal ends its helpers at once (`terminate`, `rag_core.cli.main`).
This module knows nothing of PDFs: the parser passes the work.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import sys
import threading
import types
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

# Pages from which a document is worth starting the helpers: their start-up (~3.5 s of CPU,
# measured on these machines) is paid back once the calling process alone would need more
# than that, i.e. from about 8 pages at 0.45-0.6 s per page; already started helpers serve
# any document of two batches or more.
MIN_PAGES_TO_START = 8

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pool_helpers = 0
PARENT_CHECK_S = 1.0  # how often a helper looks whether the process that started it still runs


def default_workers() -> int:
    """min(2, usable cores): one layout process per core, two at most (the target machine)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def helper_pool(helpers: int, start: bool, initializer: Callable[[], Any] | None = None) -> ProcessPoolExecutor | None:
    """The running pool of `helpers` spawned processes; started only when `start` is true."""
    global _pool, _pool_helpers
    if helpers < 1:
        return None
    with _lock:
        if _pool is not None and _pool_helpers == helpers:
            return _pool
        if not start:
            return None
        if _pool is not None:
            _pool.shutdown(wait=False, cancel_futures=True)
        _pool = ProcessPoolExecutor(
            max_workers=helpers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_helper,
            initargs=(os.getpid(), initializer),
        )
        _pool_helpers = helpers
        with _main_script_not_rerun():
            for _ in range(helpers):  # each submit starts one process now, under the context
                _pool.submit(os.getpid)
        return _pool


def _init_helper(parent: int, initializer: Callable[[], Any] | None) -> None:
    """First thing in a helper: watch the parent, then the caller's own initializer."""
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    if initializer is not None:
        initializer()


def _watch_parent(parent: int) -> None:
    """End this helper once its parent is gone (it is then re-parented, so its parent pid changes).

    Without it, a helper whose parent was killed waits forever on the pool's call queue (it holds
    that pipe's writing end itself, so it never reads its end), and multiprocessing's resource
    tracker waits for that helper."""
    while os.getppid() == parent:
        threading.Event().wait(PARENT_CHECK_S)
    os._exit(0)


def terminate() -> None:
    """End the helpers now, abandoning their batches: a command stopped by a signal.

    Safe in a signal handler: it takes no lock (the interrupted code may hold `_lock`)."""
    pool = _pool
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass


@contextmanager
def _main_script_not_rerun() -> Iterator[None]:
    """While helpers start, hide a `__main__` that is a script file.

    A spawned process re-runs the parent's `__main__` file when it is a script without a
    module spec (multiprocessing's `_fixup_main_from_path`). Under Streamlit, `__main__` is
    the page being run: each helper would run the page. The functions the helpers run live
    in importable modules, so they do not need it. Module `__main__`s (`python -m rag_core`,
    pytest) are left as they are. The swap lasts for the process launches only.
    """
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None or not getattr(main, "__file__", None):
        yield
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _discard(pool: ProcessPoolExecutor) -> None:
    """Forget a pool whose process died; the next large document starts a new one."""
    global _pool, _pool_helpers
    with _lock:
        if _pool is pool:
            _pool, _pool_helpers = None, 0
    pool.shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    """Stop the helpers now (tests; they otherwise stop when the process exits)."""
    global _pool, _pool_helpers
    with _lock:
        pool, _pool, _pool_helpers = _pool, None, 0
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def run_in_order(
    tasks: Sequence[T],
    here: Callable[[T], R],
    remote: Callable[[T], R],
    pool: ProcessPoolExecutor | None,
    helpers: int,
    on_done: Callable[[int], None] | None = None,
) -> list[R]:
    """`here(task)` or `remote(task)` (picklable, run in `pool`) for every task; results in task order.

    `on_done(index)` is called in the calling thread as each task completes. An exception
    raised by `here` propagates after the helpers' current tasks have finished; a task that
    fails remotely is run here again, so its own exception (if any) propagates the same way.
    """
    results: list[Any] = [None] * len(tasks)
    if pool is None or helpers < 1 or len(tasks) < 2:
        for index, task in enumerate(tasks):
            results[index] = here(task)
            if on_done is not None:
                on_done(index)
        return results

    pending = deque(range(len(tasks)))
    lock = threading.Lock()
    stop = threading.Event()
    finished: queue.Queue[tuple[int, bool, Any]] = queue.Queue()  # (index, ok, result)

    def feed() -> None:
        while not stop.is_set():
            with lock:
                if not pending:
                    return
                index = pending.pop()  # from the back: the calling process works from the front
            try:
                result = pool.submit(remote, tasks[index]).result()
            except BaseException as err:  # a dead helper, a failing task, a replaced pool: redone here
                log.warning("page batch %d failed in a helper process (%s); redone in this process", index, err)
                if isinstance(err, BrokenProcessPool):
                    _discard(pool)
                finished.put((index, False, None))
                return
            finished.put((index, True, result))

    feeders = [threading.Thread(target=feed, name=f"page-helper-{k}", daemon=True) for k in range(helpers)]
    for feeder in feeders:
        feeder.start()
    remaining = len(tasks)
    ran_here = 0

    def collect(index: int, ok: bool, result: Any) -> None:
        nonlocal remaining
        if not ok:
            with lock:
                pending.appendleft(index)
            return
        results[index] = result
        remaining -= 1
        if on_done is not None:
            on_done(index)

    try:
        while remaining:
            with lock:
                mine = pending.popleft() if pending else None
            if mine is None:
                collect(*finished.get())
                continue
            results[mine] = here(tasks[mine])
            remaining -= 1
            ran_here += 1
            if on_done is not None:
                on_done(mine)
            while True:
                try:
                    collect(*finished.get_nowait())
                except queue.Empty:
                    break
    finally:
        stop.set()
        for feeder in feeders:
            feeder.join()
    log.debug("page batches: %d here, %d in helpers", ran_here, len(tasks) - ran_here)
    return results
