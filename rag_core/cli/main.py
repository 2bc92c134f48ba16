"""Command line: `python -m rag_core {ingest,documents,inspect,search,ask,delete,reindex,evaluate,access,audit,
jobs,worker,serve,api,mcp,tokens,migrate}`.

Every command acts as the local operator (administrator) unless `--as-user EMAIL [--groups G1,G2]`
says whom to act as; it then behaves exactly as the app would for that person. The commands live
in one package, `rag_core.cli`, one module per group: the library's own (`ingest`, `documents`,
`inspect`, `delete`, `reindex`, `evaluate`) in `documents`, `search` and `ask` in `questions`,
`access grant|revoke|show` and `audit` in `access`, the upload queue's (`ingest --queue`, `jobs`,
`worker`) in `jobs`, `serve` in `serve`, `api`, `mcp` and `tokens` in `service`, `migrate` in
`library`; what they share (options, settings, principal) in `common`.
Errors meant for the user (`RagError`) are printed without a traceback and give exit code 1;
a refused file in `ingest`, and any refusal of access (`AccessDenied`), give exit code 2.
"""

from __future__ import annotations

import argparse
import logging
import sys

from rag_core.cli.access import add_access_commands
from rag_core.cli.common import add_command
from rag_core.cli.documents import add_document_commands
from rag_core.cli.jobs import add_job_commands
from rag_core.cli.library import add_library_commands
from rag_core.cli.questions import add_question_commands
from rag_core.cli.serve import add_serve_command
from rag_core.cli.service import add_service_commands
from rag_core.errors import AccessDenied, RagError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rag_core", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    add = add_command(sub)
    add_document_commands(add)
    add_question_commands(add)
    add_access_commands(sub, add)
    add_library_commands(sub, add)
    add_job_commands(add)
    add_serve_command(add)
    add_service_commands(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except AccessDenied as err:
        print(f"refused: {err}", file=sys.stderr)
        return 2
    except RagError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
