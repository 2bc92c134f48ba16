"""Refuse bad input before any parser runs: empty, too large, wrong type, encrypted, damaged.

The type is decided by the file's content (magic bytes), not by its name; the name only
tells Markdown apart from other plain text. An HTML file named `.pdf` is refused (it is
almost always a saved error or login page instead of the PDF), with a message that says so.
Every refusal raises `InputError` with a message written for the user.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Literal

import pymupdf

from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.messages import SUPPORTED

Kind = Literal["pdf", "docx", "pptx", "html", "md"]

_MD_SUFFIXES = {".md", ".markdown"}
_HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml")
_SUPPORTED = SUPPORTED


def validate_file(path: Path, settings: Settings, file_name: str | None = None) -> Kind:
    """Return the kind of a file that can be parsed; raise `InputError` otherwise.

    `file_name` is the name the user gave (uploads are stored under another name).
    """
    path = Path(path)
    name = file_name or path.name
    if not path.is_file():
        raise InputError.of("file.missing", name=name)
    size = path.stat().st_size
    if size == 0:
        raise InputError.of("file.empty", name=name)
    limit_mb = settings.parsing.max_file_mb
    if size > limit_mb * 1024 * 1024:
        raise InputError.of("file.too_large", name=name, size=_mb(size / 1024 / 1024), limit=_mb(limit_mb))
    with path.open("rb") as fh:
        head = fh.read(4096)
    kind = detect_kind(head, Path(name).suffix.lower(), path)
    if kind == "pdf":
        check_pdf(path, settings, name)
    return kind


def _mb(value: float) -> str:
    """Megabytes as a person reads them: '250 MB', '1.5 MB', '0.001 MB' (never '0 MB')."""
    return f"{value:.0f} MB" if value >= 10 else f"{value:.3g} MB"


def detect_kind(head: bytes, suffix: str, path: Path) -> Kind:
    """The kind of a file from its first bytes (and, for plain text, its suffix)."""
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _office_kind(path, suffix)
    text_head = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    looks_html = text_head.startswith(_HTML_MARKERS) and (
        b"<html" in text_head or b"<body" in text_head or text_head.startswith(b"<!doctype html")
    )
    if suffix == ".pdf":
        if looks_html:
            raise InputError.of("file.pdf_is_html")
        raise InputError.of("file.pdf_not_pdf")
    if looks_html or suffix in _HTML_SUFFIXES:
        if b"\x00" in head:
            raise InputError.of("file.html_unreadable")
        return "html"
    if suffix in _MD_SUFFIXES:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as err:
            # a 4 KB cut may split a character: only refuse when the error is not at the very end
            if err.start < len(head) - 4:
                raise InputError.of("file.md_not_utf8") from None
        if b"\x00" in head:
            raise InputError.of("file.md_binary")
        return "md"
    raise InputError.of("file.unsupported", supported=_SUPPORTED)


def _office_kind(path: Path, suffix: str) -> Kind:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        raise InputError.of("file.office_damaged") from None
    if "word/document.xml" in names:
        return "docx"
    if "ppt/presentation.xml" in names:
        return "pptx"
    if "xl/workbook.xml" in names:
        raise InputError.of("file.excel", supported=_SUPPORTED)
    raise InputError.of("file.archive", supported=_SUPPORTED)


def check_pdf(path: Path, settings: Settings, name: str = "") -> int:
    """Open the PDF once to refuse damaged, encrypted, empty or too long ones; return its page count."""
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception:  # pymupdf raises FileDataError, RuntimeError... for unreadable files
        raise InputError.of("file.pdf_damaged") from None
    try:
        if doc.needs_pass or doc.is_encrypted:
            raise InputError.of("file.pdf_password")
        pages = doc.page_count
        if pages == 0:
            raise InputError.of("file.pdf_no_page")
        if pages > settings.parsing.max_pages:
            raise InputError.of("file.pdf_too_long", pages=pages, limit=settings.parsing.max_pages)
        if doc.is_repaired and not _pages_readable(doc):
            raise InputError.of("file.pdf_damaged")
        return pages
    finally:
        doc.close()


def _pages_readable(doc: pymupdf.Document) -> bool:
    """A repaired (truncated) PDF is kept when its first pages still load and draw."""
    try:
        for pno in range(min(doc.page_count, 3)):
            page = doc.load_page(pno)
            page.get_text("text")
        return True
    except Exception:
        return False
