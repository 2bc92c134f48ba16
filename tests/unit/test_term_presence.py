"""The glossary terms a document holds, and the question terms only the other language's documents name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import RetrievalSettings, Settings
from rag_core.errors import InputError
from rag_core.ingestion import keep_held_labels
from rag_core.library import DocumentFolder, atomic_write_json
from rag_core.retrieval import placement
from rag_core.understanding.glossary import Glossary, translate
from rag_core.understanding.term_presence import (
    FILE_NAME,
    TermPresence,
    held_labels,
    term_presence,
    vocabulary,
    vocabulary_of,
)

GLOSSARY = Glossary(
    [
        {"fr": ("facteur de queue",), "en": ("tail factor",)},
        {"fr": ("facteur de développement",), "en": ("development factor",)},
    ]
)
LABELS = ["tail factor", "facteur de queue", "development factor", "facteur de développement"]


def test_a_passage_holds_a_label_when_it_holds_each_word_once_stemmed() -> None:
    vocab = vocabulary_of(LABELS)
    held = held_labels(
        ["The tail factors were fitted to the last ages.", "Development of claims.", "A factor of 1.05."], vocab
    )
    assert held == {("tail", "factor")}  # plural stemmed; "development" and "factor" sit in two passages
    assert held_labels(["Le facteur de queue retenu"], vocab) == {("facteur", "de", "queue")}
    assert held_labels([], vocab) == frozenset()


def test_the_fingerprint_follows_the_labels_looked_for() -> None:
    assert vocabulary_of(LABELS).fingerprint == vocabulary_of(list(reversed(LABELS))).fingerprint
    assert vocabulary_of(LABELS).fingerprint != vocabulary_of([*LABELS, "payment pattern"]).fingerprint


def test_only_the_other_language_documents_name_the_term() -> None:
    translation = translate("Comment choisir le facteur de queue d'un triangle ?", "fr", "en", GLOSSARY)
    languages = {"fr1": "fr", "en1": "en"}
    scope = ["fr1", "en1"]
    english = {("tail", "factor")}
    presence = TermPresence({"fr1": frozenset(), "en1": frozenset(english)})
    assert presence.only_other_language(translation, languages, scope) == ["facteur de queue"]
    # a French document names it: the question is not about the English ones on that account
    named = TermPresence({"fr1": frozenset({("facteur", "de", "queue")}), "en1": frozenset(english)})
    assert named.only_other_language(translation, languages, scope) == []
    # an absence in the French documents is not proven while one of them is not known
    assert TermPresence({"en1": frozenset(english)}).only_other_language(translation, languages, scope) == []
    # nor does an English document name it outside the scope
    assert presence.only_other_language(translation, languages, ["fr1"]) == []
    assert presence.only_other_language(None, languages, scope) == []


def test_a_term_only_the_other_language_names_gives_the_strong_rank() -> None:
    weights = RetrievalSettings()
    weak_ratio = weights.other_language_strong_ratio / 4
    assert placement(weak_ratio, weights) == weights.other_language_rank
    assert placement(weak_ratio, weights, ["facteur de queue"]) == weights.other_language_strong_rank
    off = weights.model_copy(update={"other_language_rank": 0})
    assert placement(weak_ratio, off, ["facteur de queue"]) == 0


def test_a_broken_glossary_does_not_stop_an_ingestion(tmp_path: Path) -> None:
    broken = tmp_path / "glossary.json"
    broken.write_text('{"entries": [{"fr": "cadence"}]}')
    settings = Settings(data_dir=tmp_path / "lib")
    settings = settings.model_copy(
        update={"understanding": settings.understanding.model_copy(update={"glossary_path": broken})}
    )
    with pytest.raises(InputError, match="Entry 1 of the glossary"):  # the glossary is really broken
        term_presence(settings, ["0" * 64])
    keep_held_labels(settings, "0" * 64)  # yet the ingestion goes on: the terms are found once it is fixed


def test_an_uploaded_glossary_finds_its_terms_in_every_document_at_once(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    folder = DocumentFolder(settings.documents_dir, "a" * 64)
    atomic_write_json(
        folder.chunks_json,
        {
            "parents": [],
            "children": [
                {
                    "text": "The ratios of the last three years.",
                    "context_text": "Tartempion ratio\nThe ratios of the last three years.",
                },
                {"text": "Tail factors."},
            ],
        },
    )  # the heading is read as full-text search reads it
    assert term_presence(settings, [folder.doc_id]).held[folder.doc_id] >= {("tail", "factor")}
    extra = {"name": "mine", "entries": [{"fr": "coefficient de Tartempion", "en": "Tartempion ratio"}]}
    pipeline.upload_glossary(json.dumps(extra).encode(), settings, principal=Principal.local_operator())
    kept = json.loads((folder.root / FILE_NAME).read_text())  # written by the upload, before any question
    assert "tartempion ratio" in kept["labels"] and "tail factor" in kept["labels"]
    # the ignore below: a glossary was just uploaded
    assert kept["fingerprint"] == vocabulary(settings).fingerprint  # type: ignore[union-attr]
