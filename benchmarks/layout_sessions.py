"""CPU seconds per page of PyMuPDF's layout analysis with its ONNX sessions built two ways, paired.

    nice -n 10 .venv/bin/python -m benchmarks.layout_sessions [--pdf PATH] [--pages N] [--rounds R]

Both ways run one thread per session (`rag_core.parsing.layout_runtime`); "off" has ONNX Runtime's
CPU memory arena off (as pymupdf-layout builds them), "on" has it on (the product's setting).
Each round analyses the same pages with one then the other, the order alternating round by round
so that the machine's load drifts alike for both; it prints the CPU seconds per page of each
(this process: the sessions run on one thread), whether the layout boxes are identical on every
page, the peak resident memory and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import onnxruntime as ort
import pymupdf

from rag_core.parsing import layout_runtime

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PDF = REPO.parent / "shared" / "corpus" / "pdfs" / "en_EIOPA_guidelines_valuation_technical_provisions.pdf"


def _sessions(model, arena: bool) -> tuple[ort.InferenceSession, ort.InferenceSession]:
    options = layout_runtime.session_options()
    options.enable_cpu_mem_arena = arena
    providers = ["CPUExecutionProvider"]
    return (
        ort.InferenceSession(model.model_path, sess_options=options, providers=providers),
        ort.InferenceSession(model.imf_model_path, sess_options=options, providers=providers),
    )


def _boxes(doc: pymupdf.Document, pages: int) -> tuple[list, float]:
    started = time.process_time()
    found = []
    for pno in range(pages):
        page = doc[pno]
        page.get_layout(return_raw=True)
        raw: list = getattr(page, "layout_information", None) or []
        found.append([(g["class_name"], [round(v, 3) for v in g["group_bbox"][:4]]) for g in raw])
    return found, time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf", default=str(DEFAULT_PDF))
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    layout_runtime.use_single_thread_sessions()
    model = layout_runtime.layout_model()
    if model is None:
        raise SystemExit("pymupdf-layout's model was not found (layout_runtime)")
    built = {arena: _sessions(model, arena) for arena in (False, True)}
    doc = pymupdf.open(args.pdf)
    pages = min(args.pages, doc.page_count)
    cpu = {False: 0.0, True: 0.0}
    boxes: dict[bool, list] = {}
    for rnd in range(args.rounds + 1):  # round 0 warms both up, untimed
        for arena in (False, True) if rnd % 2 == 0 else (True, False):
            model.session, model.feature_extractor._session = built[arena]
            found, seconds = _boxes(doc, pages)
            boxes.setdefault(arena, found)
            if rnd:
                cpu[arena] += seconds
    per_page = {arena: cpu[arena] / (args.rounds * pages) for arena in cpu}
    print(f"{Path(args.pdf).name}: {pages} pages x {args.rounds} rounds, load average {os.getloadavg()[0]:.2f}")
    print(f"CPU s per page of layout analysis: arena off {per_page[False]:.3f}, on {per_page[True]:.3f}")
    same = boxes[False] == boxes[True]
    print(f"on/off {per_page[True] / per_page[False]:.3f}; identical boxes on every page: {same}")
    print(f"peak resident memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
