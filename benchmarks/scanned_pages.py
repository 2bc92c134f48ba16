"""Seconds per scanned page read by OCR: pymupdf4llm's own RapidOCR engine against the product's, paired.

    nice -n 10 .venv/bin/python -m benchmarks.scanned_pages [--pdf NAME] [--pages 6] [--dpi 200]

Makes scanned pages: the first `--pages` pages of a text PDF of the corpus rendered at `--dpi` and
put back as image-only pages (no text layer), as a scanner gives them. Each page is analysed by
`pymupdf4llm`'s `parse_document` with OCR forced (what the parser does for a page without text),
once with the engine pymupdf4llm builds for itself (`RapidOCR()`: one ONNX thread per core, each
spinning while it waits) and once with the engine the product gives it
(`parsing.page_ocr.product_engine`), the order alternating page by page. It prints, per page,
the CPU and wall seconds of each and whether the recognised text is the same, then the totals
and the load average. CPU seconds count every thread of this process.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
LIBRARY, PRODUCT = "pymupdf4llm's", "product's"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf-dir", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    parser.add_argument("--pdf", default="en_EIOPA_guidelines_valuation_technical_provisions.pdf")
    parser.add_argument("--pages", type=int, default=6)
    parser.add_argument("--dpi", type=int, default=200)
    args = parser.parse_args()

    import pymupdf
    from pymupdf4llm.helpers import document_layout
    from pymupdf4llm.ocr import rapidocr_391_backend as backend
    from rapidocr import RapidOCR

    from rag_core.parsing import page_ocr
    from rag_core.parsing.layout_runtime import use_single_thread_sessions

    use_single_thread_sessions()
    scanned = Path(tempfile.mkdtemp(prefix="scanned-")) / "scanned.pdf"
    with pymupdf.open(Path(args.pdf_dir) / args.pdf) as src, pymupdf.open() as out:
        for pno in range(min(args.pages, src.page_count)):
            pix = src[pno].get_pixmap(dpi=args.dpi, colorspace=pymupdf.csGRAY)
            page = out.new_page(width=src[pno].rect.width, height=src[pno].rect.height)
            page.insert_image(page.rect, pixmap=pix)
        out.save(scanned)
        pages = out.page_count
    engines = {LIBRARY: RapidOCR(), PRODUCT: page_ocr.product_engine()}

    def read(name: str, pno: int) -> tuple[float, float, str]:
        backend.ENGINE = engines[name]
        with pymupdf.open(scanned) as doc:
            t0, c0 = time.perf_counter(), time.process_time()
            layout = document_layout.parse_document(doc, pages=[pno], use_ocr=document_layout.OCRMode.FORCE_KEEP_OLD)
            cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        text = " ".join(
            span["text"]
            for page in layout.pages
            for box in page.boxes
            for line in box.textlines or []
            for span in line.get("spans") or []
        )
        return cpu, wall, " ".join(text.split())

    read(LIBRARY, 0)  # model loads, not timed
    read(PRODUCT, 0)
    print(f"{pages} scanned pages of {args.pdf} at {args.dpi} dpi; load average {os.getloadavg()[0]:.2f}", flush=True)
    totals = {name: [0.0, 0.0] for name in engines}
    same = 0
    for pno in range(pages):
        order = list(engines) if pno % 2 == 0 else list(engines)[::-1]
        got = {name: read(name, pno) for name in order}
        for name, (cpu, wall, _) in got.items():
            totals[name][0] += cpu
            totals[name][1] += wall
        equal = got[LIBRARY][2] == got[PRODUCT][2]
        same += equal
        print(
            f"page {pno + 1}: "
            + "  ".join(f"{name} CPU {cpu:5.2f} s wall {wall:5.2f} s" for name, (cpu, wall, _) in got.items())
            + f"  {'same text' if equal else 'TEXT DIFFERS'} ({len(got[PRODUCT][2])} chars)"
            + f"  load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    for name, (cpu, wall) in totals.items():
        print(f"{name:<14} CPU {cpu / pages:.2f} s/page, wall {wall / pages:.2f} s/page")
    print(f"same text on {same}/{pages} pages; load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
