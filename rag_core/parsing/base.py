"""What every parser returns, the `Parser` protocol, and small shared helpers.

Nothing here imports PyMuPDF or Docling's converters: only docling-core's document model,
which is the exchange format between parsing and chunking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from docling_core.types.doc import DoclingDocument

from rag_core.config import Settings
from rag_core.library import package_versions

Progress = Callable[[int, int], None]

# Bump when the conversion code changes what it produces (part of the parse signature).
PARSER_CODE_VERSION = "11"  # 2: whole-word table cells, tables from pictures, text clean-up, captions;
# 3: text inside pictures, spreads, right-to-left lines, decoration strips;
# 4: headings from the outline and labelled numbers, metadata titles;
# 5: watermarks left out (and the picture boxes they stretched cut back), metadata author and date
# 6: a large chapter number joined to its heading, a running header as the title
# 7: a heading wrapped over two layout boxes joined into one; a lower-case line in the body size is text
# 8: a displayed equation taken for a heading (unnumbered, no outline entry) is text
# 9: text a tagged PDF gives as the replacement of images of its lines (ActualText), not pictures
# 10: a table of words throughout has one header row (its next rows of words are data, not header)
# 11: labelled lines no layout block holds and topic lines above labelled units are headings; sentence
#     pieces and bylines are not; R's line of column types is no row of a table image

_LIBRARIES = ("pymupdf", "pymupdf4llm", "docling", "docling-core")


@dataclass(frozen=True)
class ParsedDocument:
    """A parsed file: the DoclingDocument plus what the manifest needs to record."""

    document: DoclingDocument
    parser: str  # "pymupdf" | "docling" | "docling-simple"
    options: dict
    versions: dict[str, str]
    pages: int
    warnings: list[str] = field(default_factory=list)
    title: str = ""
    author: str = ""  # from the file's metadata, when meaningful (`metadata.document_author`)
    date: str = ""  # YYYY-MM-DD, from the file's metadata (`metadata.document_date`)


class Parser(Protocol):
    """One backend: turns a validated file into a `ParsedDocument`."""

    name: str

    def parse(
        self,
        path: Path,
        settings: Settings,
        artifacts_dir: Path,
        progress: Progress | None = None,
        file_name: str | None = None,
    ) -> ParsedDocument: ...


def library_versions() -> dict[str, str]:
    """Installed versions of the parsing libraries (recorded in the manifest)."""
    return package_versions(_LIBRARIES)


_JUNK_TITLES = ("microsoft word", "untitled", "document", "powerpoint", "my title", "title")


def clean_metadata_title(title: str | None) -> str:
    """A PDF metadata title worth showing, or '' ("Microsoft Word - x.docx" is not a title)."""
    text = " ".join((title or "").split())
    lowered = text.lower()
    if len(text) < 4 or lowered.startswith(_JUNK_TITLES) or lowered.endswith((".doc", ".docx", ".pdf", ".tex", ".dvi")):
        return ""
    return text
