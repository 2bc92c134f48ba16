"""Per-document summary of the PDF parse, and the differences between two summaries.

    nice -n 10 .venv/bin/python -m benchmarks.parse_summary [--pdfs DIR] --out FILE.json
    .venv/bin/python -m benchmarks.parse_summary --compare BEFORE.json AFTER.json

For each PDF of DIR (default: the shared corpus), parsed with the offline PyMuPDF backend and
chunked: text items (body, furniture), headings, tables, pictures, text items inside pictures,
chunk children and parents, and characters of body text. `--compare` prints, document by
document, every figure that changed (and the totals). It does not judge whether a change is
good: read the documents it names.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
DEFAULT_PDFS = REPO.parent / "shared" / "corpus" / "pdfs"
FIELDS = (
    "pages",
    "text_items",
    "furniture",
    "headings",
    "tables",
    "pictures",
    "picture_children",
    "children",
    "parents",
    "characters",
)


def summarise(path: Path, work: Path) -> dict:
    from docling_core.types.doc import ContentLayer, PictureItem, SectionHeaderItem, TableItem, TextItem, TitleItem

    from rag_core import chunking, parsing
    from rag_core.config import Settings

    settings = Settings(parsing={"backend": "pymupdf"})
    parsed = parsing.parse(path, settings, work / path.stem)
    doc = parsed.document
    counts = dict.fromkeys(FIELDS, 0)
    counts["pages"] = parsed.pages
    for item, _level in doc.iterate_items(
        included_content_layers={ContentLayer.BODY, ContentLayer.FURNITURE}, with_groups=False, traverse_pictures=True
    ):
        if isinstance(item, TableItem):
            counts["tables"] += 1
        elif isinstance(item, PictureItem):
            counts["pictures"] += 1
        elif isinstance(item, TextItem):
            if item.content_layer == ContentLayer.FURNITURE:
                counts["furniture"] += 1
                continue
            counts["text_items"] += 1
            counts["characters"] += len(item.text)
            if isinstance(item, (SectionHeaderItem, TitleItem)):
                counts["headings"] += 1
            if _in_picture(doc, item):
                counts["picture_children"] += 1
    chunked = chunking.build_chunks(doc, "summary" * 3, settings)
    counts["children"] = len(chunked.children)
    counts["parents"] = len(chunked.parents)
    counts["warnings"] = len(parsed.warnings)
    return counts


def _in_picture(doc, item) -> bool:
    from docling_core.types.doc import PictureItem

    parent = item.parent.resolve(doc) if item.parent else None
    while parent is not None:
        if isinstance(parent, PictureItem):
            return True
        parent = parent.parent.resolve(doc) if getattr(parent, "parent", None) else None
    return False


def compare(before: dict, after: dict) -> int:
    names = sorted(set(before) | set(after))
    totals_b = dict.fromkeys(FIELDS, 0)
    totals_a = dict.fromkeys(FIELDS, 0)
    changed = 0
    for name in names:
        b, a = before.get(name), after.get(name)
        if b is None or a is None:
            print(f"{name}: only in {'after' if b is None else 'before'}")
            continue
        diffs = [
            f"{f} {b.get(f, 0)} -> {a.get(f, 0)} ({a.get(f, 0) - b.get(f, 0):+d})"
            for f in FIELDS
            if b.get(f, 0) != a.get(f, 0)
        ]
        for f in FIELDS:
            totals_b[f] += b.get(f, 0)
            totals_a[f] += a.get(f, 0)
        if diffs:
            changed += 1
            print(f"{name}:\n    " + "\n    ".join(diffs))
    print(f"\n{changed} of {len(names)} documents changed")
    print("totals: " + ", ".join(f"{f} {totals_b[f]} -> {totals_a[f]}" for f in FIELDS))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdfs", type=Path, default=DEFAULT_PDFS, help="folder of PDFs (default: the shared corpus)")
    ap.add_argument("--out", type=Path, help="write the summary as JSON here")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="print the differences")
    args = ap.parse_args()
    if args.compare:
        return compare(*(json.loads(p.read_text()) for p in args.compare))
    if not args.out:
        ap.error("--out or --compare is needed")
    summary: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="parse-summary-") as tmp:
        for path in sorted(args.pdfs.glob("*.pdf")):
            started = time.perf_counter()
            summary[path.name] = summarise(path, Path(tmp))
            print(f"{path.name}: {summary[path.name]} ({time.perf_counter() - started:.0f} s)", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
