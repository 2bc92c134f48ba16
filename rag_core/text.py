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

# The verb of "What does Guideline 37C say?", « Que dit la ligne directrice 37C ? », folded: in a question it asks
# for a text's content and is no evidence of it (a passage's "dite", "says" or "said" answers nothing).
ASKING_VERBS = frozenset("say says said dit disent dire".split())

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


# ----- mathematics the text layer garbled ----------------------------------------------------
# Each sign is a property of the extracted text, never of a document: a glyph the PDF's fonts map
# to no character (U+FFFD, a control code, a private-use code), a negation slash left on a letter
# (after NFC, "=" + U+0338 is "≠": an overlay left over means the "≠" was split), a placeholder box
# in the middle of a line before single letters, raw display-maths markup mixing operators with
# letters, a display formula read from the text layer (no markup), a bracketed label printed twice over
# itself ("[Mac99]Mac99]").
_OVERLAYS = "\u0334\u0335\u0336\u0337\u0338\u20d2\u20d3\u20e5\u20eb"
_RELATIONS = "=<>∈∋⊂⊃⊆⊇≤≥∼~≈≡|"
_OVERLAY_BY_RELATION = re.compile(f"[{_OVERLAYS}]\\s{{0,2}}[{re.escape(_RELATIONS)}]")
_PLACEHOLDERS = "\u25a1\u25ad\u25af\u2b1a\ufffc"  # white square/rectangles, dotted square, object replacement
_PLACEHOLDER_IN_LINE = re.compile(
    f"[^\\s{_PLACEHOLDERS}][^\\S\\n]*[{_PLACEHOLDERS}](?=[^\\S\\n]*(?:[^\\W\\d_]|[{re.escape(_RELATIONS)}+−-])(?!\\w))"
)
_BIG_OPERATORS = "∑∏∫∮√¯ˆ˜"
_DISPLAY_MATHS = re.compile(r"\$\$(.{1,300}?)\$\$", re.DOTALL)
# A formula set on a line of its own, as the text layer reads it: its characters in a row, with no markup for
# what the page prints in two dimensions (a fraction's bar, an index below, a power above), so "z = n/(n+K)"
# reads "z = n n + K". A relation or an operator, a letter and no markup: the layout is lost.
# A formula model's output keeps it in markup (`\frac{n}{n+K}`, `x^2`, `C_{i,j}`) and is read as written.
_RELATION_OR_OPERATOR = re.compile(r"[=<>≤≥≠≈+−×/]")
_MARKUP = re.compile(r"\\[A-Za-z]+|[_^]")
_REPEATED_LABEL = re.compile(r"\[([^\[\]\s]{1,24})\]\[?\1\]")
_SPACES = frozenset("\t\n\r\f\v")


def _unmapped_glyph(ch: str) -> bool:
    """A character standing for a glyph the font maps to nothing readable: U+FFFD, a control code
    other than whitespace, a private-use code point."""
    if ch == "\ufffd":
        return True
    category = unicodedata.category(ch)
    return (category == "Cc" and ch not in _SPACES) or category == "Co"


def _bullet_glyph(text: str, i: int) -> bool:
    """An unmapped glyph alone before text at the start of a line: a bullet (Symbol, Wingdings, a
    TeX dingbat), read as a bullet whatever its code."""
    line_start = text.rfind("\n", 0, i) + 1
    return not text[line_start:i].strip() and text[i + 1 : i + 2] in (" ", "\t")


_PROSE_SINGLES = frozenset("aAàyI")  # one-letter words of French and English prose


def _in_maths(text: str, i: int, reach: int = 12) -> bool:
    """Whether the glyph at `i` sits among mathematics: within `reach` characters on either side, a
    digit, an operator or bracket, a Greek letter, another unmapped glyph, or a one-letter symbol. A
    stray icon in a sentence ("voir le dépôt suivant \x87.") or after a heading is no formula."""
    window = text[max(0, i - reach) : i + reach + 1]
    at = i - max(0, i - reach)
    for j, ch in enumerate(window):
        if j == at or ch.isspace():
            continue
        if ch.isdigit() or ch in "()[]{}=+-−/^_|" or unicodedata.category(ch) == "Sm" or _unmapped_glyph(ch):
            return True
        if "\u0370" <= ch <= "\u03ff":
            return True
        lone = (j == 0 or not window[j - 1].isalpha()) and (j + 1 == len(window) or not window[j + 1].isalpha())
        if ch.isalpha() and lone and ch not in _PROSE_SINGLES and 0 < j < len(window) - 1:
            return True
    return False


def garbled_maths(text: str) -> bool:
    """True when the text layer garbled the passage (mostly its mathematics), so that the words read
    are not what the page prints. Conservative: prose in any language, tables of figures and clean
    formulas in the text or in markup (`C_{i,j+1} = f_j C_{i,j}`, `MSEP = Var + bias²`, "x ≠ y") are never
    flagged; a display formula (`$$…$$`) with a relation or an operator and no markup always is: the text
    layer reads its two-dimensional layout in a row ("$$z = n n + K$$" for z = n/(n+K))."""
    text = unicodedata.normalize("NFC", text)
    for i, ch in enumerate(text):
        if _unmapped_glyph(ch) and not _bullet_glyph(text, i) and (ch == "\ufffd" or _in_maths(text, i)):
            return True
    if _OVERLAY_BY_RELATION.search(text) or _PLACEHOLDER_IN_LINE.search(text) or _REPEATED_LABEL.search(text):
        return True
    for run in _DISPLAY_MATHS.finditer(text):
        body = run.group(1)
        if not re.search(r"[^\W\d_]", body):  # figures only: nothing the layout could have moved
            continue
        if any(op in body for op in _BIG_OPERATORS) or (
            _RELATION_OR_OPERATOR.search(body) and not _MARKUP.search(body)
        ):
            return True
    return False
