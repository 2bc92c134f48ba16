"""Thesaurus expansion (docs/method.md, "Search: channels and fusion"): SKOS-like concepts add
weighted lexical terms to a question.

A thesaurus is JSON: `{"concepts": [{"id", "prefLabel": {lang: str}, "altLabel": {lang: [str]},
"broader": [id], "related": [id], "computedFrom": [id]}]}` (a plain string or list is accepted for
either label). `computedFrom` names the concepts a metric is computed from (EBITDA from operating
income and depreciation and amortization): a filing reports those, not the metric, so the question's
term check counts the metric as mentioned where each of them is (`parts`); nothing else uses it.
A concept is recognised when one of its labels occurs in the question as a whole sequence of
folded words (accents, case and a plural "s"/"x" ignored). The question keeps weight 1.0; a
recognised concept adds its prefLabels (0.95) and altLabels (0.85) that the question does not
already contain; as BM25 boosts they are divided by the number of added terms (`lexical_terms`).
Relations are kept for display and for a user's own thesaurus; they do not
expand (a broader term is a different question). The index never changes.
This module does not search.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rag_core import storage
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.understanding.labels import LabelIndex, chosen_file, json_items, read_cached
from rag_core.understanding.labels import label_key as _key

QUESTION_WEIGHT = 1.0  # docs/method.md, "Search: channels and fusion"
PREF_WEIGHT = 0.95
ALT_WEIGHT = 0.85
BUNDLED = Path(__file__).resolve().parents[1] / "assets" / "thesaurus.json"
UPLOADED_NAME = "thesaurus.json"
UPLOADED_KEY = f"thesaurus/{UPLOADED_NAME}"  # in the library
MAX_TERMS = 12  # a question naming many concepts must not turn into a long query


@dataclass(frozen=True)
class Concept:
    id: str
    pref_labels: tuple[str, ...]
    alt_labels: tuple[str, ...]
    broader: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    by_language: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (language, labels: prefLabel first)
    computed_from: tuple[str, ...] = ()  # ids of the concepts the metric is computed from

    def labels_in(self, language: str) -> tuple[str, ...]:
        """This concept's labels in `language` (prefLabel first); none when its labels name no language."""
        return next((labels for lang, labels in self.by_language if lang == language), ())


@dataclass(frozen=True)
class Expansion:
    """What a question gains: the recognised concepts and the weighted terms, best weight first."""

    concepts: tuple[str, ...]
    terms: tuple[tuple[str, float], ...]

    @property
    def labels(self) -> list[str]:
        return [term for term, _ in self.terms]

    @property
    def lexical_terms(self) -> tuple[tuple[str, float], ...]:
        """The terms as BM25 boosts: each weight divided by the number of added terms.

        Measured (benchmarks/understanding_dev.py): with the raw 0.95/0.85 boosts, the labels of
        one concept outweigh the question itself and dev hit@3 fell from 0.84 to 0.74 on the
        questions that were expanded; divided by their number they are neutral on both dev sets.
        """
        n = len(self.terms)
        return tuple((term, weight / n) for term, weight in self.terms)


