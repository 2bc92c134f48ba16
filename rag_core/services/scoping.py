"""A question's or a search's scope: the readable ready documents (one read of the documents table) and what the
audit records of it. Shared by `pipeline.searching` and `rag_core.question.context`; it lives below both so that
neither imports the other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.services import permissions as perm
from rag_core.services.connection import open_store


def resolve_scope(
    settings: Settings, principal: Principal, collections: Sequence[str] | None, doc_ids: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """The search scope (document ids) and the collections they lie in, from one read of the table."""
    records = open_store(settings).documents()
    scope = perm.readable_scope(settings, principal).document_ids(records, collections, doc_ids)
    in_scope = set(scope)
    return scope, sorted({r.collection for r in records if r.doc_id in in_scope})


def scope_fields(
    settings: Settings,
    searched: list[str],
    text_key: str,
    text: str,
    collections: Sequence[str] | None,
    doc_ids: Sequence[str] | None,
) -> dict[str, Any]:
    """What the audit records of a question's scope: the collections searched, and the filters asked for."""
    fields: dict[str, Any] = {
        "scope": searched,
        "collections": list(collections) if collections is not None else None,
        "documents": [{"doc_id": d} for d in doc_ids] if doc_ids is not None else None,
    }
    if settings.audit.mask_questions:
        fields[f"{text_key}_masked"] = True
    else:
        fields[text_key] = text
    return fields
