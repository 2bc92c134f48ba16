"""The response models of the OpenAPI document, so that a client generated from `/openapi.json`
reads typed answers: the error shape of every refusal, the citation links, and the bodies of the
main routes (collections, documents, search, ask, jobs, chat completions). The routes return the
same data as plain JSON; these models describe it, they do not re-validate it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rag_core.models import Answer, DocumentRecord, HighlightBox, RetrievedParent, SearchResult, Source


class ErrorDetail(BaseModel):
    message: str = Field(description="What went wrong, for a person to read")
    type: str = Field(description="invalid_request_error, authentication_error, permission_denied, not_found, ...")
    status: int = Field(description="The HTTP status, repeated")


class ErrorBody(BaseModel):
    """Every error of the API: `{"error": {"message", "type", "status"}}` (the shape OpenAI clients read)."""

    error: ErrorDetail


class CitationLinks(BaseModel):
    image: str = Field(description="GET it with your token: the cited page as a PNG, the quote highlighted")
    pdf: str = Field(description="GET it with your token: the cited pages alone, as a PDF")


class LinkedSource(Source):
    links: CitationLinks


class AskResponse(Answer):
    """The app's answer object; each cited source with its links."""

    sources: list[LinkedSource] = Field(default_factory=list)  # type: ignore[assignment]


class SearchHit(RetrievedParent):
    links: CitationLinks


class SearchResponse(SearchResult):
    """Ranked passages, each with its channels' ranks and its links."""

    parents: list[SearchHit]  # type: ignore[assignment]


class Collections(BaseModel):
    collections: list[str]


class Documents(BaseModel):
    documents: list[DocumentRecord]


class Job(BaseModel):
    id: str
    file_name: str
    collection: str
    state: str
    stage: str
    done: int
    total: int
    message: str
    doc_id: str
    progress: float = Field(description="0 to 1")


class Jobs(BaseModel):
    jobs: list[Job]


class Reported(BaseModel):
    reported: dict[str, Any]


class ChatCitation(BaseModel):
    model_config = ConfigDict(extra="allow")
    number: int
    source_id: str
    doc_id: str
    file_name: str
    collection: str
    pages: list[int]
    label: str
    quote: str
    boxes: list[HighlightBox]
    links: CitationLinks


class ChatMessage(BaseModel):
    role: str
    content: str


class ChatChoice(BaseModel):
    index: int
    message: ChatMessage
    finish_reason: str | None = None
    logprobs: Any = None


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """An OpenAI chat completion, with the extension fields `citations`, `answer_mode` and `standalone_question`."""

    id: str
    object: str
    created: int
    model: str
    choices: list[ChatChoice]
    usage: Usage
    citations: list[ChatCitation]
    answer_mode: str
    standalone_question: str


def ok(model: type[BaseModel], description: str = "Successful Response") -> dict[int | str, dict[str, Any]]:
    """The `responses` of a route that returns plain JSON described by `model`."""
    return {200: {"model": model, "description": description}}
