"""Types passed between stages: frozen pydantic models, no behaviour beyond small helpers.

Coordinates: a `HighlightBox` is always stored with a TOP-LEFT origin in PDF points
(what browser viewers draw); the conversion from Docling's bottom-left boxes happens
once, in `geometry.to_top_left`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


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
        and distinct, else the column numbers ("1", "2", ...) above all its rows."""
        n_rows = max([self.n_rows] + [c.row + 1 for c in self.cells])
        n_cols = max([self.n_cols] + [c.col + 1 for c in self.cells])
        grid = [["" for _ in range(n_cols)] for _ in range(n_rows)]
        for cell in self.cells:
            grid[cell.row][cell.col] = cell.text
        if n_rows > 1 and all(grid[0]) and len(set(grid[0])) == n_cols:
            return grid
        return [[str(i + 1) for i in range(n_cols)], *grid]


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
        return " › ".join(self.heading_path) if self.heading_path else "(no heading)"


class Chunked(Frozen):
    parents: list[Parent]
    children: list[Child]


class DocumentRecord(Frozen):
    doc_id: str = Field(description="SHA-256 of the file bytes")
    file_name: str
    title: str
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


class ChannelHit(Frozen):
    """A parent's place in a channel that ranks children: its rank there and its best child."""

    rank: int = Field(description="Rank of the parent's best child in the channel, reduced to parents (from 1)")
    score: float = Field(description="That child's score, on the channel's own scale (BM25, cosine)")
    child_id: str


class PageChannelHit(Frozen):
    """A parent's place in a channel that ranks whole pages: the rank of its best page."""

    rank: int = Field(description="Rank of the parent's best page in the page channel (ties share it)")
    score: float
    page: int


class RetrievedParent(Frozen):
    parent: Parent
    document: DocumentRecord
    children: list[Child] = Field(description="All children of the parent, in order")
    best_child: Child
    fused_rank: int
    fused_score: float
    ranks: dict[str, ChannelHit | PageChannelHit] = Field(
        default_factory=dict,
        description="The parent's place in each search channel that found it, by channel "
        "name (`rag_core.retrieval.channels()`); a channel that did not find it is absent",
    )
    placed: bool = Field(False, description="The other language's best passage, placed at its rank (not by RRF)")
    rerank_score: float | None = None

    def rank_in(self, channel: str) -> int | None:
        """The parent's rank in `channel`, None when that channel did not find it."""
        hit = self.ranks.get(channel)
        return None if hit is None else hit.rank


class TranslatedTerms(Frozen):
    """The question's terms as searched in the documents of another language (glossary, thesaurus)."""

    language: Language = Field(description="Language of the documents searched with these terms")
    terms: list[str] = Field(default_factory=list, description="'question term → its forms in that language'")
    kept: list[str] = Field(default_factory=list, description="Content words searched as written (names, symbols)")
    forms: list[str] = Field(default_factory=list, description="Every translated form searched")
    only_other: list[str] = Field(
        default_factory=list,
        description="Question terms that no document of the "
        "question's language holds while one of this language holds their translation",
    )


class SearchResult(Frozen):
    query: str
    parents: list[RetrievedParent]
    expanded_terms: list[str] = Field(default_factory=list)
    language: Language | None = Field(None, description="Language of the question (detected or given)")
    translated: TranslatedTerms | None = None
    channels: list[str] = Field(
        default_factory=list,
        description="The search channels registered when it was "
        "ranked, in their order (`rag_core.retrieval.channels()`): the keys of `ranks`",
    )
    elapsed_s: float = 0.0


SourceKind = Literal["parent", "table", "picture", "formula"]


