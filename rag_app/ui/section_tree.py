"""Inspect's section tree: one row per heading of the document, in reading order, with its
depth, its first page (a click opens it) and a warning when the section looks mis-detected
(no text under it, or a single short line: a stray line taken for a heading); and the one-line
label of each child in Inspect's list of children."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.models import Child, Parent

CHILD_LABEL_CHARS = 60  # of a child's text, in its label
SHORT_SECTION_CHARS = 80  # a section whose whole text is one line this short looks mis-detected


@dataclass(frozen=True)
class SectionRow:
    path: tuple[str, ...]
    page: int | None
    suspect: bool

    @property
    def title(self) -> str:
        return self.path[-1]

    @property
    def depth(self) -> int:
        return len(self.path)


def section_rows(parents: Sequence[Parent]) -> list[SectionRow]:
    """Every heading path once, its first page, and whether its own text is missing or one short line."""
    texts: dict[tuple[str, ...], list[str]] = {}
    pages: dict[tuple[str, ...], int | None] = {}
    order: list[tuple[str, ...]] = []
    for parent in parents:
        path = tuple(parent.heading_path)
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            if prefix not in pages:
                order.append(prefix)
                pages[prefix] = parent.pages[0] if parent.pages else None
                texts[prefix] = []
        if path:
            texts[path].append(_own_text(parent.text, path[-1]))
    rows = []
    for path in order:
        own = "\n".join(t for t in texts[path] if t).strip()
        has_children = any(other[: len(path)] == path and len(other) > len(path) for other in order)
        suspect = not has_children and (not own or ("\n" not in own and len(own) < SHORT_SECTION_CHARS))
        rows.append(SectionRow(path, pages[path], suspect))
    return rows


def _own_text(text: str, heading: str) -> str:
    """A parent's text without its heading line (the chunker may repeat it first)."""
    stripped = text.strip()
    return stripped[len(heading) :].strip() if stripped.startswith(heading) else stripped


def child_label(child: Child) -> str:
    """'#3 · p. 1,2 · its first words': one line. The list shows its choice in a text input,
    which drops line breaks, so the text's lines are joined by a space here (not glued)."""
    words = " ".join(child.text.split())
    pages = ",".join(map(str, child.pages))
    return f"#{child.index} · p. {pages} · {words[:CHILD_LABEL_CHARS]}"
