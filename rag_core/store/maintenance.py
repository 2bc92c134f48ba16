"""Index maintenance of the knowledge base: orphan rows, full-text and ANN indexes, compaction.

New rows are searchable at once (flat-scanned); maintenance folds them into the indexes. It
never changes what a search returns, only how fast. This module neither writes documents nor
searches.
"""

from __future__ import annotations

import logging
import time

from lancedb.db import DBConnection
from lancedb.index import FTS

from rag_core.store.channels import _LANGUAGE_NAMES, FTS_COLUMNS, _quote

log = logging.getLogger(__name__)


class Maintenance:
    """Index maintenance, mixed into `Store` (which opens the tables)."""

    db: DBConnection

    def _open(self, name: str):
        raise NotImplementedError

    def document_ids(self) -> list[str]:
        raise NotImplementedError

    def purge_orphans(self) -> int:
        """Delete parents/children whose document never became ready (interrupted ingestion)."""
        ready = set(self.document_ids())
        removed = 0
        for name in ("children", "parents", "pages"):
            table = self._open(name)
            if table is None:
                continue
            ids = set(table.search().select(["doc_id"]).limit(None).to_arrow()["doc_id"].to_pylist())
            for doc_id in ids - ready:
                table.delete(f"doc_id = {_quote(doc_id)}")
                removed += 1
        return removed

    def optimize(self, ann_min_rows: int = 50_000, attempts: int = 5) -> None:
        """Fold new rows into the indexes; create FTS indexes (and the ANN index past a size).

        Index maintenance only: new rows are already searchable (flat-scanned). When another
        process optimises at the same time LanceDB reports a retryable commit conflict; retry,
        and if it persists leave the work to the next ingestion.
        """
        for attempt in range(attempts):
            try:
                self._optimize(ann_min_rows)
                return
            except RuntimeError as err:
                if "etryable" not in str(err) and "conflict" not in str(err).lower():
                    raise
                time.sleep(0.2 * (attempt + 1))
        log.warning("index optimisation skipped after %d commit conflicts; the next ingestion will redo it", attempts)

    def _optimize(self, ann_min_rows: int) -> None:
        table = self._open("children")
        if table is None:
            return
        existing = self._create_fts_indexes(table)
        if table.count_rows() >= ann_min_rows and "vector_idx" not in existing:
            self.build_ann_index()
        table.optimize()
        pages = self._open("pages")
        if pages is not None:
            self._create_fts_indexes(pages)
            pages.optimize()
        for name in ("parents", "documents"):
            other = self._open(name)
            if other is not None:
                other.optimize()

    @staticmethod
    def _create_fts_indexes(table) -> set[str]:
        """The French and English full-text indexes of `table`; returns the index names it had."""
        existing = {idx.name for idx in table.list_indices()}
        for lang, column in FTS_COLUMNS.items():
            name = f"{column}_idx"
            if name not in existing:
                table.create_index(
                    column,
                    config=FTS(language=_LANGUAGE_NAMES[lang], stem=True, remove_stop_words=True, ascii_folding=True),
                    name=name,
                    replace=True,
                )
        return existing

    def build_ann_index(self) -> None:
        """IVF_HNSW_SQ on the children's vectors (flat search is exact but grows linearly)."""
        table = self.db.open_table("children")
        table.create_index(
            metric="cosine", vector_column_name="vector", index_type="IVF_HNSW_SQ", name="vector_idx", replace=True
        )
