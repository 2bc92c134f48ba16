"""The words of a library's page furniture and document names: never a reason to refuse a question.

Running headers and footers ("Casualty Actuarial Society E-Forum, Fall 2013", "Page 3") are parsed
onto the furniture layer and left out of the index, so a question that pastes one of their words,
or names the document it is about by its title or file name, would otherwise look as if it asked
about something no passage mentions. These words are read from each document's parse
(`document.json`, the texts on the furniture layer) and its record (title, file name), once per
parse: kept in memory, keyed by the parse's output hash. This module only reads; the term check
(`answering.coverage`) decides what to do with them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence

from rag_core import storage
from rag_core.config import Settings
from rag_core.library import DocumentFolder
from rag_core.models import DocumentRecord
from rag_core.understanding.labels import folded_words

_LOCK = threading.Lock()
_CACHE: dict[tuple[str, str, str], frozenset[str]] = {}  # (documents dir, doc id, parse hash) -> words


def furniture_texts(document: dict) -> list[str]:
    """The texts of a parsed document (DoclingDocument JSON) on the furniture layer."""
    return [t.get("text", "") for t in document.get("texts", []) if t.get("content_layer") == "furniture"]


def words_of(texts: Iterable[str]) -> frozenset[str]:
    """The folded words of `texts` (numbers and one-letter words left out: they name nothing)."""
    return frozenset(w for text in texts for w in folded_words(text) if len(w) > 1 and not w.isdigit())


def _parse_hash(folder: DocumentFolder) -> str:
    try:
        return str(folder.manifest().get("stages", {}).get("parse", {}).get("output_sha256", ""))
    except (OSError, ValueError):
        return ""


def _document_words(folder: DocumentFolder) -> frozenset[str]:
    try:
        document = json.loads(folder.document_json.read_text())
    except (OSError, ValueError):
        return frozenset()  # not parsed (yet): no furniture known
    return words_of(furniture_texts(document))


def furniture_words(settings: Settings, records: Sequence[DocumentRecord]) -> frozenset[str]:
    """The folded words of the page furniture, titles and file names of `records`' documents."""
    words: set[str] = set(words_of(text for r in records for text in (r.title, r.file_name.rsplit(".", 1)[0])))
    for record in records:
        folder = storage.document_folder(settings, record.doc_id)
        key = (str(settings.documents_dir), record.doc_id, _parse_hash(folder))
        with _LOCK:
            known = _CACHE.get(key)
        if known is None:
            known = _document_words(folder)
            with _LOCK:
                _CACHE[key] = known
        words |= known
    return frozenset(words)