class Source(Frozen):
    """A citable source: a context parent or an item inside it. Names come from the document."""

    id: str = Field(description="Stable id: document id + item reference")
    kind: SourceKind
    doc_id: str
    file_name: str
    title: str
    language: Language | None = Field(None, description="Language of the document")
    section: str
    pages: list[int]
    label: str = Field(description="Readable card text: document · section · p. N")
    collection: str = ""
    text: str
    caption: str = ""
    parent_id: str
    boxes: list[HighlightBox] = Field(default_factory=list)
    parent_boxes: list[HighlightBox] = Field(default_factory=list)
    child_spans: list[tuple[int, int]] = Field(
        default_factory=list, description="[start, end) of each child of a parent source in `text`, in order"
    )


SupportStatus = Literal["supported", "partially_supported"]
Operation = Literal["sum", "difference", "product", "ratio", "growth", "development_factor", "average"]
NumberStatus = Literal["quoted", "computed", "mismatch", "unsupported"]


class ComputationInput(Frozen):
    value: str = Field(description="A number as written in the cited source")
    source_id: str = Field(description="The source it is quoted from (registry id or prompt alias)")


class Computation(Frozen):
    """A computation the model declares; the code recomputes it (`answering.number_trace`)."""

    operation: Operation
    inputs: list[ComputationInput]
    result: str = Field(description="The result as written in the paragraph")


class NumberLocation(Frozen):
    """Where a quoted number was found: a table cell (its own box) or a sentence (its passage's boxes)."""

    source_id: str
    kind: Literal["cell", "sentence"]
    text: str = Field(description="The cell text or the sentence")
    row: int | None = None
    col: int | None = None
    boxes: list[HighlightBox] = Field(default_factory=list)


class NumberTrace(Frozen):
    """One number of a paragraph and what supports it (docs/method.md)."""

    text: str = Field(description="The number as written in the paragraph")
    start: int = Field(description="Offset of the number in the paragraph text")
    end: int
    value: float
    status: NumberStatus
    reason: str = ""
    location: NumberLocation | None = None
    stated: bool = Field(
        True,
        description="False when the number comes from quoted code or console output: traced, but not offered as a fact",
    )


class TableExcerpt(Frozen):
    """Rows of a cited table that the question names, as the answer shows them (cells keep their boxes)."""

    source_id: str = Field(description="The table's source id")
    caption: str = ""
    header: list[TableCell] = Field(default_factory=list)
    rows: list[list[TableCell]] = Field(default_factory=list)
    matched: list[tuple[int, int]] = Field(
        default_factory=list, description="(row, col) of the cells the question named"
    )


MarkLevel = Literal["ok", "info", "caution", "alert"]


class Mark(Frozen):
    """What a guard-rail check says of a paragraph or of an answer (`answering.guardrails`).

    The page shows every mark the same way: `key` names its message in `ui/strings` (filled with
    `params`), `level` its colour, `detail` its help text. Adding a check adds marks, no field."""

    name: str = Field(description="The check that made it: 'quote', 'support', 'collections', ...")
    level: MarkLevel
    key: str = Field(description="Message key, e.g. 'mark.support.not_supported'")
    params: dict[str, str] = Field(default_factory=dict, description="Values of the message's {placeholders}")
    detail: str = Field("", description="Longer text from the check (a verdict's reason), shown as help")
    explains: bool = Field(False, description="The paragraph's note explains this mark: shown under it")


def legacy_marks(data: dict[str, Any]) -> list[Mark]:
    """The marks of a paragraph stored before marks existed (or built with only the typed fields):
    the same marks the checks give (`answering.guardrails`; a unit test keeps the two in step)."""
    marks = []
    if data.get("status") == "partially_supported":
        marks.append(Mark(name="quote", level="caution", key="mark.quote.partial", explains=True))
    judged = data.get("judged")
    if judged:
        level = {"supported": "ok", "partly": "caution"}.get(judged, "alert")
        marks.append(
            Mark(
                name="support",
                level=level,
                key=f"mark.support.{judged}",  # type: ignore[arg-type]
                detail=str(data.get("judged_reason") or ""),
                explains=judged == "not_supported",
            )
        )
    names = list(data.get("collections") or [])
    if len(names) > 1:
        marks.append(
            Mark(name="collections", level="info", key="mark.collections.several", params={"names": ", ".join(names)})
        )
    return marks


