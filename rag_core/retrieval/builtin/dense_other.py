"""The dense channel restricted to the documents written in another language than the question.

The embedding pulls a question towards the documents of its own language whatever their
subject, so those documents are ranked on their own (`retrieval.crosslingual`).
"""

from __future__ import annotations

from rag_core.retrieval.base import ChannelQuery, Group, Hits, Role, Unit


class DenseOtherLanguageChannel:
    name = "dense_other"
    unit: Unit = "children"
    group: Group = "other_language"
    weight_setting = "other_language_weight"
    label_key = "search.channel.dense_other"
    role: Role = "dense"
    report_name = "dense-other-language"  # the name of earlier evaluation reports
    passage_priority = 3
    abbreviation = "O"
    description = "dense over the other language's documents"

    def applies(self, query: ChannelQuery) -> bool:
        return query.other is not None and bool(query.other.scope)

    def run(self, query: ChannelQuery) -> Hits:
        assert query.other is not None
        return query.store.dense(query.vector, sorted(set(query.other.scope)), query.candidate_k)


CHANNEL = DenseOtherLanguageChannel()
