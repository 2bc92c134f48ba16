"""An answer: its paragraphs, the sources they cite, the numbers traced in them and the marks of the
guard-rail checks (docs/method.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from rag_core.models.documents import Frozen, HighlightBox, Language, TableCell

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
                key=f"mark.support.{judged}",
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


class ReadingSummary(Frozen):
    """What the reader did for this answer (`rag_core.reading`)."""

    backend: str = Field(description="embedded or endpoint")
    model: str = ""
    judged: int = Field(0, description="Candidate passages judged")
    best: float = Field(0.0, description="The best judged probability that a passage states the answer")
    threshold: float = Field(0.0, description="Under it, no passage answers: the question is refused")
    chosen: str = Field("", description="The passage judged to answer, which the answer leads with")
    short_answer: str = Field("", description="The span copied from it as the answer's first line, if any")
    elapsed_s: float = 0.0


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
    tokens_estimated: bool = Field(
        False, description="The tokens are the local tokenizer's estimate: the endpoint reported no usage"
    )
    fallback: str = Field(
        "", description="Why the model's answer could not be used (extractive fallback); empty: no model failed"
    )
    fallback_reply: str = Field("", description="The model's raw reply that could not be used (its first 2,000 chars)")
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
    reading: ReadingSummary | None = Field(None, description="The reader's judgement (None: no reader ran)")
    marks: list[Mark] = Field(
        default_factory=list,
        description="Marks on the whole answer: a check skipped, "
        "with the reason (paragraph marks are on the paragraphs)",
    )
