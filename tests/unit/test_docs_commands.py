"""Every command the README and docs/ show runs as written, as far as its arguments go: each `python -m
rag_core ...` and `python -m benchmarks.X ...` in a code block, or in inline code with arguments, is given to
the command's own argument parser, which must accept it (placeholders such as FILE or LIB stand for values;
`[--opt]` for an option one may give, which is given; `(a | b)` and `a|b` for a choice, whose first is taken).
A flag renamed or removed in the code, or a typo in the docs, fails here. Running them is what the tests of each
command do (tests/integration/test_pipeline.py, test_serve.py, ...): a benchmark runs minutes to hours."""

from __future__ import annotations

import argparse
import functools
import importlib
import re
import shlex
from collections.abc import Iterator

import pytest

from tests.unit.test_docs_links import _pages

COMMAND = re.compile(r"python -m ((?:rag_core|benchmarks)(?:\.[a-z_0-9]+)?)((?:[^`\n#|]|\|(?=[^`\n]*[)\]]))*)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*$")
# what may stand before a command on its line: another command and `&&`, a prompt, variables, nice, a path
LEAD = re.compile(r"(?:.*(?:&&?|;)\s*)?(?:\$\s*)?(?:[A-Z_]+=\S*\s+)*(?:nice -n \d+\s+)?(?:\S*/)?")


def _commands() -> Iterator[tuple[str, str, str]]:
    """(page, module, its arguments as written) of every command shown."""
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        blocks = [m.group(0).replace("\\\n", " ") for m in FENCE.finditer(text)]
        for block in blocks:
            for line in block.splitlines():
                for m in COMMAND.finditer(line):
                    if LEAD.fullmatch(line[: m.start()]):  # not a diagram's label ("worker: python -m ...")
                        yield page.name, m.group(1), m.group(2).strip()
        prose = FENCE.sub("", text)
        for span in INLINE.findall(prose):
            for m in COMMAND.finditer(span):
                args = m.group(2).strip()
                named_only = m.group(1) == "rag_core" and len(args.split()) <= 1
                if args and args != "..." and not named_only:  # a name in a sentence: test_docs_links checks it
                    yield page.name, m.group(1), args


def _words(args: str) -> list[str]:
    args = re.sub(r"[(\[]([^()\[\]|]*)\|[^()\[\]]*[)\]]", r"\1", args)  # (--user E | --group G) -> --user E
    args = re.sub(r"<[^>]*>", "VALUE", args)
    args = args.replace("[", " ").replace("]", " ").replace("...", " ")
    return [word.split("|")[0] if "|" in word and not word.startswith("-") else word for word in shlex.split(args)]


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


@functools.cache
def _parser(module: str) -> argparse.ArgumentParser:
    """The command's parser: rag_core's `build_parser()`; a benchmark's, caught as its `main()` parses."""
    if module == "rag_core":
        from rag_core.cli.main import build_parser

        return build_parser()
    loaded = importlib.import_module(module)

    def caught(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Captured(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", caught)
        patch.setattr(argparse.ArgumentParser, "parse_known_args", caught)
        try:
            loaded.main()
        except _Captured as captured:
            return captured.parser
    raise AssertionError(f"{module}.main() parsed no arguments")


def _valued(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """A placeholder given to an option that wants a number becomes a number (`--workers N`)."""
    typed: dict[str, object] = {}
    actions = [
        parser,
        *(p for a in parser._actions if a.choices and isinstance(a.choices, dict) for p in a.choices.values()),
    ]
    for p in actions:
        for action in p._actions:
            for flag in action.option_strings:
                typed[flag] = action.type
    out = list(words)
    for i, word in enumerate(words[1:], start=1):
        if PLACEHOLDER.match(word) and typed.get(words[i - 1]) in (int, float):
            out[i] = "1"
    return out


SHOWN = sorted(set(_commands()))


def test_the_docs_show_commands_of_both_kinds() -> None:
    modules = {module for _, module, _ in SHOWN}
    assert "rag_core" in modules and len(modules) > 20
    assert _words("serve [--port 8501] (--user EMAIL | --group G) [--json | --csv] build|snapshot FILE...") == [
        "serve",
        "--port",
        "8501",
        "--user",
        "EMAIL",
        "--json",
        "build",
        "FILE",
    ]


@pytest.mark.parametrize(("page", "module", "args"), SHOWN, ids=[f"{p}:{m} {a[:40]}" for p, m, a in SHOWN])
def test_a_command_of_the_docs_is_accepted_by_its_parser(page: str, module: str, args: str) -> None:
    parser = _parser(module)
    words = _valued(parser, _words(args))
    try:
        parser.parse_args(words)
    except SystemExit as exit_:
        raise AssertionError(f"{page}: `python -m {module} {args}` is refused by its parser ({words})") from exit_
