"""A package whose `__init__` runs only when one of its own names is first read (called by `rag_core/__init__`).

`import lancedb` imports `lance_namespace_urllib3_client`, the REST client of Lance's namespace service, whose
`__init__` imports its nine API modules; each wraps every method in pydantic's `validate_call`, which builds the
method's validator as the module loads. That took 0.9-1.2 of the 2.2-2.6 CPU-s `import lancedb` costs on the
two-core machine (`python -X importtime -c "import lancedb"`), in every process that opens the library: the
app, each worker, the API, every command line. LanceDB's local and S3 connections use the package's `models`
only (imported as submodules, which need the package's folder, not its `__init__`); the API modules are for a
REST namespace, which this product does not connect to.

`defer_init(name)` puts the package in `sys.modules` with its folder and spec but without having run its
`__init__`: a submodule imports as usual, and the first read of a name of the package itself
(`lance_namespace_urllib3_client.ApiClient`, `from lance_namespace_urllib3_client import TableApi`) runs the
`__init__` then, whole, so nothing of the package is lost, only its cost moved to the code that needs it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

DEFERRED = ("lance_namespace_urllib3_client",)


def defer_init(name: str) -> ModuleType | None:
    """Register `name` with its `__init__` deferred; None where it is already imported or not installed."""
    if name in sys.modules:
        return None
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return None
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    lock = threading.RLock()

    def __getattr__(attr: str) -> object:  # the module's own __getattr__ (PEP 562)
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]  # from here on an ordinary module, even while __init__ runs
                loader.exec_module(module)
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module
    return module


def defer_lancedb_clients() -> None:
    """Before `import lancedb`: its REST namespace client's `__init__` waits until a name of it is read."""
    for name in DEFERRED:
        defer_init(name)
