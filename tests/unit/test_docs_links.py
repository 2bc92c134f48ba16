"""The README and docs/ point at files that exist: the README sends developers to docs/ for the module
map and the measured figures, so a moved or renamed page must not leave a dead link behind."""

from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _pages() -> list[Path]:
    return [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]


def test_relative_links_of_the_readme_and_the_docs_reach_a_file() -> None:
    dead = [
        f"{page.relative_to(PROJECT)} -> {target}"
        for page in _pages()
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert dead == []


def test_the_readme_names_the_developer_pages_and_keeps_no_module_map() -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    for page in ("docs/architecture.md", "docs/method.md", "docs/measurements.md"):
        assert f"]({page})" in readme, page
    assert "| `pipeline/` |" not in readme and "| `rag_core/pipeline/` |" not in readme  # the map is in docs/
    assert readme.index("make run") < readme.index("make test") < readme.index("\n## ", readme.index("## Set-up") + 1)


def test_the_readme_is_the_users_guide_with_two_set_up_commands() -> None:
    """At most 350 lines; its set-up is `make run` and `make test` and nothing else; the API, deployment
    and developer material each have their page in docs/, linked from it."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 350
    setup = readme[readme.index("## Set-up") : readme.index("\n## ", readme.index("## Set-up") + 1)]
    block = setup.split("```")[1]
    assert [line.split("#")[0].strip() for line in block.strip().splitlines()] == ["make run", "make test"]
    for page in ("docs/api.md", "docs/deployment.md", "docs/development.md"):
        assert f"]({page})" in readme, page


def test_the_commands_the_docs_show_exist() -> None:
    """Every `python -m rag_core COMMAND` in the README and docs/ names a command of the parser."""
    from rag_core.cli.main import build_parser

    parser = build_parser()
    commands = set(next(a for a in parser._actions if a.dest == "command").choices)
    named = {
        f"{page.name}: {name}"
        for page in _pages()
        for name in re.findall(r"python -m rag_core ([a-z_-]+)", page.read_text(encoding="utf-8"))
        if name not in commands
    }
    assert named == set()
    assert re.findall(r"python -m rag_core ([a-z_-]+)", "`python -m rag_core serve --port 1`") == ["serve"]
