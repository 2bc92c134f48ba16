"""Fiscal and reporting periods written in any of their forms, in English and French.

A filing writes "fiscal 2023" where a reader asks about "FY2023"; a table heads a column "4Q23"
or "Q4 2023" where the question says "fourth quarter"; a French report says "exercice 2023",
"T4" or "premier semestre". This module recognises such expressions and gives each one a
canonical key, so that two spellings of the same period compare equal, and the surface forms to
look for in a document.

Public API:

- `find_periods(text) -> list[Period]`: the period expressions of `text`, in order, none
  overlapping (the longest wins: "fourth quarter of fiscal 2023" is one period, not two).
- `period_key(text) -> str | None`: the key of a text that is one period (a table's column
  header, "Q4 2023"), else None.
- `same_period(a, b) -> bool`: whether two keys name the same period, a part written without
  its year ("Q4") matching that part of any year ("2023-Q4").
- `surface_forms(key) -> tuple[str, ...]`: the ways documents write the period of `key`, in
  English and French, most specific first ("fiscal 2023", "FY23", "exercice 2023", "2023", ...).
- `Period`: `key`, `year`, `part`, `text` (as written) and `start`/`end` (its span in the text).

Keys: "2023" for a whole (fiscal) year, "2023-Q4" for a quarter, "2023-H1" for a half year;
"Q4" / "H1" for a part written without a year. Two-digit years are read as 20xx ("FY23" is
2023). A bare four-digit year between 1900 and 2099 is a period: "FY2023", "fiscal 2023",
"fiscal year 2023", "exercice 2023" and "2023" all have the key "2023", and so has a fiscal year
written across the two calendar years it spans ("2022-23", "FY2022-23": the year it ends in; two
years that do not follow each other, "2002-05", are no fiscal year). This module only reads
text; it does not search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUARTER_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
    "premier": 1,
    "1er": 1,
    "deuxième": 2,
    "deuxieme": 2,
    "2e": 2,
    "2ème": 2,
    "troisième": 3,
    "troisieme": 3,
    "3e": 3,
    "3ème": 3,
    "quatrième": 4,
    "quatrieme": 4,
    "4e": 4,
    "4ème": 4,
}
_HALF_WORDS = {
    "first": 1,
    "second": 2,
    "deuxième": 2,
    "deuxieme": 2,
    "seconde": 2,
    "1st": 1,
    "2nd": 2,
    "premier": 1,
    "1er": 1,
    "2e": 2,
    "2ème": 2,
}
_ORDINAL_EN = {1: "first", 2: "second", 3: "third", 4: "fourth"}
_ORDINAL_FR = {1: "premier", 2: "deuxième", 3: "troisième", 4: "quatrième"}

_YEAR4 = r"(?:19|20)\d{2}"
_YEAR = rf"(?:{_YEAR4}|'?\d{{2}})"  # 2023, 23, '23
# The year that may follow a part: "Q4 2023", "Q4 FY23", "fourth quarter of fiscal 2023", "T4 2023".
_YEAR_AFTER = (
    r"(?:[\s,]+(?:of\s+|de\s+l'|de\s+|du\s+)?(?:the\s+)?"
    rf"(?:FY\s?'?(?P<y>{_YEAR4}|\d{{2}})|(?:fiscal\s+(?:year\s+)?|exercice\s+)?(?P<y2>{_YEAR4}|'\d{{2}}))"
    rf"|\s*'(?P<y4>\d{{2}}))?"
)
_Q_ORD = "|".join(sorted((re.escape(w) for w in _QUARTER_WORDS), key=len, reverse=True))
_H_ORD = "|".join(sorted((re.escape(w) for w in _HALF_WORDS), key=len, reverse=True))

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        # 4Q23, 4Q 2023, 1H23, 2H2023 (part first, year glued)
        ("Q", rf"\b(?P<n>[1-4])Q\s?(?P<y>{_YEAR4}|\d{{2}})\b"),
        ("H", rf"\b(?P<n>[12])H\s?(?P<y>{_YEAR4}|\d{{2}})\b"),
        # FY2023Q1, FY23 Q1, 2023Q1: the year first, its quarter glued after it
        ("Q", rf"\b(?:FY\s?(?P<y>{_YEAR4}|\d{{2}})|(?P<y2>{_YEAR4}))\s?Q(?P<n>[1-4])\b"),
        # Q4 2023, Q4 FY23, Q4'23, Q4-23, T4 2023 (FR), Q4
        ("Q", rf"\b[QT](?P<n>[1-4])(?:[-/](?P<y3>{_YEAR4}|\d{{2}})\b|{_YEAR_AFTER})\b"),
        # H1 2023, S1 2023 (FR semestre), H1
        ("H", rf"\b[HS](?P<n>[12])(?:[-/](?P<y3>{_YEAR4}|\d{{2}})\b|{_YEAR_AFTER})\b"),
        # fourth quarter (of fiscal 2023), quatrième trimestre 2023, 4e trimestre de l'exercice 2023
        ("Q", rf"\b(?P<w>{_Q_ORD})\s+(?:fiscal\s+)?(?:quarter|trimestre){_YEAR_AFTER}\b"),
        # Quarter 3 (2023), QUARTER 3: a school year's or a plan's quarters, numbered after the word
        ("Q", rf"\bquarter\s+(?P<n>[1-4])\b(?![.,]\d){_YEAR_AFTER}\b"),
        # first half (of 2023), premier semestre 2023
        ("H", rf"\b(?P<w>{_H_ORD})\s+(?:fiscal\s+)?(?:half(?:\s+year|-year)?|semestre){_YEAR_AFTER}\b"),
        # FY2023, FY 2023, FY23, FY'23, fiscal 2023, fiscal year 2023, exercice 2023, exercice fiscal 2023
        ("Y", rf"\bFY\s?'?(?P<y>{_YEAR4}|\d{{2}})\b"),
        ("Y", rf"\b(?:fiscal(?:\s+year)?|exercice(?:\s+fiscal)?)\s+(?P<y>{_YEAR4})\b"),
        # a fiscal year across two calendar years, as India's or the UK's filings write it: 2002-03, 2002/03
        ("S", rf"\b(?:FY\s?)?(?P<a>{_YEAR4})\s?[-/\u2013]\s?(?P<b>\d{{2}})\b(?![-/.]\d)"),
        ("Y", rf"\b(?P<y>{_YEAR4})\b"),
    )
)


@dataclass(frozen=True)
class Period:
    """One period expression found in a text."""

    key: str  # "2023", "2023-Q4", "2023-H1", "Q4", "H1"
    year: int | None
    part: str | None  # "Q1".."Q4", "H1", "H2"; None for a whole year
    text: str  # as written
    start: int
    end: int


def _year(raw: str | None) -> int | None:
    if not raw:
        return None
    digits = raw.lstrip("'")
    value = int(digits)
    return value if len(digits) == 4 else 2000 + value


def _key(year: int | None, part: str | None) -> str:
    if part is None:
        return str(year)
    return part if year is None else f"{year}-{part}"


def _read(kind: str, match: re.Match[str]) -> tuple[int | None, str | None]:
    groups = match.groupdict()
    if kind == "S":  # a split fiscal year is the year it ends in; two years apart it is no fiscal year
        start = int(groups["a"])
        return (start + 1, None) if (start + 1) % 100 == int(groups["b"]) else (None, None)
    year = _year(groups.get("y") or groups.get("y2") or groups.get("y3") or groups.get("y4"))
    if kind == "Y":
        return year, None
    if groups.get("n"):
        number = int(groups["n"])
    else:
        word = groups["w"].lower()
        number = (_QUARTER_WORDS if kind == "Q" else _HALF_WORDS)[word]
    return year, f"{kind}{number}"


def find_periods(text: str) -> list[Period]:
    """The period expressions of `text`, in order; where two overlap, the longer one (then the
    one found first) is kept."""
    candidates: list[Period] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            year, part = _read(kind, match)
            if year is None and part is None:
                continue
            candidates.append(Period(_key(year, part), year, part, match.group(), match.start(), match.end()))
    candidates.sort(key=lambda p: (-(p.end - p.start), p.start))
    kept: list[Period] = []
    for period in candidates:
        if all(period.end <= k.start or period.start >= k.end for k in kept):
            kept.append(period)
    return sorted(kept, key=lambda p: p.start)


# Two years that bound a span: "between 2005 and 2014", « entre 2005 et 2014 », "from 2005 to 2014", "2005-2014"
_SPAN = re.compile(
    rf"\b(?:(?:between|from|entre|de|du)\s+(?:(?:the\s+)?years?\s+|(?:les\s+)?ann[ée]es?\s+|l'ann[ée]e\s+)?"
    rf"(?P<a>{_YEAR4})\s+(?:and|to|through|et|à|a|au)\s+(?:l'ann[ée]e\s+)?(?P<b>{_YEAR4})"
    rf"|(?P<c>{_YEAR4})\s?[-\u2013]\s?(?P<d>{_YEAR4}))\b",
    re.IGNORECASE,
)


def year_spans(text: str) -> list[tuple[int, int]]:
    """The spans of years `text` names ("between 2005 and 2014": (2005, 2014)), first year before the last."""
    out = []
    for m in _SPAN.finditer(text):
        a, b = int(m.group("a") or m.group("c")), int(m.group("b") or m.group("d"))
        if a < b:
            out.append((a, b))
    return out


def period_key(text: str) -> str | None:
    """The key of `text` when the whole of it (but punctuation and spaces) is one period; else None."""
    found = find_periods(text)
    if len(found) != 1:
        return None
    period = found[0]
    rest = text[: period.start] + text[period.end :]
    return period.key if not re.search(r"\w", rest) else None


def same_period(a: str, b: str) -> bool:
    """Two keys name the same period: equal, or one is a part without a year ("Q4") and the other
    that part of some year ("2023-Q4")."""
    if a == b:
        return True
    part_a, part_b = a.rpartition("-")[2], b.rpartition("-")[2]
    return ("-" not in a or "-" not in b) and part_a == part_b and not part_a.isdigit()


def surface_forms(key: str) -> tuple[str, ...]:
    """How documents write the period of `key` (English, then French), most specific first; a whole
    year ends with the bare year ("2023"), which every other form of it contains but the split fiscal
    year that ends in it ("2022-23")."""
    year_text, _, part = key.partition("-")
    if not year_text.isdigit():  # "Q4", "H1": a part without a year
        part, year_text = year_text, ""
    if not part:
        yy = year_text[2:]
        return (
            f"fiscal {year_text}",
            f"fiscal year {year_text}",
            f"FY{year_text}",
            f"FY{yy}",
            f"FY {year_text}",
            f"exercice {year_text}",
            f"{int(year_text) - 1}-{yy}",  # the fiscal year that ends in it, split: 2002-03
            year_text,
        )
    n = int(part[1])
    yy = year_text[2:]
    if part[0] == "Q":
        forms = [
            f"{_ORDINAL_EN[n]} quarter",
            f"Q{n}",
            f"quarter {n}",
            f"{_ORDINAL_FR[n]} trimestre",
            f"{n}e trimestre",
            f"T{n}",
        ]
        dated = [f"Q{n} {year_text}", f"{n}Q{yy}", f"Q{n} FY{yy}", f"T{n} {year_text}"] if year_text else []
    else:
        forms = [f"{_ORDINAL_EN[n]} half", f"H{n}", f"{_ORDINAL_FR[n]} semestre", f"S{n}"]
        dated = [f"H{n} {year_text}", f"{n}H{yy}", f"S{n} {year_text}"] if year_text else []
    return tuple(dated + forms)
