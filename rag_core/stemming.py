"""Snowball stems of folded words, French and English: the one home of PyStemmer.

The full-text indexes stem accent-folded text with the Snowball algorithms (tantivy's French
and English analysers); checks that must agree with them ("does this passage mention the
word?") stem the same folded words here. This module does not tokenise or fold text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import Stemmer

_ALGORITHMS = {"fr": "french", "en": "english"}


@lru_cache(maxsize=4)
def stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(_ALGORITHMS.get(language, "english"))


def stems(words: Sequence[str], language: str) -> list[str]:
    """Snowball stems of `words` (already lower-case and folded) in `language`."""
    return stemmer(language).stemWords(list(words))


def both_stems(word: str) -> frozenset[str]:
    """The word's French and English stems: a mention in either analyser counts."""
    return frozenset({stemmer("fr").stemWord(word), stemmer("en").stemWord(word)})
