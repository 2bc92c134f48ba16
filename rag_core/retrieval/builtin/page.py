"""BM25 over whole pages: each parent takes the rank of the best page it has text on."""

from __future__ import annotations

from rag_core.retrieval.base import ChannelQuery, FullTextChannel, Group, Unit
from rag_core.store import FullText


class PageChannel(FullTextChannel):
    name = "page"
    unit: Unit = "pages"
    group: Group = "question"
    weight_setting = "page_weight"
    report_name = "pages"  # the name of earlier evaluation reports
    passage_priority = 0
    abbreviation = "P"
    description = "pages"

    def applies(self, query: ChannelQuery) -> bool:
        return query.pages

    def request(self, query: ChannelQuery) -> FullText:
        return FullText("pages", query.query, query.language, query.candidate_k, query.extra_terms)


CHANNEL = PageChannel()
