"""The bad-files table: every bad file through `pipeline.ingest`, its outcome and message.

    nice -n 10 .venv/bin/python -m benchmarks.bad_files_table [--no-big]

The files and expected outcomes are those of tests/bad_files.py (the tested ones). Each case
runs on one temporary data dir that already holds a good document; the "too many pages" and
"too large" cases use a small limit setting. `--no-big` leaves out the two 48 MB files (their
OCR takes a while). The 2,000-page file is measured by benchmarks/memory_2000_pages.py.
Prints a Markdown table: case | outcome | message shown (message, then the warnings).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from tests import bad_files

os.environ.setdefault("HF_HUB_OFFLINE", "1")
LOCAL = Principal.local_operator()  # the local operator (administrator): measured on the whole library


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-big", action="store_true", help="leave out the two 48 MB files")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bad-files-"))
    settings = Settings(data_dir=work / "data")
    good = bad_files.make_pdf(work / "good.pdf", "Bornhuetter")
    assert pipeline.ingest([good], settings, principal=LOCAL)[0].status == "ingested"
    cases = bad_files.CASES + ([] if args.no_big else bad_files.BIG_CASES)
    rows, unexpected = [], 0
    for n, case in enumerate(cases):
        path = work / f"case{n}.pdf"
        case.make(path)
        run_settings = bad_files.with_parsing(settings, **case.parsing)
        if case.twice:
            pipeline.ingest([path], run_settings, file_names=[case.file_name], principal=LOCAL)
        result = pipeline.ingest([path], run_settings, file_names=[case.file_name], principal=LOCAL)[0]
        shown = bad_files.outcome_text(result)
        ok = result.status == case.status and case.phrase in shown
        unexpected += not ok
        outcome = result.status.replace("_", " ") + ("" if ok else f" (UNEXPECTED, wanted {case.status})")
        warnings = result.record.warnings if result.record else []
        message = result.message + "".join(f" — warning: {w}" for w in warnings)
        rows.append(f"| {cell(case.label)} | {outcome} | {cell(message)} |")
        print(f"{case.label}: {result.status}", file=sys.stderr, flush=True)
    print("| case | outcome | message shown |")
    print("| --- | --- | --- |")
    print("\n".join(rows))
    print(f"\n{len(rows)} cases, {unexpected} unexpected outcome(s); data dir {work}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
