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
SIGTERM or SIGINT ends a command and its page-parse helpers (exit code 143 or 130); `worker`, `serve`
and `api` replace that with their own orderly stop (a job back to the queue, the children stopped).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

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


class Stopped(BaseException):
    """The command was stopped by a signal (a BaseException, as KeyboardInterrupt: no `except Exception`
    on the way, such as an ingestion's per-file error report, may swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    """End the page-parse helpers at once (they would finish their batch first), then unwind this process."""
    from rag_core.parsing import page_workers

    page_workers.terminate()
    raise Stopped(signum)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    on_main_thread = threading.current_thread() is threading.main_thread()  # signals can only be set there
    signums = (signal.SIGTERM, signal.SIGINT) if on_main_thread else ()
    previous = {signum: signal.signal(signum, _stop) for signum in signums}
    try:
        return int(args.func(args))
    except Stopped as stop:
        print(f"stopped by {signal.Signals(stop.signum).name}", file=sys.stderr)
        return 128 + stop.signum
    except AccessDenied as err:
        print(f"refused: {err}", file=sys.stderr)
        return 2
    except RagError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    finally:
        for signum, handler in previous.items():  # main() also runs inside other programs (tests)
            signal.signal(signum, handler)
