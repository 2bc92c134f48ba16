"""House rules that keep the layout honest: the core never imports the UI, each library has one home, no
import cycle, pages go through the façade, and no file or function too long for a newcomer to read."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from pydantic import ValidationError

from rag_core.config import Settings

PROJECT = Path(__file__).resolve().parents[2]
CORE = PROJECT / "rag_core"
MAX_FILE_LINES = 400


def _imports(module: str) -> set[str]:
    pattern = re.compile(rf"^\s*(import|from)\s+{module}\b", re.M)
    return {str(p.relative_to(CORE)) for p in CORE.rglob("*.py") if pattern.search(p.read_text())}


def test_rag_core_never_imports_streamlit() -> None:
    assert _imports("streamlit") == set()


def test_lancedb_lives_in_store_only() -> None:
    found = _imports("lancedb")
    assert found and all(path.startswith("store/") for path in found)


def test_pymupdf_lives_in_parsing_only() -> None:
    found = _imports("pymupdf")
    assert found and all(path.startswith("parsing/") for path in found)


def test_the_object_store_client_lives_in_storage_only() -> None:
    found = _imports("obstore")
    assert found and all(path.startswith("storage/") for path in found)


def test_llm_libraries_live_in_the_model_client_only() -> None:
    found = _imports("langchain_openai") | _imports("openai")
    assert found and all(path.startswith("llm/") for path in found)


def test_the_layout_shows_the_stages() -> None:
    """A few shared modules at the top, a room per stage, and no stage reaching into another's room."""
    top = {p.name for p in CORE.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert 0 < len(top) <= 10, sorted(top)
    for stage in ("parsing", "chunking", "embedding", "store", "understanding", "answering", "evaluation", "pipeline"):
        assert (CORE / stage / "__init__.py").is_file(), stage
    assert _stage_imports("understanding", "answering") == set()
    assert _stage_imports("chunking", "citations") == set()
    # the check sees imports:
    assert _stage_imports("pipeline", "answering") and _stage_imports("answering", "citations")


def test_no_file_a_newcomer_cannot_read() -> None:
    """No source file over 400 lines, tests and benchmarks included."""
    folders = ("rag_core", "rag_app", "tests", "benchmarks")
    files = [p for folder in folders for p in (PROJECT / folder).rglob("*.py")]
    long_files = [str(p.relative_to(PROJECT)) for p in files if len(p.read_text().splitlines()) > MAX_FILE_LINES]
    assert long_files == []


def _stage_imports(stage: str, other: str) -> set[str]:
    """Files of `stage` that import `rag_core.<other>` in either form (`from rag_core.X`, `from rag_core import X`)."""
    forms = (
        rf"from\s+rag_core\.{other}\b",
        rf"import\s+rag_core\.{other}\b",
        rf"from\s+rag_core\s+import\s+[^\n]*\b{other}\b",
    )
    pattern = re.compile(rf"^\s*({'|'.join(forms)})", re.M)
    return {str(p.relative_to(CORE)) for p in (CORE / stage).rglob("*.py") if pattern.search(p.read_text())}


def test_snowball_stemming_lives_in_one_module() -> None:
    assert _imports("Stemmer") == {"stemming.py"}


def test_a_misspelt_setting_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError):
        Settings(retrieval={"candidat_k": 10})
    monkeypatch.setenv("RAG_LLM__API_KEY", "sk-test-123")
    settings = Settings()
    assert "sk-test-123" not in repr(settings) and "sk-test-123" not in settings.model_dump_json()


# --- The module graph of the product (rag_core, rag_app, benchmarks), from its import statements.
# Every `import`/`from` counts, those inside functions too: a lazy import is still a dependency. An edge
# goes to the module named (`from a.b import c` to `a.b.c` when that is a module, else to `a.b`) and, from
# a module outside a package, to that package too (`from rag_core.pipeline import x` runs the package's
# `__init__` first, and whatever it imports): a package's `__init__` importing its own modules is no
# cycle, but a module below the façade importing one of its submodules is an arrow to the whole façade.

