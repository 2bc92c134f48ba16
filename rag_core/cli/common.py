"""What every command shares: its settings (`--data-dir`), whom it acts as (`--as-user`, `--groups`),
the progress lines of an ingestion, and how a page range is printed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rag_core.access import Principal
from rag_core.access.principal import cli_principal
from rag_core.config import Settings
from rag_core.models import ProgressEvent


def settings_of(args: argparse.Namespace) -> Settings:
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
