"""BM25 over the children, analysed in the question's language, with the thesaurus's extra terms."""

from __future__ import annotations

from rag_core.retrieval.base import ChannelQuery, FullTextChannel, Group, Role, Unit
from rag_core.store import FullText


class LexicalChannel(FullTextChannel):
    name = "lexical"
    unit: Unit = "children"
    group: Group = "question"
    weight_setting = None  # the reference: 1.0
    role: Role = "lexical"
    passage_priority = 0
    abbreviation = "L"
    description = "lexical"

    def request(self, query: ChannelQuery) -> FullText:
        return FullText("children", query.query, query.language, query.candidate_k, query.extra_terms)


CHANNEL = LexicalChannel()
