"""Imports each module named on stdin as the first module of its own layer in its process, and prints those that fail.

Run as a script by `tests/unit/test_layers.py`: `python tests/fresh_import_support.py LIB...`, the modules on
stdin in groups (one module a line, a blank line between groups), the lowest layer first. The outside
libraries named in the arguments are imported once, here, before any module of `rag_core`. Then, group after
group, each module is imported in a child forked from this process, and once all of the group's children
are done this process imports the group itself: a child of the group `k` starts with the layers below `k`
loaded and no module of layer `k` or above. That is what a fresh interpreter running `import that.module`
would find when it reaches the first module of layer `k`, because a lower layer never imports a higher one
(the layer test holds it) and each lower module was itself imported first in a child of its own group. So a
cycle through a package's `__init__` fails here exactly as in a fresh interpreter, without paying again
for the outside libraries and the layers below. At most one child per core runs at a time. A failing
child writes its traceback to stderr; the names of the failed modules go to stdout, one a line.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
import warnings


def _child(name: str) -> None:
    try:
        importlib.import_module(name)
    except BaseException:
        sys.stderr.write(f"--- {name}\n{traceback.format_exc()}")
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)


def _first_imports(names: list[str]) -> list[str]:
    """Import each name first in a forked child; the names whose import failed."""
    running: dict[int, str] = {}
    failed: list[str] = []
    queue = list(reversed(names))
    while queue or running:
        while queue and len(running) < (os.cpu_count() or 1):
            name = queue.pop()
            pid = os.fork()
            if pid == 0:
                _child(name)
            running[pid] = name
        pid, status = os.wait()
        name = running.pop(pid)
        if status != 0:
            failed.append(name)
    return failed


def main() -> int:
    groups = [group.split() for group in sys.stdin.read().split("\n\n") if group.strip()]
    warnings.simplefilter("ignore")  # LanceDB warns about forking; nothing of it runs in the children
    for lib in sys.argv[1:]:
        try:
            importlib.import_module(lib)
        except Exception:  # an optional library that is not installed: the module that needs it says so
            pass
    loaded = [m for m in sys.modules if m == "rag_core" or m.startswith("rag_core.")]
    if loaded:
        print(f"the core was loaded before the children: {loaded[:5]}", file=sys.stderr)
        return 2
    failed: list[str] = []
    for group in groups:
        failed += _first_imports(group)
        if failed:
            break  # the layers above would be tested on a lower layer that does not load
        for name in group:
            importlib.import_module(name)
    print("\n".join(sorted(failed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
