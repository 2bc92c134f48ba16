"""ANN recall@20 of the children's IVF_HNSW_SQ index against exact search, on >= 50,000 REAL embeddings.

    nice .venv/bin/python -m benchmarks.ann_recall [--passages 50000] [--cache /tmp/ann_cache]

The corpus (../shared/corpus/pdfs, 538 pages) has about a thousand children, far from the
50,000 at which `Store.optimize` builds the ANN index. So this script makes 50,000 distinct
real passages from the corpus text: windows of 1 to 6 consecutive text lines of every
page, shuffled with a fixed seed. They are embedded with the product's offline embedder
(passage prompt, as children are) and written as children of their own PDF through
`Store.write_document`, then the ANN index is built exactly as the product builds it.

Queries, all real: the 125 development questions (query prompt) and 375 passages held out of
the index (passage-to-passage neighbours). For each, recall@20 = |ANN top 20 ∩ exact top 20| / 20,
with the product's search parameters (`store.ANN_NPROBES`, `store.ANN_REFINE`), over the whole
library and with a prefilter on 5 of the 19 documents (a collection scope). Target: >= 0.95.

Embedding 50,000 passages takes about 30-45 minutes on 2 cores; vectors are cached under
--cache (resumable), so a rerun only rebuilds the table and measures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pymupdf

from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.models import Child, DocumentRecord, HighlightBox, Parent
from rag_core.retrieval import fuse_parents, run_channels
from rag_core.store import ANN_NPROBES, ANN_REFINE, Store

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
HELD_OUT = 375
BATCH = 64
WINDOWS = (1, 2, 3, 4, 5, 6)  # consecutive lines per passage: enough distinct passages for 50k


def corpus_passages() -> list[tuple[str, str]]:
    """(pdf name, text) windows of 1-6 consecutive lines of every page, distinct, shuffled."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for pdf in sorted((SHARED / "corpus" / "pdfs").glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            for page in doc:
                lines = [ln.strip() for ln in page.get_text().splitlines() if len(ln.strip()) >= 15]
                for width in WINDOWS:
                    for i in range(len(lines) - width + 1):
                        text = " ".join(lines[i : i + width])
                        if text not in seen:
                            seen.add(text)
                            out.append((pdf.name, text))
    random.Random(0).shuffle(out)
    return out


def _cache_file(texts: list[str], cache: Path) -> Path:
    key = hashlib.sha256(("\n".join(texts) + select_embedder(Settings()).name).encode()).hexdigest()[:16]
    return cache / f"vectors-{key}.npy"


def embed_cached(texts: list[str], cache: Path) -> np.ndarray:
    """Passage vectors, saved every few batches so an interrupted run resumes."""
    embedder = select_embedder(Settings())
    cache.mkdir(parents=True, exist_ok=True)
    path = _cache_file(texts, cache)
    done = np.load(path) if path.exists() else np.zeros((0, embedder.dim), np.float32)
    started, start_n = time.perf_counter(), len(done)
    parts = [done]
    for i in range(len(done), len(texts), BATCH):
        parts.append(embedder.embed_passages(texts[i : i + BATCH]).astype(np.float32))
        n = i + len(parts[-1])
        if len(parts) >= 8 or n == len(texts):
            parts = [np.vstack(parts)]
            np.save(path, parts[0])
            rate = (n - start_n) / (time.perf_counter() - started)
            print(f"  embedded {n:,}/{len(texts):,} ({rate:.1f} passages/s)", flush=True)
    return np.vstack(parts)


def cached_prefix(texts: list[str], cache: Path) -> np.ndarray:
    """The vectors an interrupted `embed_cached` run saved for the first passages of `texts`."""
    path = _cache_file(texts, cache)
    if not path.exists():
        raise SystemExit(f"no cached vectors for these passages in {cache}")
    return np.load(path)


def build(store: Store, rows: list[tuple[str, str]], vectors: np.ndarray) -> dict[str, str]:
    """One document per PDF, one parent per 4 children; returns pdf name -> doc id."""
    box = HighlightBox(page=1, x0=10, y0=10, x1=100, y1=20)
    by_pdf: dict[str, list[int]] = {}
    for i, (pdf, _) in enumerate(rows):
        by_pdf.setdefault(pdf, []).append(i)
    ids = {}
    for pdf, idx in sorted(by_pdf.items()):
        doc_id = hashlib.sha256(pdf.encode()).hexdigest()
        ids[pdf] = doc_id
        parents, children = [], []
        for j, i in enumerate(idx):
            text = rows[i][1]
            pid = f"{doc_id[:16]}:p{j // 4:05d}"
            children.append(
                Child(
                    id=f"{doc_id[:16]}:c{j:06d}",
                    parent_id=pid,
                    doc_id=doc_id,
                    index=j,
                    text=text,
                    context_text=text,
                    start=0,
                    end=len(text),
                    tokens=len(text) // 4,
                    pages=[1],
                    boxes=[box],
                )
            )
            if j % 4 == 0:
                parents.append(
                    Parent(
                        id=pid,
                        doc_id=doc_id,
                        index=j // 4,
                        heading_path=[pdf],
                        text=text,
                        tokens=len(text) // 4,
                        pages=[1],
                        child_ids=[],
                    )
                )
        record = DocumentRecord(
            doc_id=doc_id,
            file_name=pdf,
            title=pdf,
            collection="bench",
            language="fr" if pdf.startswith("fr_") else "en",
            pages=1,
            parents=len(parents),
            children=len(children),
            tables=0,
            parser="benchmark",
            embedder="benchmark",
            ingested_at="",
            elapsed_s=0,
        )
        store.write_document(record, parents, children, vectors[idx], "benchmark")
    return ids