class Paragraph(Frozen):
    text: str
    source_ids: list[str]
    quote: str = ""
    status: SupportStatus = "supported"
    note: str = ""
    computations: list[Computation] = Field(default_factory=list)
    numbers: list[NumberTrace] = Field(default_factory=list)
    sub_question: str = Field("", description="The sub-question this paragraph answers (comparisons)")
    language: Language | None = Field(
        None, description="Language of the quoted passage when it is not the question's (shown as written, labelled)"
    )
    table: TableExcerpt | None = Field(None, description="The table rows this paragraph shows (extractive answers)")
    judged: Literal["supported", "partly", "not_supported"] | None = Field(
        None, description="The optional second pass's verdict on this paragraph (None: not judged)"
    )
    judged_reason: str = ""
    collections: list[str] = Field(
        default_factory=list, description="Collections of the cited sources, when they are more than one"
    )
    marks: list[Mark] = Field(default_factory=list, description="What the guard-rail checks say of it, in order")

    @model_validator(mode="before")
    @classmethod
    def _marks_of_old_answers(cls, data: Any) -> Any:
        """A paragraph stored (or built) without marks gets those its typed fields imply."""
        if isinstance(data, dict) and "marks" not in data:
            return {**data, "marks": legacy_marks(data)}
        return data


class SubQuestion(Frozen):
    """One searched part of a split question, with its share of the context budget."""

    question: str
    parents: int = Field(description="Its share of the context budget")
    parent_ids: list[str] = Field(default_factory=list)
    found: bool = Field(True, description="False: no source answers it (reported as such)")
    reformulated: str = Field("", description="The reformulation tried when the reranker rejected everything")


class Answer(Frozen):
    question: str
    language: Language | None = Field(None, description="Language of the question")
    mode: Literal["llm", "extractive", "greeting", "refused"]
    model: str = ""
    paragraphs: list[Paragraph] = Field(default_factory=list)
    missing_information: str = ""
    sources: list[Source] = Field(default_factory=list)
    uncited: list[Source] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list, description="Why paragraphs were rejected")
    warnings: list[str] = Field(default_factory=list)
    parent_ids: list[str] = Field(default_factory=list)
    elapsed_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    unsupported_numbers: int = Field(
        0, description="Numbers of the answer that no source or checked computation supports"
    )
    mismatched_numbers: int = Field(0, description="Declared computations whose result the code could not reproduce")
    standalone_question: str = Field("", description="The follow-up rewritten as a standalone question, if it was")
    budget: int = Field(0, description="Parents given as context (0: not routed)")
    budget_kind: str = Field("", description="definition, explanation or comparison")
    budget_reason: str = ""
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    expanded_terms: list[str] = Field(default_factory=list)
    missing_terms: list[str] = Field(
        default_factory=list, description="Terms of the question that no accessible document mentions (refusal)"
    )
    terms_not_in_passages: list[str] = Field(
        default_factory=list, description="Terms the library mentions but the passages used do not"
    )
    retried_terms: list[str] = Field(
        default_factory=list, description="Terms the search was retried with, required in the passages"
    )
    check_prompt_tokens: int = Field(0, description="Tokens of the support check's prompt (second pass)")
    check_completion_tokens: int = 0
    check_elapsed_s: float = Field(0.0, description="Seconds the support check took")
    first_paragraph_s: float = Field(
        0.0,
        description="Seconds from the question to the first completed, checked "
        "paragraph of the model's answer (0: no model answer)",
    )
    dialect: str = Field(
        "", description="Structured output the endpoint was asked for: json_schema, json_object, tools or text"
    )
    marks: list[Mark] = Field(
        default_factory=list,
        description="Marks on the whole answer: a check skipped, "
        "with the reason (paragraph marks are on the paragraphs)",
    )


Stage = Literal["parse", "chunk", "embed", "write"]


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
