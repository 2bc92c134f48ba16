"""Outline entries found as headings at their page, for every corpus PDF that has an outline.

    nice -n 10 .venv/bin/python -m benchmarks.outline_coverage [--pdfs DIR] [--only SUBSTRING]

Each PDF is parsed with the offline PyMuPDF backend, OCR and table images off (they do not
change the text layer's headings), on the pages its outline points at and the page after each
(`tests/outline_support.py`). Prints found/entries per PDF, every missed entry, and the total.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]

DEFAULT_PDFS = REPO.parent / "shared" / "corpus" / "pdfs"


def main() -> None:
    import pymupdf

    from rag_core.config import Settings
    from rag_core.parsing import parse
    from tests.outline_support import cut_with_outline, missed_entries, outline_pages

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdfs", type=Path, default=DEFAULT_PDFS)
    parser.add_argument("--only", default="", help="only the PDFs whose name holds this")
    args = parser.parse_args()
    found_all = entries_all = 0
    for pdf in sorted(args.pdfs.glob("*.pdf")):
        if args.only not in pdf.name:
            continue
        with pymupdf.open(pdf) as doc:
            if not doc.get_toc(simple=True):
                continue
        with tempfile.TemporaryDirectory(prefix="outline-") as tmp:
            settings = Settings(data_dir=Path(tmp) / "data")
            parsing = settings.parsing.model_copy(
                update={"backend": "pymupdf", "ocr": False, "table_images": False, "workers": 1}
            )
            settings = settings.model_copy(update={"parsing": parsing})
            pages = outline_pages(pdf)
            toc = cut_with_outline(pdf, pages, Path(tmp) / "cut.pdf")
            started = time.perf_counter()
            document = parse(Path(tmp) / "cut.pdf", settings, Path(tmp) / "artifacts").document
            missed = missed_entries(document, toc)
        back = {index + 1: page for index, page in enumerate(pages)}
        found = len(toc) - len(missed)
        found_all, entries_all = found_all + found, entries_all + len(toc)
        share = found / len(toc)
        seconds = time.perf_counter() - started
        print(f"{found}/{len(toc)} ({share:.0%}) {pdf.name}  [{len(pages)} pages, {seconds:.0f} s]")
        for level, title, page in missed:
            print(f"    missed: level {level}, page {back[page]}: {title!r}")
    if entries_all:
        print(f"total {found_all}/{entries_all} ({found_all / entries_all:.1%})")


if __name__ == "__main__":
    main()
