"""Filtered recall with the ANN index on, and the cost of resolving a principal's scope.

    nice .venv/bin/python -m benchmarks.filtered_recall [--children 50000] [--latency-children 10000]

1. Filtered recall. A library of `--children` children (1,000 documents of 50 children, in
   100 collections of 10 documents) is written through the store's own row builders and
   indexed exactly as the product indexes it (`Store.optimize`: FTS, then IVF_HNSW_SQ past
   `ann_min_rows`). Users are granted read on 1, 5 or 10 collections (1 %, 5 %, 10 % of the
   documents; `--shares`), the scope is resolved by the pipeline (`readable_document_ids`) and
   every query runs the dense channel (`Store.dense`) against LanceDB's exact prefiltered flat
   scan (`exact=True`), twice: "index alone" (the ANN index with the prefilter, before a small
   scope was searched exactly) and "product" (a scope of at most `channels.ANN_EXACT_SCOPE_ROWS` children is searched
   exactly in memory on its own vectors). Reported: recall@20, the share of queries under
   0.95, the number of results returned against the number in scope (never fewer is the
   target), any result out of scope (must be 0), p50 latencies.
   Vectors are SYNTHETIC (no embedding: 50,000 real passages take ~40 min on 2 cores, see
   benchmarks/ann_recall.py): clustered like real ones, each child = a shared direction + its
   topic's (200 topics) + its document's + its own noise, normalised, 384-d. Queries are new
   children drawn the same way from documents of the whole library (mostly outside the
   user's scope, as a question usually is), plus uniformly random unit vectors (the hard case).
2. Scope cost. At `--latency-children` (10k: 200 documents in 20 collections), the p50 of the
   benchmark of benchmarks/query_latency.py (three channels + RRF on parents, vector
   precomputed) with the scope given, against the same with the scope resolved on every
   query: as the façade once did (`store.document_ids()`: every ready document), and from the principal
   (grants file, collections -> document ids) for the local operator, for a user granted every
   collection through a group (same prefilter) and for a user who reads half the collections
   (the prefilter then works). The cases take turns on each query. Last, the cost of the audit
   record each question writes (append + fsync).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from rag_core import pipeline
from rag_core.access import AuditLog, Principal
from rag_core.config import Settings
from rag_core.models import Child, DocumentRecord, HighlightBox, Parent
from rag_core.retrieval import fuse_parents, run_channels
from rag_core.services.connection import open_store
from rag_core.services.documents import readable_document_ids
from rag_core.store import Store, channels
from rag_core.store import rows as store_rows

os.environ.setdefault("HF_HUB_OFFLINE", "1")
DIM = 384  # the offline embedder's dimension
PER_DOC = 50
DOCS_PER_COLLECTION = 10
TOPICS = 200
K = 20
ADMIN = Principal.local_operator()
PRODUCT_THRESHOLD = channels.ANN_EXACT_SCOPE_ROWS


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


class Space:
    """The synthetic embedding space: a shared direction, topics, documents."""

    def __init__(self, docs: int, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.common = unit(self.rng, 1)[0]
        self.topics = unit(self.rng, TOPICS)
        self.doc_topic = self.rng.integers(0, TOPICS, docs)
        self.doc_dir = unit(self.rng, docs)

    def children(self, doc: int, n: int) -> np.ndarray:
        v = (
            0.6 * self.common
            + 0.5 * self.topics[self.doc_topic[doc]]
            + 0.4 * self.doc_dir[doc]
            + 0.5 * unit(self.rng, n)
        )
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def doc_id_of(d: int) -> str:
    return hashlib.sha256(str(d).encode()).hexdigest()  # child ids start with its first 16 characters


def write_library(settings: Settings, docs: int, space: Space, words: list[str]) -> Store:
    """`docs` documents of PER_DOC children, written in batches of 50 documents (one commit per
    table and batch, documents last, as `Store.write_document` orders them)."""
    store = open_store(settings)
    store._ensure_meta("synthetic", DIM)
    box = HighlightBox(page=1, x0=10, y0=10, x1=100, y1=20)
    rng = random.Random(0)
    for start in range(0, docs, 50):
        batch: dict[str, list[pa.Table]] = {"parents": [], "children": [], "pages": [], "documents": []}
        for d in range(start, min(docs, start + 50)):
            doc_id = doc_id_of(d)
            topic_words = words[(space.doc_topic[d] * 7) % len(words) :][:30] or words[:30]
            parents, children = [], []
            for i in range(PER_DOC):
                text = " ".join(rng.choices(topic_words, k=40) + rng.choices(words, k=20))
                pid = f"{doc_id[:16]}:p{i // 5:04d}"
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
                if i % 5 == 0:
                    parents.append(
                        Parent(
                            id=pid,
                            doc_id=doc_id,
                            index=i // 5,
                            heading_path=["S"],
                            text=text,
                            tokens=90,
                            pages=[i // 2 + 1],
                            child_ids=[],
                        )
                    )
            record = DocumentRecord(
                doc_id=doc_id,
                file_name=f"{d}.pdf",
                title=str(d),
                collection=f"c{d // DOCS_PER_COLLECTION:03d}",
                language="en",
                pages=PER_DOC // 2,
                parents=len(parents),
                children=PER_DOC,
                tables=0,
                parser="synthetic",
                embedder="synthetic",
                ingested_at="",
                elapsed_s=0,
            )
            page_texts = [" ".join(c.text for c in children[2 * p : 2 * p + 2]) for p in range(PER_DOC // 2)]
            batch["parents"].append(store_rows.parent_rows(record, parents))
            batch["children"].append(store_rows.child_rows(record, children, space.children(d, PER_DOC)))
            batch["pages"].append(store_rows.page_rows(record, parents, page_texts))
            batch["documents"].append(store_rows.document_row(record))
        for name in ("parents", "children", "pages", "documents"):
            store._add(name, pa.concat_tables(batch[name]))
    store.optimize(settings.retrieval.ann_min_rows)
    return store


def p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def filtered_recall(
    n_children: int, users_per_share: int, queries_per_user: int, ann_min_rows: int, shares: list[float]
) -> None:
    docs = n_children // PER_DOC
    n_collections = docs // DOCS_PER_COLLECTION
    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="filtered-recall-")), retrieval={"ann_min_rows": ann_min_rows}
    )
    space = Space(docs)
    words = [f"w{i:04d}" for i in range(2000)]
    t0 = time.perf_counter()
    store = write_library(settings, docs, space, words)
    indexes = {i.name for i in store._open("children").list_indices()}
    print(
        f"{store.count_children():,} children, {docs} documents, {n_collections} collections: built and "
        f"indexed in {time.perf_counter() - t0:.0f} s (indexes: {', '.join(sorted(indexes))})",
        flush=True,
    )
    rng = np.random.default_rng(1)
    for share in shares:
        per_user = max(1, round(share * n_collections))
        index_only, product = Tally(), Tally()
        for u in range(users_per_share):
            user = Principal(f"user{u}@example.org", frozenset({f"g{share}-{u}"}))
            for c in rng.choice(n_collections, per_user, replace=False):
                pipeline.grant(settings, f"c{c:03d}", principal=ADMIN, group=f"g{share}-{u}", role="read")
            scope = readable_document_ids(settings, principal=user)
            exists = len(scope) * PER_DOC
            query_docs = rng.integers(0, docs, queries_per_user)
            queries = [space.children(int(d), 1)[0] for d in query_docs] + list(unit(rng, queries_per_user // 4))
            for qi, q in enumerate(queries):
                t = time.perf_counter()
                exact = store.dense(q, scope, K, exact=True)
                exact_s = time.perf_counter() - t
                for tally, threshold in ((index_only, -1), (product, PRODUCT_THRESHOLD)):
                    channels.ANN_EXACT_SCOPE_ROWS = threshold
                    t = time.perf_counter()
                    found = store.dense(q, scope, K)
                    tally.add(exact, found, time.perf_counter() - t, exact_s, qi >= queries_per_user, exists, scope)
                channels.ANN_EXACT_SCOPE_ROWS = PRODUCT_THRESHOLD
        print(
            f"  {share:4.0%} of documents ({per_user} collections, {per_user * DOCS_PER_COLLECTION * PER_DOC:,} "
            f"children in scope), {users_per_share} users x {queries_per_user} + {queries_per_user // 4} random "
            f"queries:",
            flush=True,
        )
        print(f"      index alone:   {index_only}", flush=True)
        print(f"      product:       {product}", flush=True)


class Tally:
    """recall@K against exact filtered search, results returned, leaks and latency of one way to search."""

    def __init__(self) -> None:
        self.recalls: list[float] = []
        self.random_recalls: list[float] = []
        self.short = self.leaks = self.queries = 0
        self.ms: list[float] = []
        self.exact_ms: list[float] = []

    def add(
        self, exact, found, seconds: float, exact_seconds: float, random_query: bool, exists: int, scope: list[str]
    ) -> None:
        r = len({h.child_id for h in exact} & {h.child_id for h in found}) / max(1, len(exact))
        (self.random_recalls if random_query else self.recalls).append(r)
        self.queries += 1
        self.short += len(found) < min(K, exists)
        self.leaks += sum(h.doc_id not in set(scope) for h in found)
        self.ms.append(seconds)
        self.exact_ms.append(exact_seconds)

    def __str__(self) -> str:
        low = np.mean(np.array(self.recalls) < 0.95)
        return (
            f"recall@20 {np.mean(self.recalls):.3f} (under 0.95: {low:.1%}), random queries "
            f"{np.mean(self.random_recalls):.3f}; fewer results than exist: {self.short} of {self.queries}; "
            f"out of scope: {self.leaks}; p50 {p50_ms(self.ms):.1f} ms (exact flat scan {p50_ms(self.exact_ms):.1f} ms)"
        )


def scope_cost(n_children: int, repeats: int) -> None:
    docs = n_children // PER_DOC
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="scope-cost-")))
    space = Space(docs, seed=2)
    words = [f"w{i:04d}" for i in range(2000)]
    store = write_library(settings, docs, space, words)
    collections = sorted({r.collection for r in store.documents()})
    for c in collections:
        pipeline.grant(settings, c, principal=ADMIN, group="everyone", role="read")
    for c in collections[: len(collections) // 2]:
        pipeline.grant(settings, c, principal=ADMIN, group="half", role="read")
    everyone = Principal("reader@example.org", frozenset({"everyone"}))
    half = Principal("half@example.org", frozenset({"half"}))
    rng = random.Random(3)
    texts = [" ".join(rng.choices(words[:300], k=8)) for _ in range(60)]
    vectors = [space.children(rng.randrange(docs), 1)[0] for _ in texts]
    all_ids = store.document_ids()

    cases = [
        ("scope given (query_latency.py)", lambda: all_ids),
        ("store.document_ids() (every ready document)", lambda: store.document_ids()),
        ("local operator, resolved", lambda: readable_document_ids(settings, principal=ADMIN)),
        (
            "user granted every collection by group, resolved",
            lambda: readable_document_ids(settings, principal=everyone),
        ),
        ("user reading half the collections, resolved", lambda: readable_document_ids(settings, principal=half)),
    ]
    resolve: dict[str, list[float]] = {label: [] for label, _ in cases}
    total: dict[str, list[float]] = {label: [] for label, _ in cases}
    for repeat in range(repeats + 1):  # the first round warms up and is not counted
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
            # the cases take turns on each query, so that the load of a shared machine falls on all alike
            for j in range(len(cases)):
                label, scope_of = cases[(i + j) % len(cases)]
                t = time.perf_counter()
                scope = scope_of()
                t1 = time.perf_counter()
                fuse_parents(run_channels(text, vector, store, scope, 20, "en"))
                if repeat:
                    resolve[label].append(t1 - t)
                    total[label].append(time.perf_counter() - t)
    print(
        f"\nScope resolution at {store.count_children():,} children ({docs} documents, {len(collections)} "
        f"collections), hybrid p50 over {repeats} x {len(texts)} queries (vector precomputed, cases interleaved):",
        flush=True,
    )
    base = p50_ms(total[cases[0][0]])
    for label, _ in cases:
        print(
            f"  {label:52s} resolve p50 {p50_ms(resolve[label]):5.2f} ms   hybrid+resolve p50 "
            f"{p50_ms(total[label]):6.1f} ms ({p50_ms(total[label]) - base:+.1f} ms)",
            flush=True,
        )
    audit = AuditLog(settings.data_dir)
    samples = []
    for _ in range(50):
        t = time.perf_counter()
        audit.append("search", everyone, {"query": texts[0], "scope": collections})
        samples.append(time.perf_counter() - t)
    print(f"  audit record of a question (append + fsync), p50 {p50_ms(samples):.2f} ms", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--children", type=int, default=50_000)
    parser.add_argument("--users", type=int, default=4, help="users per share")
    parser.add_argument("--queries", type=int, default=40, help="in-distribution queries per user")
    parser.add_argument("--latency-children", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--shares", type=float, nargs="+", default=[0.01, 0.05, 0.10], help="shares of the documents a user reads"
    )
    parser.add_argument("--skip-recall", action="store_true")
    parser.add_argument(
        "--ann-min-rows",
        type=int,
        default=Settings().retrieval.ann_min_rows,
        help="build the ANN index from this many children (the product's setting by default)",
    )
    args = parser.parse_args()
    if not args.skip_recall:
        filtered_recall(args.children, args.users, args.queries, args.ann_min_rows, args.shares)
    if args.latency_children:
        scope_cost(args.latency_children, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
