"""Reported wrong citations, stored as JSON lines in the evaluation-set format (shared/eval/README.md).

The Ask page records them; the Evaluate page and `evaluate` read them back. A report belongs to
the user who made it (`reported_by`): given a user, `read_reports` returns only that user's. They
are a log of the library (`Library.append_line`), so two servers reporting at once keep both.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path

from rag_core.storage.base import Library
from rag_core.storage.local import as_library

REPORTS_FILE = "reported_citations.jsonl"
_lock = threading.Lock()  # several sessions of one server may report at once


def reports_path(data_dir: Path) -> Path:
    """Where a library in a local directory keeps the reports."""
    return Path(data_dir) / REPORTS_FILE


def report_citation(
    library: Path | Library,
    *,
    question: str,
    language: str,
    source_id: str,
    pdf: str,
    pages: list[int],
    quote: str = "",
    comment: str = "",
    user: str | None = None,
) -> dict[str, object]:
    """Append one reported case; returns the stored record.

    The eval fields (id, pdf, question, language, type, pages, answer, quote) come first;
    `source_id`, `comment` and `reported_at` are extra fields the eval scripts ignore.
    """
    now = datetime.now(UTC)
    record: dict[str, object] = {
        "id": f"reported-{now.strftime('%Y%m%dT%H%M%S%f')}",
        "pdf": pdf,
        "question": question,
        "language": language if language in ("fr", "en") else "fr",
        "type": "reported",
        "pages": sorted({int(p) for p in pages}),
        "answer": "",
        "quote": quote,
        "source_id": source_id,
        "comment": comment,
        "reported_at": now.isoformat(timespec="seconds"),
    }
    if user is not None:
        record["reported_by"] = user
    with _lock:
        as_library(library).append_line(REPORTS_FILE, json.dumps(record, ensure_ascii=False).encode("utf-8"))
    return record


def read_reports(library: Path | Library, user: str | None = None) -> bytes:
    """The reports file (empty bytes when nothing was reported yet), for a download button; with
    `user`, only the lines that user reported (case-insensitive), so nobody downloads another's."""
    data = b"".join(line + b"\n" for line in as_library(library).read_lines(REPORTS_FILE))
    if user is None:
        return data
    wanted = user.strip().lower()
    kept = []
    for line in data.splitlines(keepends=True):
        try:
            owner = str(json.loads(line).get("reported_by", "")).strip().lower()
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            continue
        if owner == wanted:
            kept.append(line)
    return b"".join(kept)