# What a page may import from rag_core: the façade, the data it returns, the errors it raises.
# The façade is `rag_core.pipeline`, and the evaluation's façade, its module `evaluating` (pages import it by
# name: the core façade does not load the evaluation).
# `rag_core` itself is the root package, whose `__init__` every import of the core runs (it imports nothing).
PAGE_IMPORTS = {"rag_core", "rag_core.pipeline", "rag_core.pipeline.evaluating", "rag_core.models", "rag_core.errors"}


def _product_files() -> dict[str, Path]:
    """Module name -> file, for every module of the product."""
    files = [
        *(PROJECT / "rag_core").rglob("*.py"),
        *(PROJECT / "rag_app").rglob("*.py"),
        *(PROJECT / "benchmarks").glob("*.py"),
    ]
    modules = {}
    for path in files:
        parts = list(path.relative_to(PROJECT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imports_of(path: Path, module: str, modules: Mapping[str, Path]) -> set[str]:
    """The product modules a file imports. `from x import y` is x.y when that is a module, else x;
    `import x.y` is x.y; a relative import is resolved against the file's package."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names += [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    named = {name for name in names if name in modules}
    return ({*named, *(p for name in named for p in _packages_entered(name, package, modules))}) - {module}


def _packages_entered(name: str, package: str, modules: Mapping[str, Path]) -> list[str]:
    """The packages above module `name` whose `__init__` an import of it runs, seen from inside `package`:
    those the importer does not already stand in (`rag_core` itself, for a module of the core)."""
    parts = name.split(".")
    above = [".".join(parts[:i]) for i in range(1, len(parts))]
    return [p for p in above if p in modules and not (package == p or package.startswith(p + "."))]


def import_graph() -> dict[str, set[str]]:
    """Module -> the product modules it imports."""
    modules = _product_files()
    return {module: _imports_of(path, module, modules) for module, path in modules.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected components with more than one module,
    and modules importing themselves (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def test_the_cycle_detector_finds_cycles() -> None:
    """The detector itself, on small graphs: a three-module cycle beside an acyclic tail, a
    self-import, two separate cycles, and graphs without any."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}, "b": {"a"}}) == [["a"]]
    assert sorted(cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}})) == [["a", "b"], ["c", "d", "e"]]
    assert cycles({"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a", "b", "c"}}) == []
    assert cycles({}) == []


def test_the_import_graph_sees_the_product() -> None:
    graph = import_graph()
    assert {
        "rag_app.app",
        "rag_app.ui.auth",
        "rag_app.views.library",
        "rag_core.pipeline",
        "benchmarks.crosslingual_frontier",
    } <= set(graph)
    assert "rag_core.pipeline" in graph["rag_app.views.library"]
    assert "rag_app.ui.auth" in graph["rag_app.ui.widgets"]  # an import inside a function counts
    assert "benchmarks.crosslingual_dev" in graph["benchmarks.crosslingual_frontier"]  # one benchmark's use of another
    assert "rag_core.access.principal" in graph["rag_core.access"]  # a package's own modules
    # a submodule imported from outside its package is an arrow to the package's __init__ too (it runs first)
    assert {"rag_core.services.connection", "rag_core.services"} <= graph["rag_core.question.context"]
    assert "rag_core.pipeline" not in graph["rag_core.pipeline.searching"]  # not from inside the package


def test_the_import_graph_sees_package_cycles() -> None:
    """`from p import m` from outside `p` runs `p/__init__` first: when that `__init__` imports the importer
    back, the graph has the cycle (rag_core.question once failed to import alone for exactly this)."""
    modules = {name: Path(name) for name in ("p", "p.m", "q")}
    graph = {name: set[str]() for name in modules}
    graph["p"] = {"p.m", "q"}
    graph["q"] = {"p.m", *_packages_entered("p.m", "", modules)}
    graph["p.m"] = set(_packages_entered("p.m", "p", modules))  # a sibling's import: no arrow to its own package
    assert graph["q"] == {"p.m", "p"} and graph["p.m"] == set()
    assert cycles(graph) == [["p", "q"]]


def test_there_is_no_import_cycle_in_the_product() -> None:
    assert cycles(import_graph()) == []


