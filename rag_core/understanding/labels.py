"""Finding known labels (thesaurus concepts, glossary terms) in a question, and reading their files.

A label matches when its folded words occur in the question as a whole sequence (accents,
case and a final plural "s"/"x" ignored); at each position the longest label wins. Shared by
the thesaurus and the bilingual glossary, as are `read_cached` (a file parsed once per version)
and `json_items` (a file's list of entries, checked).
This module does not search.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Generic, TypeVar

from rag_core.errors import InputError
from rag_core.text import fold

_TOKEN = re.compile(r"[0-9a-z]+")
T = TypeVar("T")


def folded_words(text: str) -> list[str]:
    """The folded words of a text, as labels are read: 'Provisions techniques' -> ['provisions', 'techniques']."""
    return _TOKEN.findall(fold(text))


def label_key(text: str) -> tuple[str, ...]:
    """Folded words, a final plural s/x dropped: 'Provisions techniques' -> ('provision', 'technique')."""
    return tuple(w[:-1] if len(w) > 3 and w[-1] in "sx" else w for w in folded_words(text))


@dataclass(frozen=True)
class Match(Generic[T]):
    start: int  # first word of the match in `label_key(question)`
    end: int  # one past its last word
    items: tuple[T, ...]  # what the matched label names (several items may share a label)


class LabelIndex(Generic[T]):
    """Labels -> the items they name; `find` scans a question for them."""

    def __init__(self, labelled: Iterable[tuple[str, T]]) -> None:
        self._index: dict[tuple[str, ...], list[T]] = {}
        for label, item in labelled:
            key = label_key(label)
            if key:
                items = self._index.setdefault(key, [])
                if item not in items:
                    items.append(item)
        self._longest = max((len(k) for k in self._index), default=0)

    def find(self, words: tuple[str, ...]) -> list[Match[T]]:
        """Matches in `words` (a `label_key`), left to right, the longest at each position."""
        found: list[Match[T]] = []
        i = 0
        while i < len(words):
            step = 1
            for n in range(min(self._longest, len(words) - i), 0, -1):
                hits = self._index.get(words[i : i + n])
                if hits:
                    found.append(Match(i, i + n, tuple(hits)))
                    step = n
                    break
            i += step
        return found


def read_cached(path: Path, parse: Callable[[bytes, str], T]) -> T:
    """`parse(bytes, stem)` of the file, parsed again only when its size or modification time changes."""
    stat = path.stat()
    # the ignore below: the cached reader returns what `parse` returns
    return _read(str(path), stat.st_mtime_ns, stat.st_size, parse)  # type: ignore[return-value]


@lru_cache(maxsize=8)
def _read(path: str, mtime_ns: int, size: int, parse: Callable[[bytes, str], object]) -> object:
    return parse(Path(path).read_bytes(), Path(path).stem)


def chosen_file(explicit: Path | None, uploaded: Path) -> Path | None:
    """The file a setting names, else the user's uploaded one when it exists."""
    if explicit is not None:
        return Path(explicit)
    return uploaded if uploaded.is_file() else None


def json_items(data: bytes | str, what: str, key: str, example: str = "") -> tuple[list, str]:
    """The non-empty list under `key` of a JSON file (or the file itself when it is a list) and the
    file's "name"; InputError with a readable message when it is not one (`what`: "glossary"...)."""
    try:
        raw = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError.of("words.bad_json", what=what, detail=err) from err
    items = raw.get(key) if isinstance(raw, dict) else raw
    if not isinstance(items, list) or not items:
        raise InputError.of("words.no_list_like" if example else "words.no_list", what=what, key=key, example=example)
    return items, str(raw.get("name", "")) if isinstance(raw, dict) else ""
