"""An outside development set that the retrieval rules are not tuned on: a subset of MMLongBench-Doc.

    python -m benchmarks.outside_set --mirror /work/.mirror/mayubo2333+MMLongBench-Doc/repo \
        --out /work/cache/outside
    python -m benchmarks.outside_set --mirror ... --skip 14 --out /work/cache/outside-b   # the next 14

MMLongBench-Doc (github.com/mayubo2333/MMLongBench-Doc) holds 135 PDFs (reports, brochures, papers,
filings, guides) and 1,082 questions with evidence pages, 22 % of them unanswerable. Its licence
allows evaluation only: nothing of it enters this repository. This script reads the PDFs and
`data/samples.json` from a local git copy of it (`git show`), and writes under `--out`:
`pdfs/` (the chosen PDFs) and `questions.jsonl` in the dev sets' format (shared/eval/README.md:
`pages` are 1-based PDF pages, as MMLongBench's `evidence_pages` are).

The subset is chosen by rule, not by looking at results: PDFs with a text layer (at least
`MIN_CHARS_PER_PAGE` characters a page on average) and at most `--max-pages` pages, taken round-robin
over the document types in file-name order until `--docs` PDFs; their questions whose evidence is
text or a table (a chart or a picture needs vision, which this product does not claim) and their
unanswerable ones. `--skip N` passes over the first N PDFs the rule chooses and takes the next
`--docs`: a second set by the same rule that shares no PDF with the first (set A is `--skip 0`, set B
`--skip 14`), to measure once on documents nothing was tuned on. `--min-pages` takes longer PDFs only:
once the sets of 40 pages at most are used up (A to D), set E is `--min-pages 41 --max-pages 70`.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pymupdf

MIN_CHARS_PER_PAGE = 800
TEXT_SOURCES = {"Pure-text (Plain-text)", "Table", "Generalized-text (Layout)"}
UNANSWERABLE = "Not answerable"


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True, capture_output=True).stdout


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").is_dir() else path


def _usable(data: bytes, max_pages: int, min_pages: int = 1) -> int | None:
    """The PDF's page count when it has a text layer and `min_pages` to `max_pages` pages; else None."""
    try:
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            pages = doc.page_count
            if pages == 0 or pages > max_pages or pages < min_pages:
                return None
            chars = sum(len(page.get_text()) for page in doc)
    except (RuntimeError, ValueError):
        return None
    return pages if chars / pages >= MIN_CHARS_PER_PAGE else None


def _row(q: dict, number: int) -> dict | None:
    pdf = q["doc_id"]
    if q["answer"] == UNANSWERABLE:
        return {"id": f"mmlb-na-{number:04d}", "pdf": None, "question": q["question"], "language": "en",
                "type": "unanswerable", "pages": [], "answer": "", "quote": None, "scope_pdf": pdf}  # fmt: skip
    sources = set(ast.literal_eval(q["evidence_sources"]))
    pages = [int(p) for p in ast.literal_eval(q["evidence_pages"])]
    if not pages or not sources & TEXT_SOURCES:
        return None
    kind = "numeric_table" if "Table" in sources else "text"
    return {"id": f"mmlb-{number:04d}", "pdf": pdf, "question": q["question"], "language": "en", "type": kind,
            "pages": pages, "answer": str(q["answer"]), "quote": None}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, required=True, help="a git copy of mayubo2333/MMLongBench-Doc")
    parser.add_argument("--out", type=Path, default=Path("/work/cache/outside"))
    parser.add_argument("--docs", type=int, default=14)
    parser.add_argument("--max-pages", type=int, default=40)
    parser.add_argument("--min-pages", type=int, default=1, help="longer PDFs only (a set after A-D)")
    parser.add_argument("--skip", type=int, default=0, help="pass over the first N PDFs the rule chooses")
    args = parser.parse_args()
    mirror = _git_dir(args.mirror)
    samples = json.loads(_git(mirror, "show", "HEAD:data/samples.json"))
    by_doc: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    for number, q in enumerate(samples):
        by_doc[q["doc_id"]].append((number, q))
    types: dict[str, list[str]] = defaultdict(list)
    for doc in sorted(by_doc):
        types[by_doc[doc][0][1]["doc_type"]].append(doc)
    if args.skip < 0 or args.docs < 1:
        parser.error("--skip must be 0 or more and --docs 1 or more")
    (args.out / "pdfs").mkdir(parents=True, exist_ok=True)
    wanted = args.skip + args.docs
    chosen: list[str] = []
    queues = [list(docs) for _, docs in sorted(types.items())]
    while len(chosen) < wanted and any(queues):
        for queue in queues:
            while queue and len(chosen) < wanted:
                doc = queue.pop(0)
                try:
                    data = _git(mirror, "show", f"HEAD:data/documents/{doc}")
                except subprocess.CalledProcessError:
                    continue  # not in the copy (a large file left out)
                pages = _usable(data, args.max_pages, args.min_pages)
                if pages is None:
                    continue
                chosen.append(doc)
                if len(chosen) > args.skip:  # the first `--skip` are another set's
                    (args.out / "pdfs" / doc).write_bytes(data)
                    print(f"{doc}: {pages} pages, {by_doc[doc][0][1]['doc_type']}", file=sys.stderr)
                break
    chosen = chosen[args.skip :]
    rows = [r for doc in chosen for number, q in by_doc[doc] if (r := _row(q, number)) is not None]
    with (args.out / "questions.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    answerable = sum(1 for r in rows if r["pdf"])
    print(f"{len(chosen)} PDFs, {len(rows)} questions ({answerable} answerable) in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
