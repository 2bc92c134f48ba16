"""Messages for the user that rag_core raises or stores, each under a key with its English text.

The English text is what the command line prints and what a stored record (a job's result) keeps;
the app shows each key in the page's language (`ui/strings/errors.py` holds the French). `message`
formats a key; `recognise` finds the key and values back from a stored English text, so that a
result written by a worker (a job row holds text only) is shown translated too. A message without a
key is shown as written.
"""

from __future__ import annotations

import re
import string
from functools import cache

from rag_core.error_messages import ERRORS

SUPPORTED = "PDF, Word (.docx), PowerPoint (.pptx), HTML or Markdown"

ENGLISH: dict[str, str] = {
    "file.missing": "The file {name} cannot be found.",
    "file.empty": "The file {name} is empty (0 bytes); upload it again.",
    "file.too_large": "The file {name} is {size}; files above {limit} are refused (setting RAG_PARSING__MAX_FILE_MB). "
    "Compress or split it, or ask the administrator to raise the limit.",
    "file.pdf_is_html": "This file is named .pdf but is a web page (HTML), usually an error or login page saved "
    "instead of the document; download the PDF again.",
    "file.pdf_not_pdf": "This file is named .pdf but is not a PDF (it may be damaged or incomplete); download or "
    "export it again.",
    "file.html_unreadable": "This file is not a readable web page.",
    "file.md_not_utf8": "This Markdown file is not UTF-8 text; save it as UTF-8 and upload it again.",
    "file.md_binary": "This Markdown file contains binary data; it cannot be read.",
    "file.unsupported": "This file type cannot be read; upload a {supported} file.",
    "file.office_damaged": "This Office file is damaged or incomplete; save it again and upload it.",
    "file.excel": "Excel workbooks cannot be read; upload a {supported} file.",
    "file.archive": "This archive is not a Word or PowerPoint file; upload a {supported} file.",
    "file.pdf_damaged": "This PDF is damaged or incomplete and cannot be read; download or export it again.",
    "file.pdf_password": "This PDF is password-protected; remove the password and upload it again.",
    "file.pdf_no_page": "This PDF has no page; it may be damaged or incomplete.",
    "file.pdf_too_long": "This PDF has {pages} pages; documents above {limit} pages are refused "
    "(setting RAG_PARSING__MAX_PAGES). Split it and upload the parts, or ask the administrator to raise the limit.",
    "file.no_text": "No text could be read from this file (no text layer, and OCR found nothing). "
    "If it is a scan, check that it is legible and upload it again.",
    "file.no_passage": "Text was read from this file ({characters} characters), but none of it could be cut into "
    "passages to search. Nothing was stored; please report the file so that it can be looked at.",
    "ingest.done": "{verb}: {pages} pages, {parents} parents, {children} children, {seconds} s, parser {parser}.",
    "ingest.already_present": "Already in the library (collection '{collection}'); nothing to redo.",
    "ingest.internal": "This file could not be processed because of an internal error; it has been logged.",
}
ENGLISH.update(ERRORS)


def message(key: str, /, **values: object) -> str:
    """The English text of `key` with its values."""
    return ENGLISH[key].format(**values)


@cache
def _pattern(key: str) -> re.Pattern[str]:
    parts = []
    for literal, field, _, _ in string.Formatter().parse(ENGLISH[key]):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def recognise(text: str) -> tuple[str, dict[str, str]] | None:
    """The key and values of a stored English message, or None for a text written without a key."""
    for key in ENGLISH:
        found = _pattern(key).match(text)
        if found:
            return key, found.groupdict()
    return None
