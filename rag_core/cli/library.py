"""Commands about the library itself: `migrate` brings its stored data to this release's schema
(`rag_core.migrations`); `migrate --to URI` moves a local library (checked after the copy)."""

from __future__ import annotations

import argparse
import sys

from rag_core.cli.common import context_of
from rag_core.errors import AccessDenied


def cmd_migrate(args: argparse.Namespace) -> int:
    from rag_core.storage.migrate import migrate

    settings, principal = context_of(args)
    if not principal.is_admin:
        raise AccessDenied("Only an administrator migrates or moves the library.")
    if args.to is None:
        from rag_core.migrations import migrate as migrate_schema

        migrate_schema(settings, say=lambda line: print(line, flush=True))
        return 0
    report = migrate(settings, args.to, say=lambda line: print(line, file=sys.stderr, flush=True))
    print(f"moved {report.files} files, {sum(report.logs.values())} log records and {len(report.tables)} tables")
    print(f"now start the servers and workers with RAG_LIBRARY_URI={args.to}")
    return 0


def add_library_commands(sub, add) -> None:
    p = add(
        "migrate",
        cmd_migrate,
        "bring the library's stored data to this release's schema (with the app and workers stopped); with --to, "
        "copy a local library to another place (s3://bucket/prefix) and check the copy",
    )
    p.add_argument("--to", metavar="URI", help="an empty place: s3://bucket/prefix or a directory")
