"""Import costs every product process paid for code it seldom runs, moved to the code that runs it (called by
`rag_core/__init__`, before anything imports lancedb or PyMuPDF).

**LanceDB's REST namespace client.** A package whose `__init__` runs only when one of its own names is first read.

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

**PyMuPDF's layout models.** `import pymupdf` imports `pymupdf.layout` when it is installed, and that module
builds the layout analysis's two ONNX Runtime sessions as it loads: about 0.5 CPU-s and 50 MB of memory in every
process that imports PyMuPDF (the app, the API, each command line), where only a parse uses them. `LayoutLater`
answers PyMuPDF's own `try: import pymupdf.layout` (while `pymupdf` itself is being imported) with the
ImportError that PyMuPDF already handles, as when the layout package is absent; any later `import pymupdf.layout`
loads it as usual. pymupdf4llm (which PyMuPDF imports) then starts in its text-only mode, and the first parse of a
process switches it to its layout mode, which loads and activates the models
(`rag_core.parsing.layout_runtime.document_layout`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Sequence
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


class LayoutLater(importlib.abc.MetaPathFinder):
    """Refuses `pymupdf.layout` to PyMuPDF's own `__init__` only; finds nothing itself otherwise (it is asked about
    every import of the process: any other name is answered by one comparison)."""

    NAME = "pymupdf.layout"

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.NAME:
            return None
        if getattr(getattr(sys.modules.get("pymupdf"), "__spec__", None), "_initializing", False):
            raise ModuleNotFoundError(f"{fullname} is loaded when a parse needs it (rag_core.deferred_import)")
        return None


def defer_pymupdf_layout() -> None:
    """Before `import pymupdf`: its layout models wait until a parse imports them."""
    if "pymupdf" not in sys.modules and not any(isinstance(f, LayoutLater) for f in sys.meta_path):
        sys.meta_path.insert(0, LayoutLater())


def defer_lancedb_clients() -> None:
    """Before `import lancedb`: its REST namespace client's `__init__` waits until a name of it is read."""
    for name in DEFERRED:
        defer_init(name)
