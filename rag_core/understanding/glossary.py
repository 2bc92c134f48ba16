"""A question's terms in the other library language: the bilingual actuarial glossary.

French actuaries ask in French about English documents (and the reverse); BM25 needs shared
words. The glossary is JSON: `{"name", "entries": [{"fr": str | [str], "en": str | [str],
"domain": str}]}`, each side's preferred form first. The bundled `rag_core/assets/glossary.json` is
always loaded; a user's file (uploaded on the Search page, or `RAG_UNDERSTANDING__GLOSSARY_PATH`)
extends it. The thesaurus' concepts whose labels name their language translate as well.

`translate` finds the glossary's terms in the question (`labels`: folded words, longest match)
and gives their forms in the target language, the preferred form first; the question's
remaining content words (names, symbols, loan words: "Mack", "Bornhuetter-Ferguson",
"variance" are written alike) are kept as they are. Retrieval searches the other language's
documents with these terms on their own (`rag_core.retrieval`); their best passage never
outranks the question's own best one. This module does not search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rag_core import storage
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.text import STOP_WORDS, fold
from rag_core.understanding.labels import LabelIndex, chosen_file, json_items, label_key, read_cached
from rag_core.understanding.thesaurus import Thesaurus

LANGUAGES = ("fr", "en")  # the product's languages (models.Language)
BUNDLED = Path(__file__).resolve().parents[1] / "assets" / "glossary.json"
UPLOADED_NAME = "glossary.json"
UPLOADED_KEY = f"glossary/{UPLOADED_NAME}"  # in the library
MAX_FORMS = 24  # a question naming many terms must not turn into a long query
_WORD = re.compile(r"[0-9a-z]+")  # the words of `label_key`, before the plural is dropped
_EXAMPLE = '{"fr": "cadence de règlement", "en": "payment pattern"}'


@dataclass(frozen=True)
class Translation:
    """The question's terms for documents in `target`: (question words, their target forms) and kept words."""

    source: str
    target: str
    pairs: tuple[tuple[str, tuple[str, ...]], ...]
    kept: tuple[str, ...]

    @property
    def query(self) -> str:
        """The BM25 query for the other language's documents: every translated form, then the kept
        words, as one query (one full-text query costs one scan; a weighted query per form costs one each)."""
        return " ".join([form for _, forms in self.pairs for form in forms] + (list(self.kept) if self.pairs else []))

    def shown(self) -> list[str]:
        """'source → target forms' lines for the Search page and the CLI."""
        return [f"{words} → {', '.join(forms)}" for words, forms in self.pairs]


class Glossary:
    """Bilingual entries: each a {language: forms} map, forms in order of preference."""

    def __init__(self, entries: list[dict[str, tuple[str, ...]]], name: str = "") -> None:
        self.entries = entries
        self.name = name

    @classmethod
    def from_json(cls, data: bytes | str, name: str = "") -> Glossary:
        """Parse and check a glossary; InputError with a readable message when it is not one."""
        items, own_name = json_items(data, "glossary", "entries", _EXAMPLE)
        return cls([_entry(number, item) for number, item in enumerate(items, start=1)], name or own_name)

    def extended(self, other: Glossary) -> Glossary:
        """This glossary and `other`'s entries (a term in both keeps every translation)."""
        return Glossary(self.entries + other.entries, f"{self.name} + {other.name}" if other.name else self.name)


def _entry(number: int, item: object) -> dict[str, tuple[str, ...]]:
    if not isinstance(item, dict):
        raise InputError.of("words.entry_shape", number=number, example=_EXAMPLE)
    entry: dict[str, tuple[str, ...]] = {}
    for lang in LANGUAGES:
        value = item.get(lang)
        forms = [] if value is None else [value] if isinstance(value, str) else value
        if not isinstance(forms, list) or not all(isinstance(f, str) for f in forms):
            raise InputError.of("words.entry_terms", number=number, lang=lang, example=_EXAMPLE)
        forms = [f.strip() for f in forms if f.strip() and label_key(f)]
        if not forms:
            raise InputError.of("words.entry_missing", number=number, lang=lang, example=_EXAMPLE)
        entry[lang] = tuple(dict.fromkeys(forms))
    return entry


