"""Exact cosine search over the children's vectors of one table version, held in memory.

Used by `store.Store.dense` until the ANN index exists (below `retrieval.ann_min_rows`):
LanceDB's flat scan re-reads the whole vector column on every question (~20 ms at 10k
children on 2 cores, benchmarks/query_latency.py), this takes ~1 ms. Memory: at most
ann_min_rows x dim floats (77 MB at 50k x 384). Results equal LanceDB's flat scan (tested).
This module does not read LanceDB: the store hands it the table's rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa


class ExactVectors:
    """Unit vectors and ids of one version of the children table."""

    def __init__(self, version: int, rows: pa.Table) -> None:
        self.version = version
        column = rows["vector"].combine_chunks()
        dim = column.type.list_size if len(rows) else 0
        matrix = np.asarray(column.flatten().to_numpy(zero_copy_only=False), dtype=np.float32).reshape(len(rows), dim)
        norms = np.linalg.norm(matrix, axis=1)
        self.matrix = matrix / np.where(norms > 0, norms, 1.0)[:, None]
        self.ids = np.asarray(rows["id"].to_pylist(), dtype=object)
        self.parent_ids = np.asarray(rows["parent_id"].to_pylist(), dtype=object)
        self.doc_ids = np.asarray(rows["doc_id"].to_pylist(), dtype=object)
        # each row's document as a small integer: a scope becomes a boolean lookup, not a string
        # comparison per row (np.isin on 10k strings against 100 ids took ~90 ms)
        self._doc_codes: dict[str, int] = {}
        self._row_docs = np.fromiter(
            (self._doc_codes.setdefault(d, len(self._doc_codes)) for d in self.doc_ids),
            dtype=np.int64,
            count=len(self.doc_ids),
        )
        self._last: tuple[np.ndarray, np.ndarray] | None = None  # (query vector, its cosines)

    def search(self, vector: np.ndarray, scope: Sequence[str] | None, k: int) -> list[tuple[str, str, str, float]]:
        """(child id, parent id, doc id, cosine) of the k nearest, best first; `scope` None = all rows."""
        if not len(self.ids):
            return []
        last = self._last
        if last is not None and last[0] is vector:  # the same question searched in another scope
            sims = last[1]
        else:
            query = vector.astype(np.float32)
            # einsum, not `@`: OpenBLAS's threads spin after a BLAS call and slow the next question's
            # embedding (torch) from 17 to 40 ms on 2 cores.
            sims = np.einsum("ij,j->i", self.matrix, query / (np.linalg.norm(query) or 1.0))
            self._last = (vector, sims)
        if scope is not None:
            allowed = np.zeros(len(self._doc_codes), dtype=bool)
            allowed[[self._doc_codes[d] for d in set(scope) if d in self._doc_codes]] = True
            sims = np.where(allowed[self._row_docs], sims, -np.inf)
        top = np.argpartition(-sims, min(k, len(sims)) - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self.ids[i], self.parent_ids[i], self.doc_ids[i], float(sims[i])) for i in top if sims[i] > -np.inf]
