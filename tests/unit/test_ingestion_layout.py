"""The upload flow's layout: the stage list spelt once, the ingestion package below the façade and the
worker, and the worker reaching it with plain module imports (read from the source, nothing run)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rag_core import ingestion
from rag_core.library import DocumentFolder
from rag_core.models import STAGES, Stage

CORE = Path(__file__).resolve().parents[2] / "rag_core"


def _function_imports(path: Path) -> list[str]:
    """The modules a file imports inside a function or method."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    found.append(inner.module)
                elif isinstance(inner, ast.Import):
                    found += [alias.name for alias in inner.names]
    return found


def test_the_stage_list_is_spelt_once() -> None:
    spelt = re.compile(r"""["']parse["'],\s*["']chunk["'],\s*["']embed["'],\s*["']write["']""")
    places = sorted(str(p.relative_to(CORE)) for p in CORE.rglob("*.py") if spelt.search(p.read_text()))
    assert places == ["models/documents.py"]  # the `Stage` literal; `STAGES` is read from it
    assert STAGES == ("parse", "chunk", "embed", "write") and ingestion.STAGES is STAGES
    assert set(STAGES) == set(Stage.__args__)  # type: ignore[attr-defined]


def test_a_stage_recorded_again_forgets_the_later_ones(tmp_path: Path) -> None:
    """The manifest's invalidation follows the one list: recording `chunk` again drops `embed` and `write`."""
    folder = DocumentFolder(tmp_path, "a" * 64)
    folder.root.mkdir(parents=True)
    for stage in STAGES:
        output = folder.output_of(stage)
        if output is not None:
            output.write_bytes(stage.encode())
        folder.record_stage(stage, {"n": 1}, 0.0, {})
    assert list(folder.manifest()["stages"]) == list(STAGES)
    folder.record_stage("chunk", {"n": 2}, 0.0, {})
    assert list(folder.manifest()["stages"]) == ["parse", "chunk"]


def test_the_ingestion_package_knows_no_facade_and_no_worker() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+rag_core\.(pipeline|jobs|api|cli)\b", re.M)
    offenders = [p.name for p in (CORE / "ingestion").glob("*.py") if pattern.search(p.read_text())]
    assert offenders == []


def test_the_worker_imports_the_ingestion_package_at_module_level() -> None:
    jobs = CORE / "jobs"
    assert re.search(r"^from rag_core import ingestion$", (jobs / "runner.py").read_text(), re.M)
    local = {p.name: _function_imports(p) for p in (jobs / "runner.py", jobs / "worker.py")}
    assert {
        name: [m for m in mods if m.startswith(("rag_core.pipeline", "rag_core.ingestion"))]
        for name, mods in local.items()
    } == {"runner.py": [], "worker.py": []}


def test_no_stage_function_is_longer_than_a_screen() -> None:
    long = []
    for path in (CORE / "ingestion").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 60:
                    long.append(f"{path.name}:{node.name} ({length} lines)")
    assert long == []