def _long_functions(paths: list[Path], limit: int) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append(f"{path.relative_to(PROJECT)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_over_60_lines_in_retrieval_and_answering() -> None:
    """The method's core reads a function at a time: no function (or method) over 60 lines."""
    paths = [*CORE.glob("retrieval*.py"), *CORE.glob("retrieval*/**/*.py"), *(CORE / "answering").rglob("*.py")]
    assert paths
    assert _long_functions(paths, 60) == []


def _pages() -> list[str]:
    """The pages (rag_app/app.py, rag_app/views/*.py) and their helpers (rag_app/ui/, its strings included)."""
    return sorted(m for m in _product_files() if m.startswith("rag_app."))


@pytest.mark.parametrize("page", _pages())
def test_pages_use_the_facade_only(page: str) -> None:
    """Pages (rag_app/views/*.py, rag_app/app.py) and their helpers (rag_app/ui/) reach rag_core through the façade
    (`rag_core.pipeline`), the models it returns and the errors it raises, never a stage directly."""
    modules = _product_files()
    reached = {target for target in _imports_of(modules[page], page, modules) if target.startswith("rag_core")}
    assert reached - PAGE_IMPORTS == set()


def test_the_page_check_sees_the_pages() -> None:
    assert {
        "rag_app.app",
        "rag_app.views.library",
        "rag_app.views.ask",
        "rag_app.views.inspect",
        "rag_app.ui.auth",
        "rag_app.ui.widgets",
        "rag_app.ui.strings.errors",
    } <= set(_pages())
    modules = _product_files()
    assert "rag_core.pipeline" in _imports_of(modules["rag_app.views.library"], "rag_app.views.library", modules)
    # an import inside a function counts (the French messages read the English ones lazily)
    assert "rag_core.pipeline" in _imports_of(
        modules["rag_app.ui.strings.errors"], "rag_app.ui.strings.errors", modules
    )


def _facade_names_used_by_pages() -> set[str]:
    """Names the pages and their helpers take from the façade: `from rag_core.pipeline import X` and `pipeline.X`."""
    modules = _product_files()
    used: set[str] = set()
    for page in _pages():
        for node in ast.walk(ast.parse(modules[page].read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "rag_core.pipeline":
                used |= {alias.name for alias in node.names}
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "pipeline":
                used.add(node.attr)
    return used


def test_the_facade_exports_its_entry_points_only() -> None:
    """An explicit `__all__`: no private name, each one defined, and everything the pages use from the façade
    is in it (a page reaching past `__all__` would use what the façade does not offer)."""
    from rag_core import pipeline

    exported = set(pipeline.__all__)
    assert exported and all(not name.startswith("_") and hasattr(pipeline, name) for name in exported)
    used = _facade_names_used_by_pages() - {"evaluating"}  # the evaluation's façade, a module of its own
    assert {"ask_stream", "list_documents", "Done", "highlight_target"} <= used  # the scan sees both forms
    assert used - exported == set()


def test_nothing_edits_the_import_path() -> None:
    """The product is an installed package (pyproject.toml): no module, test or benchmark puts a folder on
    sys.path to find it."""
    edit = re.compile(r"\bsys\.path\.(insert|append|extend)\(|\bsys\.path\s*(\[[^]]*\])?\s*[+]?=[^=]")
    folders = ("rag_core", "rag_app", "tests", "benchmarks")
    files = [p for folder in folders for p in (PROJECT / folder).rglob("*.py")]
    assert len(files) > 300
    assert [str(p.relative_to(PROJECT)) for p in files if edit.search(p.read_text())] == []
    path = "sys." + "path"  # spelt in two parts: this file is one of those searched
    assert edit.search(f"{path}.insert(0, str(REPO))") and edit.search(f"{path}[:0] = [here]")
    assert not edit.search(f"print({path})") and not edit.search(f"{path} == before")


@pytest.mark.parametrize(
    "package", ["rag_core.question", "rag_core.pipeline", "rag_core.reading", "rag_core.answering", "rag_core.api"]
)
def test_the_question_flow_packages_import_alone(package: str) -> None:
    """A fresh interpreter imports each package first without an import cycle through a package's __init__
    (`rag_core.question` failed so: its context imported the façade, whose search imported the context)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"import {package}"], capture_output=True, text=True, cwd=PROJECT)
    assert done.returncode == 0, done.stderr[-2000:]
