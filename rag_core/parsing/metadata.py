"""The author and the date a library shows for a PDF, from its metadata, when they mean something.

- The author: the metadata's /Author cleaned (a label such as "Etudiants:" and empty names of a
  list left out), kept only when it is not a placeholder ("Author", "user", "admin"), not a
  tool's name ("Microsoft Word", "LaTeX") and most of its name words are printed on the first
  pages. The last rule leaves out the person who saved the file (an agency's clerk, a template's
  author, a login such as "esmith") and keeps the names the document itself gives.
- The date: the metadata's creation date (else its modification date) as YYYY-MM-DD, when it
  reads as a date between MIN_YEAR and next year.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

MIN_YEAR = 1980
MAX_AUTHOR_CHARS = 200
_PLACEHOLDERS = {
    "author",
    "auteur",
    "user",
    "admin",
    "administrator",
    "administrateur",
    "unknown",
    "owner",
    "anonymous",
}
_TOOLS = re.compile(
    r"microsoft|\bword\b|office|acrobat|adobe|distiller|pdftex|latex|\btex\b|writer|libreoffice|openoffice|"
    r"pscript|ghostscript|quartz|pdf|scanner|canon|xerox|ricoh|hp\b",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"[^\W\d_]{2,}")
_DATE = re.compile(r"^(?:D:)?(\d{4})(\d{2})?(\d{2})?")
WORDS_PRINTED = 0.6


def document_author(author: str | None, first_pages_text: str) -> str:
    """The metadata author worth showing, or '' (see the module's docstring)."""
    names = [" ".join(part.split()) for part in re.split(r"[,;]|\band\b|\bet\b", author or "")]
    names = [n for n in names if n and not n.endswith(":")]
    text = ", ".join(names)[:MAX_AUTHOR_CHARS]
    if not text or text.lower() in _PLACEHOLDERS or _TOOLS.search(text):
        return ""
    words = [w.lower() for w in _NAME_WORD.findall(text)]
    printed = {w.lower() for w in _NAME_WORD.findall(first_pages_text)}
    if not words or sum(w in printed for w in words) < WORDS_PRINTED * len(words):
        return ""
    return text


def document_date(metadata: dict | None) -> str:
    """The creation (else modification) date as YYYY-MM-DD (YYYY-MM or YYYY when only those are
    given), or '' when neither reads as a plausible date."""
    for key in ("creationDate", "modDate"):
        found = _DATE.match(str((metadata or {}).get(key) or "").strip())
        if not found:
            continue
        year, month, day = found.group(1), found.group(2), found.group(3)
        if not MIN_YEAR <= int(year) <= datetime.now(UTC).year + 1:
            continue
        if month and not 1 <= int(month) <= 12:
            continue
        if day and not 1 <= int(day) <= 31:
            day = None
        return "-".join(part for part in (year, month, day if month else None) if part)
    return ""
