"""Which glossary terms each document holds: the term-coverage signal of cross-lingual search.

A question term that no document of the question's language holds, while a document of the
other language holds one of its translations, says that the question is about the other
language's documents: "facteur de queue" asked of a library whose French documents never name it
and whose English ones say "tail factor" (`only_other_language`). On the dev sets it holds for
4 of 8 cross-lingual questions and 2 of 113 same-language ones (benchmarks/crosslingual_frontier.py).
Read with one full-text query per term it costs about 1.4 ms a term, so each document's held
terms are found once, from its children (`held_labels`), and kept next to them
(`glossary_terms.json`) with the fingerprint of the labels looked for: a glossary extended later
makes the file stale, and it is found again on first use, or at once when the glossary is
uploaded (`refresh`). Finding them costs 0.18 s for the 19 corpus PDFs (538 pages, 1,156 children).

A passage holds a label (a glossary form or a thesaurus label, in either language) when it holds
each of the label's content words under French or English Snowball stemming: the test of the
full-text index's AND query (`Store.passages_with`), on the same text (the child's text with its
headings, `context_text`). A document holds it when one of its passages does. This module does
not search and does not place results (`rag_core.retrieval`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag_core import storage
from rag_core.config import Settings
from rag_core.library import DocumentFolder, atomic_write_json
from rag_core.stemming import both_stems
from rag_core.text import STOP_WORDS
from rag_core.understanding.glossary import Glossary, Translation, load_glossary
from rag_core.understanding.labels import folded_words, label_key
from rag_core.understanding.thesaurus import Thesaurus, load_thesaurus

FILE_NAME = "glossary_terms.json"
Key = tuple[str, ...]  # `label_key` of a label
_READING = "context_text, content words, fr+en Snowball, v1"  # in the fingerprint: a new reading redoes the files


@dataclass(frozen=True)
class Vocabulary:
    """The labels looked for: label key -> the stems each of its content words may take."""

    words: Mapping[Key, tuple[frozenset[str], ...]]
    fingerprint: str


def _content_words(label: str) -> list[str]:
    words = folded_words(label)
    return [w for w in words if w not in STOP_WORDS] or words


def vocabulary_of(labels: Iterable[str]) -> Vocabulary:
    words: dict[Key, tuple[frozenset[str], ...]] = {}
    for label in labels:
        key = label_key(label)
        if key and key not in words:
            words[key] = tuple(both_stems(w) for w in _content_words(label))
    digest = hashlib.sha256("\n".join([_READING, *sorted(" ".join(k) for k in words)]).encode()).hexdigest()[:16]
    return Vocabulary(words, digest)


@lru_cache(maxsize=4)
def _vocabulary(glossary: Glossary | None, thesaurus: Thesaurus | None) -> Vocabulary:
    labels = [form for entry in (glossary.entries if glossary else ()) for forms in entry.values() for form in forms]
    for concept in thesaurus.concepts if thesaurus is not None else ():
        labels += [label for _, forms in concept.by_language for label in forms]
    return vocabulary_of(labels)


def vocabulary(settings: Settings) -> Vocabulary | None:
    """The glossary's and the thesaurus' labels in use; None when translation is off."""
    glossary = load_glossary(settings)
    return None if glossary is None else _vocabulary(glossary, load_thesaurus(settings))


def held_labels(texts: Iterable[str], vocab: Vocabulary) -> frozenset[Key]:
    """The keys of the labels that one of `texts` (a document's passages) holds."""
    postings: dict[str, set[int]] = {}  # stem -> passages holding it
    stems_of: dict[str, frozenset[str]] = {}
    for i, text in enumerate(texts):
        for word in set(folded_words(text)):
            stems = stems_of.get(word)
            if stems is None:
                stems = stems_of[word] = both_stems(word)
            for stem in stems:
                postings.setdefault(stem, set()).add(i)
    held = []
    for key, words in vocab.words.items():
        passages: set[int] | None = None
        for stems in words:
            having = set().union(*(postings.get(s, ()) for s in stems))
            passages = having if passages is None else passages & having
            if not passages:
                break
        if passages:
            held.append(key)
    return frozenset(held)


@dataclass(frozen=True)
class TermPresence:
    """The labels each document holds (doc id -> label keys; a document absent: not known)."""

    held: Mapping[str, frozenset[Key]]

    def only_other_language(
        self, translation: Translation | None, languages: Mapping[str, str], scope: Sequence[str]
    ) -> list[str]:
        """The question's terms (`translation.pairs`, source side) that no document of `scope` in the
        question's language holds while one in `translation.target` holds one of their forms. Empty
        when a document of the question's language is not known: an absence is not proven."""
        if translation is None or not translation.pairs:
            return []
        own = [d for d in scope if languages.get(d) == translation.source]
        theirs = [d for d in scope if languages.get(d) == translation.target]
        if not theirs or any(d not in self.held for d in own):
            return []
        found = []
        for source, forms in translation.pairs:
            key = label_key(source)
            if any(key in self.held[d] for d in own):
                continue
            keys = [label_key(f) for f in forms]
            if any(k in self.held.get(d, ()) for d in theirs for k in keys):
                found.append(source)
        return found


_LOCK = threading.Lock()
# (documents dir, fingerprint) -> doc id -> its labels, or None when it has no chunks on disk (not known)
_CACHE: dict[tuple[str, str], dict[str, frozenset[Key] | None]] = {}


def _chunk_hash(folder: DocumentFolder) -> str | None:
    return folder.manifest().get("stages", {}).get("chunk", {}).get("output_sha256")


def write_held_labels(
    folder: DocumentFolder, texts: Iterable[str], vocab: Vocabulary, chunks_sha256: str | None = None
) -> frozenset[Key]:
    """Find the labels a document's passages hold and keep them next to its chunks (whose hash is
    read from the manifest unless given)."""
    held = held_labels(texts, vocab)
    chunks_sha256 = chunks_sha256 or _chunk_hash(folder)
    atomic_write_json(
        folder.root / FILE_NAME,
        {"fingerprint": vocab.fingerprint, "chunks_sha256": chunks_sha256, "labels": sorted(" ".join(k) for k in held)},
    )
    return held


def _read(folder: DocumentFolder, vocab: Vocabulary, chunks_sha256: str | None) -> frozenset[Key] | None:
    try:
        data = json.loads((folder.root / FILE_NAME).read_text())
    except (OSError, ValueError):
        return None
    if data.get("fingerprint") != vocab.fingerprint or data.get("chunks_sha256") != chunks_sha256:
        return None  # the labels looked for, or the passages, have changed since
    return frozenset(tuple(label.split()) for label in data.get("labels", []))


def _found(folder: DocumentFolder, vocab: Vocabulary) -> frozenset[Key] | None:
    chunks_sha256 = _chunk_hash(folder)
    known = _read(folder, vocab, chunks_sha256)
    if known is not None:
        return known
    try:
        children = json.loads(folder.chunks_json.read_text())["children"]
    except (OSError, ValueError, KeyError):
        return None  # not chunked (yet): not known
    return write_held_labels(folder, (c.get("context_text") or c["text"] for c in children), vocab, chunks_sha256)


def term_presence(settings: Settings, doc_ids: Sequence[str]) -> TermPresence:
    """The labels each of `doc_ids` holds: from memory, else from its file, else found from its
    chunks (and kept). A document without chunks on disk is left out (not known)."""
    vocab = vocabulary(settings)
    if vocab is None:
        return TermPresence({})
    with _LOCK:
        cached = _CACHE.setdefault((str(settings.documents_dir), vocab.fingerprint), {})
    for doc_id in [d for d in doc_ids if d not in cached]:  # read or found once; `forget` drops them
        held = _found(storage.document_folder(settings, doc_id), vocab)
        with _LOCK:
            cached[doc_id] = held
    return TermPresence({d: labels for d in doc_ids if (labels := cached.get(d)) is not None})


def refresh(settings: Settings) -> int:
    """Find the terms every chunked document of the library holds under the labels in use now (after
    the glossary or the thesaurus changed, rather than on the next question); how many documents."""
    return len(term_presence(settings, storage.document_ids(settings)).held)  # unchunked ones are left out


def forget(settings: Settings, doc_id: str) -> None:
    """Drop a document's held labels from memory (it was re-chunked or deleted)."""
    with _LOCK:
        for (root, _), docs in _CACHE.items():
            if root == str(settings.documents_dir):
                docs.pop(doc_id, None)