def recall(store: Store, queries: np.ndarray, scope: list[str], k: int = 20) -> tuple[float, float]:
    """Mean recall@k of ANN against exact search, and the share of queries below 0.95."""
    values = []
    for q in queries:
        exact = {h.child_id for h in store.dense(q, scope, k, exact=True)}
        approx = {h.child_id for h in store.dense(q, scope, k)}
        values.append(len(exact & approx) / max(1, len(exact)))
    return float(np.mean(values)), float(np.mean([v < 0.95 for v in values]))


def dev_questions() -> list[str]:
    out = []
    for name in ("dev_questions.jsonl", "dev_hard_questions.jsonl"):
        with (SHARED / "eval" / name).open() as handle:
            out += [json.loads(line)["question"] for line in handle if line.strip()]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=50_000)
    parser.add_argument("--cache", default="/tmp/ann_cache")
    parser.add_argument(
        "--cached-only",
        action="store_true",
        help="embed nothing: measure on the passages an interrupted run already embedded",
    )
    args = parser.parse_args()
    rows = corpus_passages()
    need = args.passages + HELD_OUT
    if len(rows) < need:
        print(f"the corpus gives only {len(rows):,} distinct passages; asked for {need:,}")
        return 1
    rows = rows[:need]
    if args.cached_only:
        vectors = cached_prefix([t for _, t in rows], Path(args.cache))
        rows = rows[: len(vectors)]
        args.passages = len(rows) - HELD_OUT
        print(
            f"--cached-only: {args.passages:,} embedded passages indexed (+{HELD_OUT} held out), "
            f"not the {need - HELD_OUT:,} asked for"
        )
    else:
        print(f"{len(rows):,} real passages from the corpus (1-6 line windows); embedding (cached in {args.cache})")
        vectors = embed_cached([t for _, t in rows], Path(args.cache))
    # Held-out queries come from the end of the shuffled list, so they are never indexed.
    indexed, held = rows[: args.passages], vectors[args.passages :]
    embedder = select_embedder(Settings())
    questions = dev_questions()
    qvecs = np.vstack([embedder.embed_query(q) for q in questions])

    store = Store(tempfile.mkdtemp(prefix="ann-recall-"))
    t0 = time.perf_counter()
    ids = build(store, indexed, vectors[: args.passages])
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.optimize(ann_min_rows=0 if args.cached_only else 50_000)  # below 50k the product would not build it
    indexed_s = time.perf_counter() - t0
    names = {idx.name for idx in store.db.open_table("children").list_indices()}
    print(
        f"{store.count_children():,} children in {len(ids)} documents: written in {built:.0f} s, "
        f"indexes built in {indexed_s:.0f} s ({', '.join(sorted(names))})"
    )
    assert "vector_idx" in names, "optimize() did not build the ANN index"

    scope_all = sorted(ids.values())
    scope_some = [ids[p] for p in sorted(ids)[::4]][:5]
    print(
        f"\nANN recall@20 vs exact (IVF_HNSW_SQ, nprobes={ANN_NPROBES}, refine_factor={ANN_REFINE}); "
        "mean, and share of queries under 0.95:"
    )
    for label, queries in (("dev questions", qvecs), ("held-out passages", held)):
        for scope_label, scope in (("whole library", scope_all), ("5-document prefilter", scope_some)):
            mean, low = recall(store, queries, scope)
            print(f"  {label:18s} ({len(queries):3d}), {scope_label:21s}: recall@20 {mean:.3f}   under 0.95: {low:.1%}")

    latencies = []
    for q, v in zip(questions, qvecs, strict=True):
        t = time.perf_counter()
        fuse_parents(run_channels(q, v, store, scope_all, 20, "en"))
        latencies.append((time.perf_counter() - t) * 1000)
    latencies.sort()
    print(
        f"\nhybrid retrieval at this size, without the question's embedding: "
        f"p50 {statistics.median(latencies):.1f} ms, p95 {latencies[int(0.95 * (len(latencies) - 1))]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
