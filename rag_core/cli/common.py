"""What every command shares: its common options (`add_command`), its settings (`settings_of`, the one
place a command reads them: `--data-dir`, else RAG_DATA_DIR and the other RAG_* variables), whom it
acts as (`--as-user`, `--groups`), the progress lines of an ingestion, and how a page range is printed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rag_core.access import Principal
from rag_core.access.principal import cli_principal
from rag_core.config import Settings
from rag_core.models import ProgressEvent

Adder = Callable[..., argparse.ArgumentParser]


def add_command(sub: Any) -> Adder:
    """`add(name, func, help, parent=None)`: a command on `sub` (or on `parent`'s subparsers) with the
    options every command takes (`--data-dir`, `--as-user`, `--groups`), run as `func(args)`."""

    def add(name: str, func: Callable[[argparse.Namespace], int], help_: str, parent: Any = None) -> Any:
        p = (parent or sub).add_parser(name, help=help_)
        p.add_argument("--data-dir", help="library directory (default: RAG_DATA_DIR or ./data)")
        p.add_argument(
            "--as-user",
            metavar="EMAIL",
            help="act as this user, as the app would (default: the local operator, administrator)",
        )
        p.add_argument(
            "--groups",
            metavar="G1,G2",
            help="the groups of --as-user, read as header mode reads its groups header: names joined by "
            "RAG_AUTH__GROUPS_SEPARATOR (',') with no blank beside it, or a JSON array for a name with a comma "
            '(\'["Finance, board", "staff"]\')',
        )
        p.set_defaults(func=func)
        return p

    return add


def settings_of(args: argparse.Namespace) -> Settings:
    """The command's settings: the environment's (RAG_*), with `--data-dir` in place of RAG_DATA_DIR."""
    return Settings(data_dir=Path(args.data_dir)) if getattr(args, "data_dir", None) else Settings()


def principal_of(args: argparse.Namespace, settings: Settings) -> Principal:
    """`--as-user EMAIL [--groups G1,G2]`, administrator when the settings say so; else the local operator."""
    return cli_principal(getattr(args, "as_user", None), getattr(args, "groups", None), settings)


def context_of(args: argparse.Namespace) -> tuple[Settings, Principal]:
    settings = settings_of(args)
    return settings, principal_of(args, settings)


def print_progress(event: ProgressEvent) -> None:
    if event.total and event.done and (event.done == event.total or event.done % 25 == 0):
        print(
            f"  {event.file_name}: {event.stage} {event.done}/{event.total} {event.message}".rstrip(),
            file=sys.stderr,
            flush=True,
        )


def page_span(pages: list[int]) -> str:
    return f"{pages[0]}" if len(pages) == 1 else f"{pages[0]}–{pages[-1]}" if pages else "?"
