"""A question's misspelt word read as the word the retrieved passages write (docs/method.md, answers).

A question word that no passage of the library holds is either a real gap ("TSCA" asked of documents
that never name the tax) or a slip of the keyboard ("Demoncratic", "TABULUAR"). The two are told
apart by where the near word is found: only the words of the passages retrieved for this question
are candidates, never the whole vocabulary of the library (in a large vocabulary every long word has
a neighbour one edit away, and a real gap would be read as some unrelated word). A candidate is one
edit away (a letter added, dropped, changed, or two neighbours swapped); both words are long enough
for one edit to be a slip rather than another word (`MIN_CHARS`: "SCR" and "MCR" are two things); a
word holding a digit is an identifier, never corrected ("IFRS 17" is not "IFRS 18"); the first letter
is kept, as in most slips of typing (the acronym "HOVER" is no slip for "cover"). A word glued to a
short function word by a missing space ("Liabilitiesfor") is read as the word the passages write.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

MIN_CHARS = 5  # both words at least this long: one edit in a shorter word makes another word
# function words a missing space glues to the word before ("Liabilitiesfor COSTCO"): the word is read alone
GLUED = ("for", "of", "in", "the", "and", "to", "de", "du", "des", "et", "en")


def one_edit_apart(a: str, b: str) -> bool:
    """True when `b` is `a` with one letter added, dropped or changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long_)) if x != y), len(short))
    return short[i:] == long_[i + 1 :]


def correctable(word: str) -> bool:
    return len(word) >= MIN_CHARS and word.isalpha()


def read_as(word: str, passage_words: Iterable[str]) -> str | None:
    """The passage word (folded) that `word` (folded) is a slip for: one edit away, the most frequent
    in the passages when several are (then the first in alphabetical order), or glued to a short
    function word by a missing space ("liabilitiesfor": "liabilities" + "for"); None when none is."""
    if not correctable(word):
        return None
    words = list(passage_words)
    counts = Counter(w for w in words if correctable(w) and w[0] == word[0] and one_edit_apart(word, w))
    if counts:
        return min(counts, key=lambda w: (-counts[w], w))
    vocabulary = set(words)
    for glued in GLUED:
        head = word[: -len(glued)]
        if word.endswith(glued) and correctable(head) and head in vocabulary:
            return head
    return None
