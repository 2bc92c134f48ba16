"""The layers of the product and the direction of its imports: the façade (`rag_core.pipeline`) is on top of
the core and nothing below it imports it; every module of the core imports alone in a fresh interpreter; the
layer list that docs/architecture.md states is the one the import graph keeps."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Mapping

import pytest

from tests.unit.test_architecture import CORE, PROJECT, _product_files, import_graph

FACADE = "rag_core.pipeline"
# The entry layers: they call the façade. Everything else of the product is below it.
ENTRY = ("rag_app", "benchmarks", "rag_core.__main__", "rag_core.cli", "rag_core.api")


def _within(module: str, prefixes: tuple[str, ...] | list[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def facade_importers(graph: Mapping[str, set[str]]) -> list[str]:
    """Arrows `module -> target` from a module below the entry layers and outside the façade into the façade."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if not _within(module, (*ENTRY, FACADE))
        for target in targets
        if _within(target, (FACADE,))
    )


def test_nothing_below_the_entry_layers_imports_the_facade() -> None:
    """The question flow, the worker, the evaluation and the services read the library through
    `rag_core.services`, never through the façade they sit under."""
    assert facade_importers(import_graph()) == []


def test_the_facade_check_sees_an_import_from_below() -> None:
    graph = {"rag_core.question.stream": {"rag_core.services.permissions"}, "rag_core.api.rest": {FACADE}}
    assert facade_importers(graph) == []
    graph["rag_core.jobs.worker"] = {"rag_core.pipeline.jobs", FACADE}
    graph["rag_core.pipeline.searching"] = {"rag_core.question.context"}  # downward: allowed
    assert facade_importers(graph) == [
        "rag_core.jobs.worker -> rag_core.pipeline",
        "rag_core.jobs.worker -> rag_core.pipeline.jobs",
    ]


# --- The layers docs/architecture.md states (its section "Layers", one numbered line per layer, top first).
ARCHITECTURE = PROJECT / "docs" / "architecture.md"


def documented_layers(text: str) -> list[list[str]]:
    """The modules of each numbered line of the section `## Layers`, top layer first: the line's leading list
    of names in backquotes, after its bold title (`3. **flows**: `rag_core.question`, `rag_core.jobs`: what...`)."""
    section = re.split(r"^## Layers\n", text, maxsplit=1, flags=re.M)[1].split("\n## ", 1)[0]
    heads = re.findall(r"^\d+\. \*\*[^*]+\*\*: ((?:`[\w.]+`(?:, )?)+)", section, re.M)
    return [re.findall(r"`([\w.]+)`", head) for head in heads]


def layer_of(module: str, layers: list[list[str]]) -> int | None:
    """The layer of the longest prefix that names the module (a package's module can sit above its package)."""
    found = [(len(p), i) for i, layer in enumerate(layers) for p in layer if _within(module, [p])]
    return max(found)[1] if found else None


def upward_imports(graph: Mapping[str, set[str]], layers: list[list[str]]) -> list[str]:
    return sorted(
        f"{module} (layer {layer_of(module, layers)}) -> {target} (layer {layer_of(target, layers)})"
        for module, targets in graph.items()
        for target in targets
        if (layer_of(target, layers) or 0) < (layer_of(module, layers) or 0)
    )


def test_the_documented_layers_cover_the_product_and_hold() -> None:
    """Each module of the product is in one layer of the list, and imports only its own layer or those below."""
    layers = documented_layers(ARCHITECTURE.read_text())
    assert len(layers) >= 5 and layers[0][:1] == ["rag_app"] and [FACADE] in layers
    graph = import_graph()
    assert [m for m in graph if layer_of(m, layers) is None] == []
    assert upward_imports(graph, layers) == []


def test_the_layer_check_sees_an_upward_import() -> None:
    doc = (
        "## Layers\n\n1. **top**: `app`, `rag_core.api`\n2. **façade**: `rag_core.pipeline`\n"
        "3. **low**: `rag_core.question`, `rag_core.jobs`\n\n## Next\n1. `rag_core.x`\n"
    )
    layers = documented_layers(doc)
    assert layers == [["app", "rag_core.api"], [FACADE], ["rag_core.question", "rag_core.jobs"]]
    assert layer_of("rag_core.pipeline.searching", layers) == 1 and layer_of("rag_core.other", layers) is None
    graph = {"rag_core.question.stream": {"rag_core.pipeline.jobs"}, "rag_core.pipeline": {"rag_core.question"}}
    assert upward_imports(graph, layers) == ["rag_core.question.stream (layer 2) -> rag_core.pipeline.jobs (layer 1)"]


