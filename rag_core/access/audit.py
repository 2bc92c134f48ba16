"""The audit trail: one JSON line per event, appended and fsynced before the call returns.

Events: sign-in and sign-out, a question (user, time, scope, the question unless
`audit.mask_questions`, the documents and pages given as context, the pages cited), a search,
a page or a document opened in the viewer, a document's chunks and tables inspected, a table
or figure exported, the audit trail or the reported citations downloaded, an upload, a deletion,
a collection created, a grant given or revoked, an upload job queued, done, failed, cancelled or retried.

Append-only (`Library.append_line`): in a local directory a record is written with one `write` on
a file opened for appending, under an exclusive lock, then fsynced, so a crash never loses or
garbles an earlier record (a torn last line is closed off before the next append, and skipped by
readers); in an object store each record is an object created only where none is, so two
servers appending at once both keep theirs. No key, token or cookie
goes in: fields named like one are dropped, and token-shaped strings and the configured API
key are blanked wherever they appear. This module does not decide who may read the trail.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from rag_core.access.principal import Principal
from rag_core.errors import InputError
from rag_core.storage.base import Library
from rag_core.storage.local import as_library
from rag_core.text import safe_cell

EVENTS = frozenset(
    {
        "sign_in",
        "sign_out",
        "question",
        "search",
        "page_opened",
        "document_opened",
        "document_inspected",
        "table_exported",
        "figure_exported",
        "upload",
        "deletion",
        "collection_created",
        "grant",
        "revoke",
        "audit_exported",
        "reports_exported",
        "evaluation_exported",
        "job_queued",
        "job_done",
        "job_failed",
        "job_cancelled",
        "job_retried",
        "jobs_cleared",
        "token_created",
        "token_revoked",
        "api_request",
    }
)
REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"token|cookie|secret|password|passwd|authori[sz]ation|api[_-]?key|credential|session", re.I)
_TOKEN_SHAPED = re.compile(
    r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"  # a JWT (ID or access token)
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}"  # an Authorization header value
    r"|\bsk-[A-Za-z0-9_-]{16,}"  # an OpenAI-style key
    r"|\brag_[0-9a-f]{12}_[A-Za-z0-9_-]{20,}"  # a personal API token of this product
)
CSV_COLUMNS = (
    "at",
    "event",
    "user",
    "groups",
    "collection",
    "doc_id",
    "file_name",
    "pages",
    "question",
    "scope",
    "context",
    "cited",
    "details",
)
_lock = threading.Lock()


def scrub(value: Any, secrets: Sequence[str] = ()) -> Any:
    """`value` without secret-named fields, token-shaped strings or the given secret values."""
    if isinstance(value, dict):
        return {str(k): scrub(v, secrets) for k, v in value.items() if not _SECRET_NAME.search(str(k))}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [scrub(v, secrets) for v in items]
    if isinstance(value, str):
        for secret in secrets:
            if secret:
                value = value.replace(secret, REDACTED)
        return _TOKEN_SHAPED.sub(REDACTED, value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return scrub(str(value), secrets)


def parse_since(since: str | date | datetime | None) -> datetime | None:
    """A date ("2026-11-03") or an ISO time; a date means its midnight, UTC."""
    if since is None or since == "":
        return None
    if isinstance(since, datetime):
        moment = since
    elif isinstance(since, date):
        moment = datetime(since.year, since.month, since.day)
    else:
        try:
            moment = datetime.fromisoformat(since.strip())
        except ValueError:
            raise InputError.of("access.bad_date", since=since) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class AuditLog:
    """The audit trail of one library (a directory, or a `rag_core.storage.Library`): the log
    `audit/audit.jsonl`, a JSON-lines file in a local directory, one object per record in an object store."""

    KEY = "audit/audit.jsonl"

    def __init__(self, library: Path | str | Library) -> None:
        self.library = as_library(library)
        self.path = Path(self.library.uri) / self.KEY  # where a local library keeps it

    def append(self, event: str, principal: Principal, fields: dict[str, Any], secrets: Sequence[str] = ()) -> dict:
        """Write one record and fsync it; returns the record as stored."""
        if event not in EVENTS:
            raise ValueError(f"unknown audit event {event!r}")  # a programming error, not the user's
        record = {
            "at": datetime.now(UTC).isoformat(timespec="microseconds"),
            "event": event,
            "user": principal.user,
            "groups": sorted(principal.groups),
            "admin": principal.is_admin,
            "channel": principal.channel,  # app, api, mcp or cli: how the person reached the library
        }
        record.update(scrub({k: v for k, v in fields.items() if k not in record}, secrets))
        with _lock:
            self.library.append_line(self.KEY, json.dumps(record, ensure_ascii=False, default=str).encode("utf-8"))
        return record

    def records(self) -> list[dict]:
        """Every readable record, oldest first (a torn line is skipped)."""
        out = []
        for raw in self.library.read_lines(self.KEY):
            try:
                row = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(row, dict):
                out.append(row)
        return out

    def events(
        self, user: str | None = None, since: str | date | datetime | None = None, document: str | None = None
    ) -> list[dict]:
        """Records of `user` (case-insensitive), at or after `since`, naming `document` (id or file name)."""
        moment = parse_since(since)
        out = []
        for row in self.records():
            if user and str(row.get("user", "")).lower() != user.strip().lower():
                continue
            if moment is not None and _time_of(row) < moment:
                continue
            if document and document not in _documents_of(row):
                continue
            out.append(row)
        return out


def _time_of(row: dict) -> datetime:
    try:
        moment = datetime.fromisoformat(str(row.get("at")))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _documents_of(row: dict) -> set[str]:
    """Ids and file names of every document a record names."""
    found = {str(row[k]) for k in ("doc_id", "file_name") if row.get(k)}
    for key in ("context", "cited", "documents"):
        for entry in row.get(key) or []:
            if isinstance(entry, dict):
                found |= {str(entry[k]) for k in ("doc_id", "file_name") if entry.get(k)}
    return found


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        text = "; ".join(_sources_text(v) if isinstance(v, dict) else str(v) for v in value)
    elif isinstance(value, dict):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return safe_cell(text)  # a spreadsheet must not run a cell as a formula (CSV injection)


def _sources_text(entry: dict) -> str:
    pages = ",".join(str(p) for p in entry.get("pages") or [])
    name = entry.get("file_name") or entry.get("doc_id", "")
    return f"{name} p.{pages}" if pages else str(name)


def to_csv(rows: Iterable[dict]) -> bytes:
    """The records as CSV (UTF-8 with BOM, for Excel): fixed columns, the rest as JSON in `details`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        details = {k: v for k, v in row.items() if k not in CSV_COLUMNS}
        writer.writerow([_cell(row.get(c)) for c in CSV_COLUMNS[:-1]] + [_cell(details or None)])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")
