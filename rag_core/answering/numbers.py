"""Numbers in French and English text: where they are, what they are worth (docs/method.md).

`extract_numbers(text, language)` finds every figure of a text and normalises it:
`1 234,56` and `1,234.56` are both 1234.56; `12,5 %` is 0.125 with mantissa 12.5; `2 135 k€`
is 2 135 000 with mantissa 2135 and unit `k€`; `(1 234)` in a table is -1234; `1,601587e+04`
is 16015.87. The same function reads answers and sources, so both sides of a lookup are
read the same way. This module does not look anything up (see `number_trace`).

Decisions (documented because an actuary will ask):
- Thousands separators: a space (also no-break and thin spaces), a comma or an apostrophe
  followed by groups of exactly three digits; a dot only with two groups or more
  (`1.234.567`) or before a decimal comma (`1.234,56`).
- `1,503` (one comma, then exactly three digits, nothing else) is ambiguous. In French it is
  read as 1.503 (decimal comma), in English as 1503 (thousands); the other reading is kept
  in `alternatives` and a lookup accepts either. `1.503` is 1.503, with 1503 as the French
  alternative.
- A minus sign (`-`, `−`, `–`) makes a number negative only when it does not follow a digit
  or a letter (`2005-2014` is a range). Parentheses make it negative only when they hold
  the number alone and it has a separator or a decimal part (`(19 927 681)`), so a year
  in parentheses `(2014)` stays a year.
- Scales multiply the value: k/K/mille/thousand 1e3, M/million(s) 1e6, Md/Mds/Mrd/milliard(s)/
  bn/billion(s) 1e9, % 1e-2, ‰ 1e-3. Currencies (€, $, EUR, USD) are kept as the unit and
  do not change the value. A bare k/M without currency must touch the number (`5k`, `10M`).
- A digit glued to a letter is not a figure (`S1`, `TH00-02`, `1er`), nor is a LaTeX
  subscript or superscript (`C_{i,j+1}`, `x^2`), nor a page reference (`p. 12`), nor a digit
  glued by a dash, slash or plus to a word with a letter (`TH00-02`, `n+1`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

_SP = "[ \u00a0\u202f\u2009]"  # space, no-break space, narrow no-break space, thin space
_DIGITS_BODY = (
    rf"\d{{1,3}}(?:{_SP}\d{{3}})+(?:[.,]\d+)?(?!\d)"  # 1 234 567,89
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])"  # 1,234,567.89 (and the ambiguous 1,503)
    r"|\d{1,3}(?:'\d{3})+(?:[.,]\d+)?(?!\d)"  # 1'234'567.89
    r"|\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?(?![\d.])"  # 1.234.567,89
    r"|\d{1,3}(?:\.\d{3})+,\d+(?!\d)"  # 1.234,56
    r"|\d+(?:[.,]\d+)?"  # 1234.56, 12,5, 0.52, 2014
    r"|(?<![\w.,])\.\d+"  # .450 (tables printed without the leading zero)
)
# 1e-3, 1.6e + 04 (PDF spacing), × 10^3
_EXPONENT = r"(?:[eE](?:\s?[-+−]\s?)?\d{1,3}(?![\w])|\s?[×x·]\s?10\^\{?[-−]?\d{1,3}\}?)"
_CURRENCY = r"€|\$|EUR\b|USD\b|euros?\b|dollars?\b"
_WORD_SCALE = r"millions?\b|milliards?\b|billions?\b|thousands?\b|mille\b"
_SUFFIX = (
    rf"(?P<unit>(?:{_SP}?(?:%|‰|(?:k|K|M|Md|Mds|Mrd|bn){_SP}?(?:€|\$|EUR\b|USD\b)|{_CURRENCY}|{_WORD_SCALE}))"
    r"|(?:k|K|M|Md|Mds|Mrd|bn)(?![\w]))?"
)
NUMBER_RE = re.compile(
    rf"(?P<prefix>(?:\$|€|USD{_SP}?|EUR{_SP}?))?"
    rf"(?P<body>{_DIGITS_BODY})(?P<exp>{_EXPONENT})?{_SUFFIX}"
)
_MASK_LATEX = re.compile(r"[_^](?:\{[^{}]*\}|\\?\w)")
_PAGE_REF = re.compile(r"(?:\bp{1,2}\.|\bpages?|\bpp)\s*$", re.IGNORECASE)

SCALES: dict[str, float] = {
    "k": 1e3,
    "K": 1e3,
    "mille": 1e3,
    "thousand": 1e3,
    "thousands": 1e3,
    "M": 1e6,
    "million": 1e6,
    "millions": 1e6,
    "Md": 1e9,
    "Mds": 1e9,
    "Mrd": 1e9,
    "bn": 1e9,
    "milliard": 1e9,
    "milliards": 1e9,
    "billion": 1e9,
    "billions": 1e9,
    "%": 1e-2,
    "‰": 1e-3,
}
_SEPARATORS = " \u00a0\u202f\u2009'"


@dataclass(frozen=True)
class Number:
    """One figure as written (`text`, `start`, `end` in the text) and as a value."""

    text: str
    start: int
    end: int
    value: float = field(compare=False)  # mantissa x scale, signed
    mantissa: float = field(compare=False)  # the digits as written, signed, without scale
    decimals: int = 0  # digits after the decimal mark as written (drives the rounding tolerance)
    unit: str = ""  # '%', 'k€', 'M', '€', ...
    scale: float = 1.0
    alternatives: tuple[float, ...] = ()  # other readings of an ambiguous separator (values)
    bare_integer: bool = False  # no separator, decimals, exponent or unit

    def values(self) -> tuple[float, ...]:
        return (self.value, *self.alternatives)

    def mantissas(self) -> tuple[float, ...]:
        return (self.mantissa, *(a / self.scale for a in self.alternatives))

    @property
    def significant_digits(self) -> int:
        digits = re.sub(r"\D", "", self.text.split("e")[0].split("E")[0])
        return len(digits.lstrip("0")) or 1


def _parse_body(body: str, language: str) -> tuple[float, int, tuple[float, ...]]:
    """(value, decimals, alternative values) of the digits; separators decided as documented above."""
    compact = body
    for sep in _SEPARATORS:
        compact = compact.replace(sep, "")
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?", compact):
        whole, _, frac = compact.replace(".", "").partition(",")
        return float(f"{whole}.{frac or 0}"), len(frac), ()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+\.\d+|\d{1,3}(?:,\d{3}){2,}", compact):
        whole, _, frac = compact.replace(",", "").partition(".")
        return float(f"{whole}.{frac or 0}"), len(frac), ()
    if re.fullmatch(r"\d{1,3},\d{3}", compact) and compact == body:  # 1,503: the ambiguous case
        thousands, decimal = float(compact.replace(",", "")), float(compact.replace(",", "."))
        if language == "fr":
            return decimal, 3, (thousands,)
        return thousands, 0, (decimal,)
    if re.fullmatch(r"\d{1,3}\.\d{3}", compact) and language == "fr":
        return float(compact), 3, (float(compact.replace(".", "")),)
    whole, _, frac = compact.replace(",", ".").partition(".")
    return float(f"{whole}.{frac or 0}"), len(frac), ()


def _exponent(exp: str) -> int:
    digits = re.search(r"[-−]?\d+(?=\}?$)", re.sub(r"\s", "", exp))
    return int(digits.group().replace("−", "-")) if digits else 0


def _unit_and_scale(unit: str) -> tuple[str, float]:
    unit = unit.strip(_SEPARATORS)
    if not unit:
        return "", 1.0
    scale_word = re.match(r"(k|K|Md|Mds|Mrd|M|bn|millions?|milliards?|billions?|thousands?|mille)", unit)
    if unit in ("%", "‰"):
        return unit, SCALES[unit]
    if scale_word:
        return unit, SCALES.get(scale_word.group(1), 1.0)
    return unit, 1.0


def _mask(text: str) -> str:
    """LaTeX sub- and superscripts replaced by spaces of the same length (offsets are kept)."""
    return _MASK_LATEX.sub(lambda m: " " * len(m.group()), text)


def _sign(text: str, start: int, end: int, body: str) -> tuple[int, int, int]:
    """(sign, start, end) after looking at a minus sign before and parentheses around the number."""
    before = text[start - 1] if start > 0 else " "
    if before in "-−–" and (start < 2 or not text[start - 2].isalnum()):
        return -1, start - 1, end
    if before == "(" and text[end : end + 1] == ")" and (re.search(r"[ ,.'\u00a0\u202f]", body)):
        return -1, start - 1, end + 1
    return 1, start, end


def _glued_to_code(text: str, start: int) -> bool:
    """True when the number follows a dash, slash or plus glued to a word that holds a letter (TH00-02, n+1)."""
    if start < 2 or text[start - 1] not in "-–/+":
        return False
    run = re.search(r"\S*$", text[: start - 1]).group()  # type: ignore[union-attr]
    return bool(run) and run[-1].isalnum() and any(ch.isalpha() for ch in run)


def extract_numbers(text: str, language: str = "en") -> list[Number]:
    """Every figure of `text`, in order, normalised as the module docstring says."""
    masked = _mask(text)
    out: list[Number] = []
    for m in NUMBER_RE.finditer(masked):
        start, end = m.start(), m.end()
        before = masked[start - 1] if start > 0 else " "
        if before.isalnum() or before in "_\\" or (before in ".,'" and start > 1 and masked[start - 2].isdigit()):
            continue  # glued to a word (S1, TGH05) or the tail of another number
        if _glued_to_code(masked, start):
            continue  # TH00-02, ISO-9001: a code, not a figure
        after = masked[end : end + 1]
        if after in ".," and masked[end + 1 : end + 2].isdigit() and "." in m.group("body"):
            continue  # 127.0.0.1, 2.14.1, section 3.2.1: a dotted code or address, not a figure
        if after.isalpha() and not m.group("unit"):
            continue  # 1er, 3e, 2nd, 12h
        if _PAGE_REF.search(masked[max(0, start - 8) : start]):
            continue
        body = m.group("body")
        value, decimals, alternatives = _parse_body(body, language)
        exp = _exponent(m.group("exp") or "")
        if abs(exp) > 300:
            continue  # beyond a float: not an actuarial figure
        unit_raw = (m.group("unit") or "").strip(_SEPARATORS)
        unit, scale = _unit_and_scale(unit_raw)
        if m.group("prefix"):
            unit = (m.group("prefix").strip(_SEPARATORS) + " " + unit).strip()
        sign, s, e = _sign(masked, start, end, body)
        # trailing spaces are never part of the figure
        while e > s and text[e - 1] in _SEPARATORS:
            e -= 1
        mantissa = sign * value * (10.0**exp)
        out.append(
            Number(
                text=text[s:e],
                start=s,
                end=e,
                value=mantissa * scale,
                mantissa=mantissa,
                decimals=max(decimals - exp, 0),
                unit=unit,
                scale=scale,
                alternatives=tuple(sign * a * (10.0**exp) * scale for a in alternatives),
                bare_integer=body.isdigit() and not m.group("exp") and not unit,
            )
        )
    return out


def same_value(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def rounding_tolerance(number: Number) -> float:
    """Half a unit of the last digit written, in value units: '16 016' → 0.5, '4,8 %' → 0.0005."""
    return 0.5 * (10.0 ** (-number.decimals)) * number.scale


def rounds_to(written: Number, exact: float) -> bool:
    """True when `exact`, rounded as `written` is written, gives `written` (plus a hair for float noise)."""
    return abs(exact - written.value) <= rounding_tolerance(written) * (1 + 1e-9) + 1e-12
