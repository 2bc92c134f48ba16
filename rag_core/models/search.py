"""A search's result: the parents found, each with its place in every channel that found it."""

from __future__ import annotations

from pydantic import Field

from rag_core.models.documents import Child, DocumentRecord, Frozen, Language, Parent


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
    named: bool = Field(
        False, description='A numbered part the question names ("Guideline 37C"), placed first (not by RRF)'
    )
    rerank_score: float | None = None

    def rank_in(self, channel: str) -> int | None:
        """The parent's rank in `channel`, None when that channel did not find it."""
        hit = self.ranks.get(channel)
        return None if hit is None else hit.rank


class AnnouncedList(Frozen):
    """The items of a list that a retrieved parent announces in its last sentence ("… across 4 areas:")
    while the items themselves open the next parents of the document (each under a heading of its own)."""

    parent_id: str = Field(description="The retrieved parent whose text ends with the announcing sentence")
    sentence: str = Field(description="That sentence, as written")
    items: list[RetrievedParent] = Field(description="The parents that hold the items, in document order")


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
    channel_labels: dict[str, str] = Field(
        default_factory=dict,
        description="The key of the UI string that names each channel (its `label_key`), by channel name",
    )
    announced: list[AnnouncedList] = Field(
        default_factory=list,
        description="Lists that a context parent announces at its end and whose items open the parents after it",
    )
    elapsed_s: float = 0.0
