"""Hybrid retrieval latency at 10,000 and 100,000 children, and ANN recall@20.

    .venv/bin/python -m benchmarks.query_latency [--sizes 10000 100000] [--library DIR]

Synthetic rows for scale: texts drawn from the vocabulary of the real corpus questions and
random unit vectors of the offline embedder's dimension, in one collection of 50 documents,
two children per page (as in the corpus: 1,083 children on 538 pages), so 100k children lie
on 50k pages. For each size: p50/p95 of hybrid retrieval (the three channels, lexical and
dense over children and BM25 over whole pages, + RRF on parents, with the scope prefilter)
without the question's embedding (vector precomputed) and with it.
With `--bilingual` every other document is French and each question is also searched with the
cross-lingual channels (the dense channel over the documents of the other language, and BM25
of the question's translated terms over them): the cost of those channels, measured on the
same questions in the same run, alternately with and without them.
ANN recall@20 against exact search is measured on REAL embeddings: the children of a library
built by benchmarks/ingest.py (--library) with the dev questions as queries; and, for
reference, on the synthetic 100k table. Targets (2 cores, without embedding): p50 ≤ 30 ms at
10k and ≤ 60 ms at 100k; recall@20 ≥ 0.95.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rag_core import understanding
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.library import DocumentFolder
from rag_core.models import Child, DocumentRecord, HighlightBox, Parent
from rag_core.retrieval import (
    fuse_parents,
    fuse_with_other_language,
    only_in_other_language,
    other_language,
    run_channels,
)
from rag_core.store import Store
from rag_core.text import detect_language
from rag_core.understanding import term_presence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
EVAL = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared")) / "eval"


def questions() -> list[str]:
    out = []
    for name in ("dev_questions.jsonl", "dev_hard_questions.jsonl"):
        with (EVAL / name).open() as handle:
            out += [json.loads(line)["question"] for line in handle if line.strip()]
    return out


def build(
    store: Store,
    n: int,
    dim: int,
    vocab: list[str],
    rng: random.Random,
    bilingual: bool = False,
    data_dir: Path | None = None,
) -> list[str]:
    docs = 50
    per_doc = n // docs
    box = HighlightBox(page=1, x0=10, y0=10, x1=100, y1=20)
    nprng = np.random.default_rng(0)
    settings = Settings(data_dir=data_dir) if bilingual and data_dir is not None else None
    vocabulary = term_presence.vocabulary(settings) if settings is not None else None
    for d in range(docs):
        doc_id = f"{d:064x}"
        parents, children = [], []
        for i in range(per_doc):
            text = " ".join(rng.choices(vocab, k=60))
            pid = f"{doc_id[:16]}:p{i // 4:04d}"
            children.append(
                Child(
                    id=f"{doc_id[:16]}:c{i:05d}",
                    parent_id=pid,
                    doc_id=doc_id,
                    index=i,
                    text=text,
                    context_text=text,
                    start=0,
                    end=len(text),
                    tokens=90,
                    pages=[i // 2 + 1],
                    boxes=[box],
                )
            )
            if i % 4 == 0:
                parents.append(
                    Parent(
                        id=pid,
                        doc_id=doc_id,
                        index=i // 4,
                        heading_path=["S"],
                        text=text,
                        tokens=90,
                        pages=[i // 2 + 1, i // 2 + 2],
                        child_ids=[],
                    )
                )
        page_texts = [" ".join(c.text for c in children[2 * p : 2 * p + 2]) for p in range((per_doc + 1) // 2)]
        vectors = nprng.standard_normal((per_doc, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        record = DocumentRecord(
            doc_id=doc_id,
            file_name=f"{d}.pdf",
            title=str(d),
            collection="bench",
            language="fr" if bilingual and d % 2 else "en",
            pages=1,
            parents=len(parents),
            children=per_doc,
            tables=0,
            parser="synthetic",
            embedder="synthetic",
            ingested_at="",
            elapsed_s=0,
        )
        store.write_document(record, parents, children, vectors, "synthetic", page_texts)
        if settings is not None and vocabulary is not None:  # the glossary terms each document holds, as ingestion
            term_presence.write_held_labels(
                DocumentFolder(settings.documents_dir, doc_id), [c.context_text for c in children], vocabulary
            )
    return [f"{d:064x}" for d in range(docs)]


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return f"p50 {statistics.median(ms):6.1f} ms   p95 {ms[int(0.95 * (len(ms) - 1))]:6.1f} ms"


def recall_at(store: Store, queries: np.ndarray, scope: list[str], k: int = 20) -> float:
    hits = []
    for q in queries:
        exact = {h.child_id for h in store.dense(q, scope, k, exact=True)}
        approx = {h.child_id for h in store.dense(q, scope, k)}
        hits.append(len(exact & approx) / max(1, len(exact)))
    return float(np.mean(hits))


def crosslingual(store: Store, scope: list[str], qs: list[str], qvecs: np.ndarray, pages: bool, data_dir: Path) -> None:
    """The three channels alone and with the cross-lingual ones, alternately on each question
    (the question's language detected, its terms translated, the terms only the other language's
    documents hold looked up: what `retrieval.search` does)."""
    settings = Settings(data_dir=data_dir)
    weights = settings.retrieval
    plain: list[float] = []
    both: list[float] = []
    for rep in range(2):
        for q, v in zip(qs, qvecs, strict=True):
            runs = [False, True] if rep % 2 == 0 else [True, False]
            for with_other in runs:
                t = time.perf_counter()
                lang = detect_language(q)
                # `retrieval.search` reads the document records for every question (the results
                # carry them), with or without the cross-lingual channels: both arms read them.
                languages = {r.doc_id: r.language for r in store.documents()}
                if with_other:
                    other = other_language(languages, scope, lang, understanding.translation(q, lang, settings))
                    only = only_in_other_language(other, settings, languages, scope)
                    fuse_with_other_language(
                        run_channels(q, v, store, scope, 20, lang, pages=pages, other=other),
                        weights,
                        languages,
                        lang,
                        only_other=only,
                    )
                else:
                    fuse_parents(run_channels(q, v, store, scope, 20, lang, pages=pages), weights)
                (both if with_other else plain).append(time.perf_counter() - t)
    print(f"  three channels, language detected: {percentiles(plain)}")
    print(f"  + cross-lingual channels:          {percentiles(both)}")
    print(f"  p50 difference: {1000 * (statistics.median(both) - statistics.median(plain)):+.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--library", help="data dir of a real library (benchmarks/ingest.py --data-dir)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--without-pages", action="store_true", help="two channels only (the cost of the page channel)")
    parser.add_argument(
        "--bilingual",
        action="store_true",
        help="half the documents French; time the cross-lingual channels against the same search without",
    )
    args = parser.parse_args()
    embedder = select_embedder(Settings())
    qs = questions()[: args.queries]
    vocab = sorted({w for q in qs for w in re.findall(r"\w{3,}", q.lower())})
    qvecs = np.vstack([embedder.embed_query(q) for q in qs])
    rng = random.Random(0)
    pages = not args.without_pages
    for n in args.sizes:
        data_dir = Path(tempfile.mkdtemp(prefix=f"bench-{n}-"))
        store = Store(str(data_dir))
        t0 = time.perf_counter()
        scope = build(store, n, embedder.dim, vocab, rng, args.bilingual, data_dir)
        store.optimize(ann_min_rows=50_000)
        print(
            f"\n{n:,} children: built in {time.perf_counter() - t0:.0f} s "
            f"({'ANN index' if n >= 50_000 else 'flat vector search'} + FTS)"
        )
        for q, v in zip(qs[:5], qvecs[:5], strict=True):  # warm-up
            fuse_parents(run_channels(q, v, store, scope, 20, "en", pages=pages))
        no_embed, with_embed = [], []
        for q, v in zip(qs, qvecs, strict=True):
            t = time.perf_counter()
            fuse_parents(run_channels(q, v, store, scope, 20, "en", pages=pages))
            no_embed.append(time.perf_counter() - t)
            t = time.perf_counter()
            fuse_parents(run_channels(q, embedder.embed_query(q), store, scope, 20, "en", pages=pages))
            with_embed.append(time.perf_counter() - t)
        print(f"  hybrid, without embedding: {percentiles(no_embed)}")
        print(f"  hybrid, with embedding:    {percentiles(with_embed)}")
        if args.bilingual:
            crosslingual(store, scope, qs, qvecs, pages, data_dir)
        if n >= 50_000:
            print(f"  ANN recall@20 vs exact (synthetic vectors, real queries): {recall_at(store, qvecs, scope):.3f}")
    if args.library:
        store = Store(str(Path(args.library) / "lancedb"))
        store.build_ann_index()
        scope = store.document_ids()
        print(f"\nReal library ({store.count_children():,} children, real embeddings, ANN index forced):")
        print(f"  ANN recall@20 vs exact: {recall_at(store, qvecs, scope):.3f} over {len(qvecs)} dev questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