def _labels(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    if isinstance(value, dict):
        return [label for v in value.values() for label in _labels(v)]
    return []


def _by_language(item: dict) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Labels per language when prefLabel/altLabel are {language: label(s)} maps."""
    out: dict[str, list[str]] = {}
    for field in ("prefLabel", "altLabel"):
        value = item.get(field)
        if isinstance(value, dict):
            for lang, labels in value.items():
                out.setdefault(str(lang), []).extend(_labels(labels))
    return tuple((lang, tuple(dict.fromkeys(labels))) for lang, labels in out.items() if labels)


class Thesaurus:
    def __init__(self, concepts: list[Concept], name: str = "") -> None:
        self.concepts = concepts
        self.name = name
        self._index = LabelIndex((label, c) for c in concepts for label in (*c.pref_labels, *c.alt_labels))

    @classmethod
    def from_json(cls, data: bytes | str, name: str = "") -> Thesaurus:
        """Parse and check a thesaurus; InputError with a readable message when it is not one."""
        items, own_name = json_items(data, "thesaurus", "concepts")
        concepts = []
        for number, item in enumerate(items, start=1):
            if not isinstance(item, dict) or not _labels(item.get("prefLabel")):
                raise InputError.of("words.no_label", number=number)
            concepts.append(
                Concept(
                    id=str(item.get("id") or _labels(item["prefLabel"])[0]),
                    pref_labels=tuple(dict.fromkeys(_labels(item.get("prefLabel")))),
                    alt_labels=tuple(dict.fromkeys(_labels(item.get("altLabel")))),
                    broader=tuple(_labels(item.get("broader"))),
                    related=tuple(_labels(item.get("related"))),
                    by_language=_by_language(item),
                    computed_from=tuple(_labels(item.get("computedFrom"))),
                )
            )
        return cls(concepts, name or own_name)

    def recognise(self, question: str) -> list[Concept]:
        """Concepts named in the question, in order of appearance; longest label wins at a position."""
        found: list[Concept] = []
        for match in self._index.find(_key(question)):
            found.extend(c for c in match.items if c not in found)
        return found

    def parts(self, concept: Concept) -> list[Concept]:
        """The concepts `concept` is computed from (`computedFrom`), those this thesaurus holds."""
        by_id = {c.id: c for c in self.concepts}
        return [by_id[i] for i in concept.computed_from if i in by_id]

    def spans(self, words: list[str]) -> list[tuple[int, int, list[Concept]]]:
        """(start, end, concepts) of each label found in `words` (folded words, in order), longest first
        at a position: which words of a question a concept's labels (its synonyms and translations) cover."""
        keys = tuple(_key(w)[0] if _key(w) else "" for w in words)
        return [(m.start, m.end, list(m.items)) for m in self._index.find(keys)]  # no label holds an empty key

    def expand(self, question: str) -> Expansion:
        """Weighted terms to add to the lexical query: prefLabels 0.95, altLabels 0.85, not already asked."""
        concepts = self.recognise(question)
        asked = " " + " ".join(_key(question)) + " "
        seen: set[tuple[str, ...]] = set()
        terms: list[tuple[str, float]] = []
        for weight, attr in ((PREF_WEIGHT, "pref_labels"), (ALT_WEIGHT, "alt_labels")):
            for concept in concepts:
                for label in getattr(concept, attr):
                    key = _key(label)
                    if not key or key in seen or f" {' '.join(key)} " in asked:
                        continue
                    seen.add(key)
                    terms.append((label, weight))
        return Expansion(tuple(c.id for c in concepts), tuple(terms[:MAX_TERMS]))


def thesaurus_path(settings: Settings) -> Path:
    """The explicit setting, else the user's uploaded thesaurus, else the bundled one."""
    return chosen_file(settings.understanding.thesaurus_path, _uploaded(settings)) or BUNDLED


def _uploaded(settings: Settings) -> Path:
    """The uploaded thesaurus of the library (a local copy of it when the library is remote)."""
    return storage.local_copy(settings, UPLOADED_KEY) or settings.data_dir / UPLOADED_KEY


def load_thesaurus(settings: Settings) -> Thesaurus | None:
    """The thesaurus in use, or None when expansion is off. A broken file is an InputError."""
    if not settings.understanding.thesaurus:
        return None
    path = thesaurus_path(settings)
    if not path.is_file():
        raise InputError.of("words.no_thesaurus", path=path)
    return read_cached(path, Thesaurus.from_json)


def save_uploaded_thesaurus(data: bytes, settings: Settings) -> Thesaurus:
    """Check an uploaded thesaurus, then make it the one in use (unless a path is set explicitly)."""
    thesaurus = Thesaurus.from_json(data)
    storage.open_library(settings).write(UPLOADED_KEY, data)
    return thesaurus
