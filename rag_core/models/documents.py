"""A document as the stages build it: parsed (boxes, tables, pictures), chunked into parents and
children, recorded in the library, and the ingestion's progress and result. `Frozen` is the base of
every model of `rag_core.models`; its docstring says how boxes are stored (top-left origin).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

NO_HEADING = "(no heading)"  # the section of a passage before any heading (the app translates it)


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


Language = Literal["fr", "en"]
ItemKind = Literal["table", "picture", "formula"]


class HighlightBox(Frozen):
    """A rectangle on one page, PDF points, origin at the top-left corner of the page."""

    page: int = Field(description="1-based physical page number")
    x0: float
    y0: float
    x1: float
    y1: float
    origin: Literal["TOPLEFT"] = "TOPLEFT"
    start: int | None = Field(
        None,
        description="Start of the text this box holds, in its owner's text "
        "(the child's for `Child.boxes`, the parent's for a parent `Source`); None if unknown",
    )
    end: int | None = Field(None, description="End (exclusive) of that text; None if unknown")


class TableCell(Frozen):
    row: int
    col: int
    text: str
    box: HighlightBox | None = None


class Item(Frozen):
    """A table, picture or formula: separately citable inside its parent."""

    ref: str = Field(description="DoclingDocument self_ref, e.g. '#/tables/0'")
    kind: ItemKind
    caption: str = ""
    page: int
    boxes: list[HighlightBox]
    text: str = Field("", description="Markdown for a table, text layer for a formula, caption for a picture")
    cells: list[TableCell] = Field(default_factory=list)
    n_rows: int = 0
    n_cols: int = 0
    image_path: str | None = Field(None, description="Figure crop, relative to the document folder")
    source: str = Field("", description="Tables: where the cells were read, 'text layer' or 'OCR of a picture'")
    inner_text: str = Field("", description="Pictures: the text-layer text inside the picture, one line per text item")

    def grid(self) -> list[list[str]]:
        """A table's cell texts, header row first: its own first row when every cell of it is filled
        and distinct, or when only its corner is empty above a column of row labels (a triangle's
        development years above its accident years), else the column numbers ("1", "2", ...) above
        all its rows."""
        n_rows = max([self.n_rows] + [c.row + 1 for c in self.cells])
        n_cols = max([self.n_cols] + [c.col + 1 for c in self.cells])
        grid = [["" for _ in range(n_cols)] for _ in range(n_rows)]
        for cell in self.cells:
            grid[cell.row][cell.col] = cell.text
        if n_rows > 1 and all(grid[0]) and len(set(grid[0])) == n_cols:
            return grid
        if n_rows > 1 and n_cols > 2 and _corner_header(grid):
            return grid
        return [[str(i + 1) for i in range(n_cols)], *grid]


def _corner_header(grid: list[list[str]]) -> bool:
    """A first row with an empty corner, its other cells filled and distinct, above rows that
    each have a label in the first column."""
    head = grid[0][1:]
    return not grid[0][0] and all(head) and len(set(head)) == len(head) and all(row[0] for row in grid[1:])


class Child(Frozen):
    """The indexed unit: a piece of a parent, at most `max_tokens` tokens."""

    id: str
    parent_id: str
    doc_id: str
    index: int = Field(description="Position of the child in the document")
    text: str = Field(description="Raw text, as displayed: parent.text[start:end] without trailing separator")
    context_text: str = Field(description="Heading path and captions followed by the text: what is indexed")
    start: int
    end: int
    tokens: int
    pages: list[int]
    boxes: list[HighlightBox]
    item_refs: list[str] = Field(default_factory=list)


class Parent(Frozen):
    """The unit given to the model: one section (or part of it)."""

    id: str
    doc_id: str
    index: int
    heading_path: list[str]
    text: str
    tokens: int
    pages: list[int]
    child_ids: list[str]
    items: list[Item] = Field(default_factory=list)

    @property
    def section(self) -> str:
        return " › ".join(self.heading_path) if self.heading_path else NO_HEADING


class Chunked(Frozen):
    parents: list[Parent]
    children: list[Child]


class DocumentRecord(Frozen):
    doc_id: str = Field(description="SHA-256 of the file bytes")
    file_name: str
    title: str
    author: str = Field("", description="from the file's metadata when the document prints it; '' otherwise")
    date: str = Field("", description="the file's creation date (YYYY-MM-DD) from its metadata; '' when unknown")
    collection: str
    language: Language
    pages: int
    parents: int
    children: int
    tables: int
    parser: str
    embedder: str
    ingested_at: str
    elapsed_s: float
    status: Literal["ready"] = "ready"
    warnings: list[str] = Field(default_factory=list)


Stage = Literal["parse", "chunk", "embed", "write"]
# The ingestion's stages in the order they run: the one list the manifest, the worker and the job
# progress read (`rag_core.ingestion` runs them).
STAGES: tuple[Stage, ...] = get_args(Stage)


class ProgressEvent(Frozen):
    file_name: str
    stage: Stage
    done: int
    total: int
    message: str = ""


class IngestResult(Frozen):
    file_name: str
    status: Literal["ingested", "already_present", "refused"]
    message: str
    doc_id: str | None = None
    record: DocumentRecord | None = None
    stage_seconds: dict[str, float] = Field(default_factory=dict)
