"""Collection names: how a typed name is cleaned, compared and told apart from a look-alike.

A name is cleaned (Unicode NFKC, so full-width `ｂｏａｒｄ` is `board`; letters, digits, space,
`-`, `_` and `.` kept; 64 characters at most). Two names are the same collection when their
`key` (cleaned, case-folded, spaces collapsed) is equal, so `Board` finds `board`. Two names
are look-alikes when their `skeleton` is equal: the key with Cyrillic and Greek letters that
look Latin replaced by the Latin letter (a small map in the spirit of Unicode TR39's
confusables), so `bоard` with a Cyrillic `о` is a look-alike of `board`. A name mixing Latin
with Cyrillic or Greek letters is refused outright. `DEFAULT_COLLECTION` is reserved: only an
administrator's action creates it. This module reads no file and decides nothing about roles.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from rag_core.errors import InputError

DEFAULT_COLLECTION = "default"
MAX_LENGTH = 64
_KEPT = " -_."
# Cyrillic and Greek letters (after case folding) that a reader takes for a Latin one.
_LOOKALIKE = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "н": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "ӏ": "l",
        "м": "m",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "с": "c",
        "ѕ": "s",
        "т": "t",
        "у": "y",
        "ү": "y",
        "х": "x",
        "ԁ": "d",
        "ԝ": "w",
        "ɡ": "g",
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "μ": "u",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        "ϲ": "c",
        "ϳ": "j",
        "ζ": "z",
    }
)


def clean(name: str) -> str:
    """The name as stored: NFKC, only letters, digits, space, `-`, `_`, `.`; "" when nothing is left."""
    text = unicodedata.normalize("NFKC", name or "")
    kept = "".join(ch if ch.isalnum() or ch in _KEPT else " " if ch.isspace() else "" for ch in text)
    return " ".join(kept.split())[:MAX_LENGTH].strip()


def check_typed(name: str) -> str:
    """A name as a client typed it (the API), refused when the app would store another one: a
    character the rule drops (`/`, `\\`, `:`...) or more than 64 characters. `../../etc` is refused,
    not turned into `....etc`."""
    typed = " ".join(unicodedata.normalize("NFKC", name or "").split())
    if typed and clean(typed) != typed:
        raise InputError.of("access.name_characters", name=typed[:80])
    return typed


def key(name: str) -> str:
    """What makes two names the same collection: the cleaned name, case-folded."""
    return unicodedata.normalize("NFKC", clean(name).casefold())


def skeleton(name: str) -> str:
    """What makes two names look alike: the key with Latin-looking Cyrillic and Greek letters made Latin."""
    return key(name).translate(_LOOKALIKE)


def _scripts(name: str) -> set[str]:
    found = set()
    for ch in name:
        if ch.isalpha():
            label = unicodedata.name(ch, "")
            for script in ("LATIN", "CYRILLIC", "GREEK"):
                if label.startswith(script):
                    found.add(script)
    return found


def check_new(name: str) -> str:
    """A name a new collection may take: cleaned, not empty, not mixing Latin with Cyrillic or Greek."""
    cleaned = clean(name)
    if not cleaned:
        raise InputError.of("access.empty_name")
    scripts = _scripts(cleaned)
    if "LATIN" in scripts and scripts & {"CYRILLIC", "GREEK"}:
        raise InputError.of("access.mixed_scripts", name=cleaned)
    return cleaned


def same(name: str, existing: Iterable[str]) -> str | None:
    """The existing collection that `name` designates (same key), or None."""
    wanted = key(name)
    return next((e for e in sorted(existing) if key(e) == wanted), None)


def lookalike(name: str, existing: Iterable[str]) -> str | None:
    """An existing collection that `name` would be mistaken for (same skeleton, other key), or None."""
    wanted, shape = key(name), skeleton(name)
    return next((e for e in sorted(existing) if key(e) != wanted and skeleton(e) == shape), None)


def is_reserved(name: str) -> bool:
    """The default collection's name, or a look-alike of it."""
    return skeleton(name) == skeleton(DEFAULT_COLLECTION)
