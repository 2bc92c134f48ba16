"""BM25 over whole pages: each parent takes the rank of the best page it has text on. The pages are
scored as the `bm25s` baseline scores them (`retrieval.page_bm25`); LanceDB's own ranking is kept
for a library too large to hold its pages' terms in memory."""

from __future__ import annotations

from rag_core.retrieval.base import ChannelQuery, FullTextChannel, Group, Hits, Unit
from rag_core.retrieval.page_bm25 import page_index
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

    def asks_lancedb(self, query: ChannelQuery) -> bool:
        return page_index(query.store) is None  # LanceDB's ranking only for a library too large to score here

    def run(self, query: ChannelQuery) -> Hits:
        index = page_index(query.store)
        if index is None:
            return super().run(query)
        return index.search(query.query, query.language, query.scope, query.candidate_k, query.extra_terms)


CHANNEL = PageChannel()
