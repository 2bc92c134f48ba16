"""Cosine similarity of the question's vector to the children's vectors (`Store.dense`)."""

from __future__ import annotations

from rag_core.retrieval.base import ChannelQuery, Group, Hits, Role, Unit


class DenseChannel:
    name = "dense"
    unit: Unit = "children"
    group: Group = "question"
    weight_setting = "dense_weight"
    label_key = "search.channel.dense"
    role: Role = "dense"
    report_name = "dense"
    passage_priority = 1
    abbreviation = "D"
    description = "dense"

    def applies(self, query: ChannelQuery) -> bool:
        return True

    def run(self, query: ChannelQuery) -> Hits:
        return query.store.dense(query.vector, query.scope, query.candidate_k)


CHANNEL = DenseChannel()
