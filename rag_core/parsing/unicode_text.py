"""Unicode clean-up of text read from a PDF's text layer, before it enters the document.

- NFC: a letter and its combining accent become one character ("e" + U+0301 -> "é").
- Spacing accents recombined: LaTeX PDFs made with OT1 fonts write "é" as the spacing acute
  U+00B4 followed by "e" ("Ann´ees"); the accent is put back on its letter ("Années") when
  Unicode has that accented letter as one character. An accent written after a letter that
  is not followed by another letter ("yˆ ", an estimator) is put back on that letter. Math
  hats without a precomposed character ("ˆα", "ˆθ") are left as they are.
- Unknown bullet glyphs: U+FFFD and the private-use codes of Symbol/Wingdings bullets,
  standing alone before text, become "•".

- Arabic presentation forms (U+FB50-U+FDFF, U+FE70-U+FEFF: the shaped glyphs some PDFs map
  their text to, lam-alef ligatures included) become the letters they show, in logical order
  (NFKC of those characters only).

Latin ligatures ("ﬁ", "ﬀ") are NOT expanded here: the displayed text stays what the PDF shows;
search folds them (`rag_core.text.fold` applies NFKD, which expands them).
"""

from __future__ import annotations

import re
import unicodedata

# spacing accent -> combining accent
_COMBINING = {
    "\u00b4": "\u0301",  # ´ acute
    "\u02ca": "\u0301",
    "\u0060": "\u0300",  # ` grave (ASCII backquote: only before a vowel, see _BEFORE)
    "\u02cb": "\u0300",
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02c6": "\u0302",  # ˆ circumflex (the ASCII caret ^ is left alone: exponents)
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02dc": "\u0303",  # ˜ tilde
    "\u02c7": "\u030c",  # ˇ caron
    "\u02da": "\u030a",  # ˚ ring
}
_ACCENTS = "".join(k for k in _COMBINING if k != "`")
_BEFORE = re.compile(rf"([{_ACCENTS}]|`(?=[aeiouAEIOU]))(\w)")
_AFTER = re.compile(rf"(\w)([{_ACCENTS}])(?!\w)")
# U+FFFD, Symbol's bullet (F0B7), Wingdings' bullets and arrows used as bullets
_BULLETS = "\ufffd\uf0b7\uf0a7\uf0a8\uf0d8\uf076\uf0fc\uf06e\uf075\uf0e8\uf09f"
_PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufeff]+")
_BULLET_RUN = re.compile(rf"(^|(?<=\s))[{_BULLETS}](?=\s|$)")


def clean_text(text: str) -> str:
    """NFC text with spacing accents put back on their letters and unknown bullets as '•'."""
    if not text:
        return text
    if text.isascii() and "`" not in text:
        return text
    text = unicodedata.normalize("NFC", text)
    if any(ch in _COMBINING for ch in text):
        text = _BEFORE.sub(_combine_before, text)
        text = _AFTER.sub(_combine_after, text)
    if _PRESENTATION_FORMS.search(text):
        text = _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    if any(ch in _BULLETS for ch in text):
        text = _BULLET_RUN.sub("•", text)
    return text


def _compose(letter: str, accent: str) -> str | None:
    composed = unicodedata.normalize("NFC", letter + _COMBINING[accent])
    return composed if len(composed) == 1 else None


def _combine_before(match: re.Match) -> str:
    accent, letter = match.group(1), match.group(2)
    return _compose(letter, accent) or match.group(0)


def _combine_after(match: re.Match) -> str:
    letter, accent = match.group(1), match.group(2)
    return _compose(letter, accent) or match.group(0)
