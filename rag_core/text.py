"""Small text utilities shared by stages: accent folding, quote normalisation, language guess, and
spreadsheet-safe cells (`safe_cell`, the CSV-injection rules every export follows).

No outside library: these functions must behave identically at indexing and query time.
"""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")
_QUOTES = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "\u00a0": " ",
        "\u202f": " ",
        "\u00ad": "",
    }
)

_FR_WORDS = frozenset(
    "le la les des du de un une et est dans pour par sur au aux avec que qui ne pas sont ces cette "
    "il elle nous vous ils on se ce en son sa ses leur leurs été être ou où mais donc car plus".split()
)
# Function and question words of French and English, folded: never content words.
STOP_WORDS = frozenset(
    """a au aux avec ce ces cet cette comme dans de des du elle elles en est et etre il ils je la le les leur
    leurs lui mais me meme mes moi mon ne nos notre nous on ou par pas plus pour qu que quel quelle quelles
    quels qui sa sans se ses si son sont sur ta te tes toi ton tu un une vos votre vous y d l j m n s t c
    quoi comment pourquoi quand combien ete etait peut faut fait avoir quest donc car entre chaque tout tous
    toute toutes ainsi alors afin lorsque lors selon cela ceci celui celle ceux celles dont aussi autre autres
    an and are as at be by can could do does did for from has have how i if in into is it its of on or
    should that the their them there these those they this to was were what when where which who whom why
    will with would you your me my we our us any all each other such than then also about between both
    may might must shall not no nor only own same so too very just over under upon within without""".split()
)

_EN_WORDS = frozenset(
    "the of and to in is for that on with as by are be this from at or an it which not have has "
    "was were these those their its can will we they if when than".split()
)


def fold(text: str) -> str:
    """Lower-case, NFKD, strip combining marks: 'Mortalité' -> 'mortalite'. Same length mapping is not kept."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def normalise(text: str) -> str:
    """Normalise for quote comparison: NFKC, straight quotes, joined hyphenation, collapsed spaces, folded."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    return _WS.sub(" ", fold(text)).strip()


def squeeze(text: str) -> str:
    """`normalise` without any whitespace: a fallback for PDF text layers that lose or add spaces."""
    return _WS.sub("", normalise(text))


def contains_quote(haystack: str, quote: str) -> bool:
    """True when `quote` occurs in `haystack` after normalisation (spaces ignored as a fallback)."""
    if not quote.strip():
        return False
    q = normalise(quote)
    if q in normalise(haystack):
        return True
    return squeeze(quote) in squeeze(haystack)


def _letters(text: str) -> tuple[str, list[int]]:
    """Folded letters and digits of `text` (NFKC, lower case, no accents), each with its index in `text`."""
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            if ch.isalnum():
                out.append(ch.lower())
                index.append(i)
            continue
        for c in fold(unicodedata.normalize("NFKC", ch)):
            if c.isalnum():
                out.append(c)
                index.append(i)
    return "".join(out), index


def find_quote(haystack: str, quote: str, near: int = 0) -> tuple[int, int] | None:
    """`[start, end)` of `quote` in `haystack`, comparing folded letters and digits only (what
    `contains_quote` accepts, and also text that lost its hyphenation or punctuation); the
    occurrence closest to `near` when there are several; None when absent."""
    q, _ = _letters(quote)
    if not q:
        return None
    h, index = _letters(haystack)
    hits: list[int] = []
    at = h.find(q)
    while at >= 0:
        hits.append(at)
        at = h.find(q, at + 1)
    if not hits:
        return None
    best = min(hits, key=lambda k: abs(index[k] - near))
    return index[best], index[best + len(q) - 1] + 1


def detect_language(text: str) -> str:
    """'fr' or 'en' by counting frequent function words; ties and empty text give 'en'."""
    words = re.findall(r"[a-zà-ÿ]+", text.lower())
    fr = sum(w in _FR_WORDS for w in words)
    en = sum(w in _EN_WORDS for w in words)
    return "fr" if fr > en else "en"


def written_in(text: str, least: int = 3) -> str | None:
    """'fr' or 'en' when the text shows at least `least` function words of that language and more than of the
    other; None when it does not say (numbers, names, a few words)."""
    words = re.findall(r"[a-zà-ÿ]+", text.lower())
    fr = sum(w in _FR_WORDS for w in words)
    en = sum(w in _EN_WORDS for w in words)
    if max(fr, en) < least or fr == en:
        return None
    return "fr" if fr > en else "en"


def collapse_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


# ----- spreadsheet-safe cells ----------------------------------------------------------------
# A cell whose text starts with `=`, `+`, `-`, `@`, a tab or a carriage return, also after leading
# whitespace (any Unicode space, the non-breaking ones included, or an invisible format character)
# and in the full-width forms (`＝`, `＋`, `－`, `＠`), is prefixed with `'` so that Excel and
# LibreOffice show it as text (OWASP, "CSV Injection"). A plain negative number (`-12`, `-1 200,5`,
# `-3.5%`) may stay as it is where the caller says the cell may hold a number: it makes no formula.
_TRIGGERS = frozenset("=+-@\t\r")
_PLAIN_NEGATIVE = re.compile(r"-\d[\d\u00a0\u202f .,]*%?")


def _leading_blank(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in ("Zs", "Cf")


def safe_cell(text: str, numbers_allowed: bool = False) -> str:
    """`text`, prefixed with `'` when a spreadsheet could read it as a formula."""
    if not text:
        return text
    if text[0] in "\t\r":
        return "'" + text
    start = 0
    while start < len(text) and _leading_blank(text[start]):
        start += 1
    if start == len(text) or unicodedata.normalize("NFKC", text[start])[:1] not in _TRIGGERS:
        return text
    if numbers_allowed and start == 0 and _PLAIN_NEGATIVE.fullmatch(text):
        return text
    return "'" + text