# --- Every module of the core imports alone (a cycle through a package's __init__ fails only in the order
# in which the first import enters it: `import rag_core.question` first once raised ImportError).
def _core_modules() -> list[str]:
    return sorted(m for m in _product_files() if _within(m, ["rag_core"]))


def _outside_libraries() -> list[str]:
    """The outside modules the core imports at module level (those inside functions load only when called)."""
    found: set[str] = set()
    for path in CORE.rglob("*.py"):
        body = ast.parse(path.read_text()).body
        nodes = [n for node in body for n in ([node] if not isinstance(node, (ast.If, ast.Try)) else ast.walk(node))]
        for node in nodes:
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
    return sorted(m for m in found if m.split(".")[0] not in {"rag_core", "__future__", *sys.stdlib_module_names})


def _by_layer_lowest_first(modules: list[str]) -> str:
    """The modules in groups, one per documented layer, the lowest first (tests/fresh_import_support.py)."""
    layers = documented_layers(ARCHITECTURE.read_text())
    groups = [[m for m in modules if layer_of(m, layers) == i] for i in reversed(range(len(layers)))]
    assert sum(map(len, groups)) == len(modules)  # each module in one layer
    return "\n\n".join("\n".join(group) for group in groups if group)


def test_every_module_of_the_core_imports_alone() -> None:
    """Each module of `rag_core`, imported first in its own process (a child forked once the outside
    libraries and the layers below its own are loaded, none of its own layer or above:
    tests/fresh_import_support.py says why that is a fresh interpreter's view), imports without error."""
    modules = _core_modules()
    assert len(modules) > 200 and "rag_core.question.context" in modules and "rag_core.services.permissions" in modules
    assert "numpy" in _outside_libraries() and "torch" not in _outside_libraries()  # lazy imports stay lazy
    done = subprocess.run(
        [sys.executable, str(PROJECT / "tests" / "fresh_import_support.py"), *_outside_libraries()],
        input=_by_layer_lowest_first(modules),
        capture_output=True,
        text=True,
        cwd=PROJECT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [], done.stderr[-4000:]


@pytest.mark.parametrize("module", ["rag_core.missing_module"])
def test_the_fresh_import_check_reports_a_failure(module: str) -> None:
    done = subprocess.run(
        [sys.executable, str(PROJECT / "tests" / "fresh_import_support.py")],
        input=f"rag_core.text\n\nrag_core.config\n{module}",
        capture_output=True,
        text=True,
        cwd=PROJECT,
    )
    assert done.returncode == 0 and done.stdout.split() == [module] and "ModuleNotFoundError" in done.stderr
    assert "--- rag_core.config" not in done.stderr  # the group's other module imported


# --- A module uses the public names of another package's modules (the worker once read `permissions._secrets`).
def private_reaches(module: str, source: str, modules: Mapping[str, object], is_package: bool = False) -> list[str]:
    """`alias._name` on an imported product module, and `from m import _name`, where `m` lies in another
    package than `module` (a package's modules, its `__init__` included, share their private helpers)."""
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {(a.asname or a.name.split(".")[0]): a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                target = f"{node.module}.{a.name}"
                if target in modules:
                    aliases[a.asname or a.name] = target
                elif a.name.startswith("_") and node.module.rpartition(".")[0] != package and node.module != package:
                    found.append(f"{module}: from {node.module} import {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            target = aliases[node.value.id]
            if node.attr.startswith("_") and not node.attr.startswith("__") and target.rpartition(".")[0] != package:
                found.append(f"{module}: {node.value.id}.{node.attr}")
    return found


def test_no_module_of_the_core_uses_a_private_name_of_another_package() -> None:
    modules = _product_files()
    core = [m for m in modules if _within(m, ["rag_core"])]
    found = [
        f for m in core for f in private_reaches(m, modules[m].read_text(), modules, modules[m].name == "__init__.py")
    ]
    assert found == []


def test_the_private_name_check_sees_both_forms() -> None:
    modules = {"rag_core.services.permissions": 0, "rag_core.jobs.worker": 0, "rag_core.store.channels": 0}
    source = (
        "from rag_core.services import permissions as perm\n"
        "from rag_core.store.channels import _quote\n"
        "perm._secrets(s)\nperm.scrubbed(s, t)\n"
    )
    assert private_reaches("rag_core.jobs.worker", source, modules) == [
        "rag_core.jobs.worker: from rag_core.store.channels import _quote",
        "rag_core.jobs.worker: perm._secrets",
    ]
    assert private_reaches("rag_core.store.jobs", "from rag_core.store.channels import _quote\n", modules) == []
    assert private_reaches("rag_core.store", "from rag_core.store.channels import _quote\n", modules, True) == []
