"""`rag_core.deferred_import`: a package's `__init__` waits until one of its names is read, and lancedb opened
through the product does not load its REST namespace client's API modules (about 1 CPU-s a process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rag_core.deferred_import import defer_init

REPO = Path(__file__).resolve().parents[2]


def _package(root: Path, name: str) -> None:
    """A package whose `__init__` counts its runs in a file and imports a heavy submodule; a light submodule."""
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text(
        textwrap.dedent(
            f"""
            from pathlib import Path
            runs = Path({str(root / "runs")!r})
            runs.write_text(str(int(runs.read_text() or 0) + 1) if runs.exists() else "1")
            from {name}.heavy import Client
            VALUE = 42
            """
        )
    )
    (folder / "heavy.py").write_text("class Client:\n    pass\n")
    (folder / "models.py").write_text("class Model:\n    pass\n")


def _runs(root: Path) -> int:
    return int((root / "runs").read_text()) if (root / "runs").exists() else 0


def test_a_deferred_package_runs_its_init_once_when_a_name_of_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "deferred_probe_pkg"
    _package(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        monkeypatch.delitem(sys.modules, key)
    try:
        module = defer_init(name)
        assert module is not None and sys.modules[name] is module
        from deferred_probe_pkg.models import Model  # a submodule: the package's folder, not its __init__

        assert Model.__name__ == "Model" and _runs(tmp_path) == 0 and f"{name}.heavy" not in sys.modules
        from deferred_probe_pkg import VALUE, Client  # a name of the package: its __init__ runs, whole

        assert VALUE == 42 and Client.__module__ == f"{name}.heavy" and _runs(tmp_path) == 1
        assert module.VALUE == 42 and _runs(tmp_path) == 1  # once
        with pytest.raises(AttributeError, match="no attribute 'missing'"):
            getattr(module, "missing")
        assert defer_init(name) is None  # already imported: left as it is
        assert defer_init("no_such_package_here") is None
    finally:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def test_the_store_opens_lancedb_without_its_namespace_clients_api_modules(tmp_path: Path) -> None:
    """In a fresh interpreter: a table written and searched through lancedb as the product imports it, none of
    the REST client's API modules loaded; reading one of the client's names still gives it whole."""
    script = textwrap.dedent(
        f"""
        import json, sys
        import rag_core.store
        import lancedb
        db = lancedb.connect({str(tmp_path / "db")!r})
        table = db.create_table("t", data=[{{"id": 1, "vector": [0.0, 1.0]}}, {{"id": 2, "vector": [1.0, 0.0]}}])
        hit = table.search([1.0, 0.1]).limit(1).to_list()[0]["id"]
        api = sorted(m for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api"))
        from lance_namespace_urllib3_client import ApiClient, TableApi
        print(json.dumps({{"hit": hit, "api": api, "client": ApiClient.__name__, "table_api": TableApi.__name__}}))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"hit": 2, "api": [], "client": "ApiClient", "table_api": "TableApi"}
