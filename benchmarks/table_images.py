"""Seconds per table image read by OCR, this tree against an earlier version, paired picture by picture.

    nice -n 10 .venv/bin/python -m benchmarks.table_images [--old REV] [--pdfs NAME ...] [--rounds N]
                                                           [--param KEY=VALUE ...]

Each image of the selected PDFs (default: the French triangles report) that is large enough to be
a table is read by `table_images.read_table_picture` of this tree ("new") and of the module as it
was at git revision REV ("old", default main), one after the other, the order alternating picture
by picture so that the machine's load drifts alike for both; each engine is warmed up first
(model loads not timed). It prints, per picture, both times and whether the two grids are equal
cell for cell (the text and the place of every cell), then the totals, the median ratio and the
load average with each figure. Times are CPU seconds of this process (the OCR engines run on
one thread), which a loaded machine inflates far less than wall seconds; wall totals are printed too.
`--param 'Rec.rec_img_shape=[3,48,160]'` overrides one of the new module's RapidOCR settings
(values read as JSON), to try candidates without editing the module; `--pages` and `--limit`
keep fewer pictures, `--diffs N` shows N differing cells per picture.
The picture boxes are the page's image boxes (what the parser's picture blocks hold for these
reports); the whole-document figure is `benchmarks/ingest.py`'s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]

MODULE = "rag_core/parsing/table_images.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf-dir", default=str(REPO.parent / "shared" / "corpus" / "pdfs"))
    parser.add_argument("--pdfs", nargs="+", default=["triangles_cadences"], metavar="NAME")
    parser.add_argument("--old", default="main", help="git revision of the module to compare with")
    parser.add_argument("--rounds", type=int, default=1, help="times each picture is read by each version")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--limit", type=int, help="only the first N pictures")
    parser.add_argument("--pages", type=int, nargs="+", help="only pictures of these pages (1-based)")
    parser.add_argument("--diffs", type=int, default=4, help="differing cells shown per picture")
    args = parser.parse_args()
    pdfs = [p for p in sorted(Path(args.pdf_dir).glob("*.pdf")) if any(n in p.name for n in args.pdfs)]
    if not pdfs:
        parser.error("no PDF selected")

    import pymupdf

    from rag_core.parsing import table_images as new
    from rag_core.parsing.document_builder import Block

    for item in args.param:
        key, _, value = item.partition("=")
        new.ENGINE_PARAMS[key] = json.loads(value)
    old = _module_at(args.old)
    pictures = []
    for pdf in pdfs:
        with pymupdf.open(pdf) as doc:
            for page in doc:
                for info in page.get_image_info():
                    r = pymupdf.Rect(info["bbox"]) & page.rect
                    if r.width >= 40 and r.height >= 30:
                        pictures.append((pdf, page.number, (r.x0, r.y0, r.x1, r.y1)))
    pictures = [p for p in pictures if not args.pages or p[1] + 1 in args.pages]
    pictures = pictures[: args.limit] if args.limit else pictures
    print(
        f"{len(pictures)} pictures in {len(pdfs)} PDF(s); old = {args.old}, new = this tree "
        f"{new.ENGINE_PARAMS}; load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )

    def read(module, pdf: Path, pno: int, bbox) -> tuple[float, list | None]:
        """CPU seconds of the read (the engines run on one thread here: robust to a loaded machine)
        and the grid; the wall seconds are added to `walls`."""
        with pymupdf.open(pdf) as doc:
            page = doc[pno]
            t0, c0 = time.perf_counter(), time.process_time()
            block = module.read_table_picture(page, Block("picture", pno + 1, bbox))
            seconds = time.process_time() - c0
            walls[module.__name__] = walls.get(module.__name__, 0.0) + time.perf_counter() - t0
        if block is None or block.kind != "table":
            return seconds, None
        return seconds, [(c.row, c.col, c.row_span, c.col_span, c.text) for c in block.cells]

    walls: dict[str, float] = {}

    read(old, *pictures[0])  # model loads, not timed
    read(new, *pictures[0])
    walls.clear()
    rows = []
    for n, (pdf, pno, bbox) in enumerate(p for p in pictures for _ in range(args.rounds)):
        first, second = (old, new) if n % 2 == 0 else (new, old)
        a, b = read(first, pdf, pno, bbox), read(second, pdf, pno, bbox)
        (t_old, g_old), (t_new, g_new) = (a, b) if first is old else (b, a)
        rows.append((t_old, t_new, g_old, g_new))
        shape = "not a table" if g_new is None else f"{1 + max(c[0] for c in g_new)}x{1 + max(c[1] for c in g_new)}"
        print(
            f"{pdf.name[:40]:<40} p{pno + 1:<3} {bbox[2] - bbox[0]:4.0f}x{bbox[3] - bbox[1]:<4.0f}pt "
            f"CPU old {t_old:6.2f} s  new {t_new:6.2f} s  {shape:<11} "
            f"{'same grid' if g_old == g_new else 'DIFFERENT: ' + _diff(g_old, g_new, args.diffs)}  "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    tables = [r for r in rows if r[2] is not None or r[3] is not None]
    print(
        f"\nall pictures, CPU: old {sum(r[0] for r in rows):.1f} s, new {sum(r[1] for r in rows):.1f} s; "
        f"median new/old {statistics.median(r[1] / r[0] for r in rows):.2f}"
    )
    if tables:
        print(
            f"tables ({len(tables)}), CPU: old {statistics.median(r[0] for r in tables):.2f} s, "
            f"new {statistics.median(r[1] for r in tables):.2f} s per table image (median); "
            f"median new/old {statistics.median(r[1] / r[0] for r in tables):.2f}"
        )
    print(f"wall: old {walls.get(old.__name__, 0):.1f} s, new {walls.get(new.__name__, 0):.1f} s")
    same = sum(r[2] == r[3] for r in rows)
    print(f"same grid: {same}/{len(rows)}; load average now {os.getloadavg()[0]:.2f}")
    return 0


def _module_at(rev: str):
    """`table_images` as it was at `rev`, imported under another name (its own OCR engine)."""
    source = subprocess.run(["git", "show", f"{rev}:{MODULE}"], cwd=REPO, capture_output=True, check=True).stdout
    path = Path(tempfile.mkdtemp(prefix="table-images-old-")) / "table_images_old.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("table_images_old", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _diff(old: list | None, new: list | None, shown: int) -> str:
    if old is None or new is None:
        return f"old {'none' if old is None else 'a table'}, new {'none' if new is None else 'a table'}"
    a, b = {c[:2]: c[4] for c in old}, {c[:2]: c[4] for c in new}
    changed = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return f"{len(changed)} cells differ, e.g. " + "; ".join(f"{k}: {x!r} -> {y!r}" for k, x, y in changed[:shown])


if __name__ == "__main__":
    sys.exit(main())
