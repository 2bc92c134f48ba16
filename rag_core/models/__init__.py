"""Types passed between stages: frozen pydantic models, no behaviour beyond small helpers.

Coordinates: a `HighlightBox` is always stored with a TOP-LEFT origin in PDF points
(what browser viewers draw); the conversion from Docling's bottom-left boxes happens
once, in `geometry.to_top_left`.

`documents.py`: a document parsed, chunked and recorded, and the ingestion's progress; `search.py`: a search's
result; `answers.py`: an answer, its sources, numbers and marks. Import them from here.
"""

from rag_core.models.answers import (
    Answer,
    Computation,
    ComputationInput,
    Mark,
    MarkLevel,
    NumberLocation,
    NumberStatus,
    NumberTrace,
    Operation,
    Paragraph,
    ReadingSummary,
    Source,
    SourceKind,
    SubQuestion,
    SupportStatus,
    TableExcerpt,
    legacy_marks,
)
from rag_core.models.documents import (
    STAGES,
    Child,
    Chunked,
    DocumentRecord,
    Frozen,
    HighlightBox,
    IngestResult,
    Item,
    ItemKind,
    Language,
    Parent,
    ProgressEvent,
    Stage,
    TableCell,
)
from rag_core.models.search import (
    AnnouncedList,
    ChannelHit,
    PageChannelHit,
    RetrievedParent,
    SearchResult,
    TranslatedTerms,
)

__all__ = [
    "AnnouncedList",
    "Answer",
    "ChannelHit",
    "Child",
    "Chunked",
    "Computation",
    "ComputationInput",
    "DocumentRecord",
    "Frozen",
    "HighlightBox",
    "IngestResult",
    "Item",
    "ItemKind",
    "Language",
    "Mark",
    "MarkLevel",
    "NumberLocation",
    "NumberStatus",
    "NumberTrace",
    "Operation",
    "PageChannelHit",
    "ReadingSummary",
    "Paragraph",
    "Parent",
    "ProgressEvent",
    "RetrievedParent",
    "SearchResult",
    "STAGES",
    "Source",
    "SourceKind",
    "Stage",
    "SubQuestion",
    "SupportStatus",
    "TableCell",
    "TableExcerpt",
    "TranslatedTerms",
    "legacy_marks",
]
