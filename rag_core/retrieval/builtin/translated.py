"""BM25 of the question's terms translated into the other language (`understanding.glossary`),
over that language's children ("translated") and whole pages ("translated_page").

The queries run over the whole scope in the other language's analyser and keep that language's
hits (2 x `candidate_k` asked): a pre-filtered full-text query costs about twice as much, and
translated terms seldom match the question's own language's documents.
"""

from __future__ import annotations

from rag_core.retrieval.base import ChannelQuery, FullTextChannel, Group, Hits, Role, Unit
from rag_core.store import FullText


class TranslatedChannel(FullTextChannel):
    name = "translated"
    unit: Unit = "children"
    group: Group = "other_language"
    weight_setting = "translated_weight"
    role: Role | None = "lexical"
    passage_priority = 2
    abbreviation = "T"
    description = "translated terms"

    def applies(self, query: ChannelQuery) -> bool:
        return bool(query.translated_query)

    def request(self, query: ChannelQuery) -> FullText:
        assert query.other is not None
        table = "pages" if self.unit == "pages" else "children"
        return FullText(table, query.translated_query, query.other.language, 2 * query.candidate_k)

    def keep(self, hits: Hits, query: ChannelQuery) -> Hits:
        theirs = set(query.other.scope) if query.other is not None else set()
        return [h for h in hits if h.doc_id in theirs][: query.candidate_k]  # type: ignore[return-value]


class TranslatedPageChannel(TranslatedChannel):
    name = "translated_page"
    unit: Unit = "pages"
    role = None
    report_name = "translated"  # measured with the translated terms' children, fused
    passage_priority = 1
    abbreviation = "TP"
    description = "translated terms over pages"

    def applies(self, query: ChannelQuery) -> bool:
        return query.pages and super().applies(query)


CHANNELS = (TranslatedChannel(), TranslatedPageChannel())
