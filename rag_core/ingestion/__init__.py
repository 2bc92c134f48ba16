"""Ingestion: a file admitted once, then its stages (parse -> chunk -> embed -> write, `models.STAGES`)
into the document's folder and the library's tables.

- `run`: `admit` (the one check of a file's bytes and the hash that names it) and `ingest_one`
  (the stages of one admitted file under its folder's lock);
- `stages`: one function per stage, each reused when its manifest inputs are unchanged;
- `batch`: several files inline, the index rebuilt, the page rows rewritten, a stopped job's
  outputs removed.

The callers check who acts and write the audit trail: the façade (`rag_core.pipeline`, for the
pages, the API and the CLI) and the upload queue's worker (`rag_core.jobs`), which both import
this package directly. It never renders anything and knows no principal. docs/architecture.md,
"The walk of one upload", draws the whole path.
"""

from __future__ import annotations

from rag_core.ingestion.batch import discard, ingest_files, rebuild_index, rewrite_page_rows
from rag_core.ingestion.run import Guard, Upload, admit, ingest_one, stored_record
from rag_core.ingestion.stages import Progress, StageExecutor, keep_held_labels, no_children_error, read_characters
from rag_core.models import STAGES

__all__ = [
    "STAGES",
    "Guard",
    "Progress",
    "StageExecutor",
    "Upload",
    "admit",
    "discard",
    "ingest_files",
    "ingest_one",
    "keep_held_labels",
    "no_children_error",
    "read_characters",
    "rebuild_index",
    "rewrite_page_rows",
    "stored_record",
]