_Named = tuple[str, tuple[str, ...]]  # (source label, target forms)


@lru_cache(maxsize=16)
def _index(glossary: Glossary, thesaurus: Thesaurus | None, source: str, target: str) -> LabelIndex[_Named]:
    """Source-language labels -> target forms (glossary entries, then thesaurus concepts); built once."""
    pairs = [(label, (label, entry[target])) for entry in glossary.entries for label in entry[source]]
    for concept in thesaurus.concepts if thesaurus is not None else ():
        forms = concept.labels_in(target)
        if forms:
            pairs += [(label, (label, forms)) for label in concept.labels_in(source)]
    return LabelIndex(pairs)


def translate(
    question: str, source: str, target: str, glossary: Glossary, thesaurus: Thesaurus | None = None
) -> Translation:
    """The question's glossary terms in `target`, and its other content words (see the module docstring)."""
    words = _WORD.findall(fold(question))
    keys = label_key(question)  # same positions as `words`
    pairs: list[tuple[str, tuple[str, ...]]] = []
    covered: set[int] = set()
    seen: set[tuple[str, ...]] = set()
    n_forms = 0
    for match in _index(glossary, thesaurus, source, target).find(keys):
        covered.update(range(match.start, match.end))
        forms: list[str] = []
        for _, named in match.items:
            for form in named:
                key = label_key(form)  # "tail factor" and "tail factors" are one BM25 query once stemmed
                if key not in seen and len(forms) < MAX_FORMS - n_forms:
                    seen.add(key)
                    forms.append(form)
        if not forms:
            continue
        n_forms += len(forms)
        pairs.append((match.items[0][0], tuple(forms)))
    kept = tuple(
        dict.fromkeys(
            w
            for i, w in enumerate(words)
            if i not in covered and w not in STOP_WORDS and len(w) > 2 and not w.isdigit()
        )
    )
    return Translation(source, target, tuple(pairs), kept)


def spans(glossary: Glossary, words: Sequence[str]) -> list[tuple[int, int, tuple[str, ...]]]:
    """(start, end, forms) of each glossary term found in `words` (a question's folded words, in order),
    read as French and as English, with its forms in the other language: which words of a question a
    translation covers (the term check counts a translation's mention as a mention of those words)."""
    keys = tuple(label_key(w)[0] if label_key(w) else "" for w in words)
    found = []
    for source, target in ((LANGUAGES[0], LANGUAGES[1]), (LANGUAGES[1], LANGUAGES[0])):
        for match in _index(glossary, None, source, target).find(keys):
            forms = tuple(dict.fromkeys(form for _, named in match.items for form in named))
            found.append((match.start, match.end, forms))
    return found


def glossary_extension_path(settings: Settings) -> Path | None:
    """The user's glossary: the explicit setting, else the uploaded file; None when there is neither."""
    uploaded = storage.local_copy(settings, UPLOADED_KEY) or settings.data_dir / UPLOADED_KEY
    return chosen_file(settings.understanding.glossary_path, uploaded)


def load_glossary(settings: Settings) -> Glossary | None:
    """The bundled glossary extended by the user's, or None when translation is off. A broken file is an InputError."""
    if not settings.understanding.translation:
        return None
    glossary = read_cached(BUNDLED, Glossary.from_json)
    extension = glossary_extension_path(settings)
    if extension is None:
        return glossary
    if not extension.is_file():
        raise InputError.of("words.no_glossary", path=extension)
    return _extended(glossary, read_cached(extension, Glossary.from_json))


@lru_cache(maxsize=4)
def _extended(bundled: Glossary, extension: Glossary) -> Glossary:
    return bundled.extended(extension)  # cached: the same object, so its label index is built once


def save_uploaded_glossary(data: bytes, settings: Settings) -> Glossary:
    """Check an uploaded glossary, then make it the extension in use (unless a path is set explicitly)."""
    glossary = Glossary.from_json(data)
    storage.open_library(settings).write(UPLOADED_KEY, data)
    return glossary
