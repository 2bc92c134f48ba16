"""CPU seconds per page of PyMuPDF's layout analysis with its ONNX sessions built two ways, paired.

    nice -n 10 .venv/bin/python -m benchmarks.layout_sessions [--pdf PATH] [--pages N] [--rounds R]
    nice -n 10 .venv/bin/python -m benchmarks.layout_sessions --parse NAME ... [--rounds R]

Both ways run one thread per session (`rag_core.parsing.layout_runtime`); "off" has ONNX Runtime's
CPU memory arena off in the page-image model (as pymupdf-layout builds it), "on" has it on (the
product's setting); the box GNN has it off in both.
Each round analyses the same pages with one then the other, the order alternating round by round
so that the machine's load drifts alike for both; it prints the CPU seconds per page of each
(this process: the sessions run on one thread), whether the layout boxes are identical on every
page, the peak resident memory and the load average.

`--parse NAME ...` measures the whole parse instead (`PyMuPDFParser`, one process, the corpus PDFs
whose file names are given): each round runs one fresh process with the arena off and one with it
on, the order alternating, and each prints its CPU seconds per page (after an untimed warm-up
parse) and its peak resident memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnxruntime as ort
import pymupdf

from rag_core.parsing import layout_runtime

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "pdfs"
DEFAULT_PDF = CORPUS / "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
WARM_UP = "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf"


def _one_parse(arena: str, names: list[str]) -> None:
    """The parse of `names` in this process with the arena `on` or `off`: CPU s per page, peak memory."""
    layout_runtime.ARENA = arena == "on"
    from rag_core.config import Settings
    from rag_core.parsing.pymupdf_parser import PyMuPDFParser

    settings = Settings(data_dir=tempfile.mkdtemp(prefix="bench-layout-"))
    settings.parsing.workers = 1
    parser, out = PyMuPDFParser(), Path(tempfile.mkdtemp(prefix="bench-layout-art-"))
    parser.parse(CORPUS / WARM_UP, settings, out / "warm-up")
    started, pages = time.process_time(), 0
    for name in names:
        pages += parser.parse(CORPUS / name, settings, out / name).pages
    cpu = (time.process_time() - started) / max(pages, 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"arena {arena}: {pages} pages, {cpu:.4f} CPU s/page, peak {peak:.0f} MB, load {os.getloadavg()[0]:.2f}")


def _paired_parses(names: list[str], rounds: int) -> None:
    for rnd in range(rounds):
        for arena in ("off", "on") if rnd % 2 == 0 else ("on", "off"):
            command = [sys.executable, "-m", "benchmarks.layout_sessions", "--one", arena, "--parse", *names]
            subprocess.run(command, check=True, cwd=REPO)


def _sessions(model, arena: bool) -> tuple[ort.InferenceSession, ort.InferenceSession]:
    """(box GNN, page-image model): the GNN never has the arena, as in the product."""
    providers = ["CPUExecutionProvider"]
    return (
        ort.InferenceSession(model.model_path, sess_options=layout_runtime.session_options(), providers=providers),
        ort.InferenceSession(
            model.imf_model_path, sess_options=layout_runtime.session_options(arena), providers=providers
        ),
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
    parser.add_argument("--parse", nargs="+", metavar="NAME", help="corpus PDFs parsed whole, arena off vs on")
    parser.add_argument("--one", choices=("off", "on"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _one_parse(args.one, args.parse or [])
        return 0
    if args.parse:
        _paired_parses(args.parse, args.rounds)
        return 0
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
