"""A search channel written as a plug-in would write it, in one file: BM25 over the children of the
question's identifiers only (its words holding a digit: "BF2", "L. 1235-3" gives "1235-3").

Registering it (`retrieval.register(CHANNEL)`) is the only other step; it weighs 1.0 (no setting of
its own) and names a UI string it does not ship, which the Search page would show as its key.
"""

from __future__ import annotations

import re

from rag_core.retrieval import ChannelQuery, FullTextChannel
from rag_core.retrieval.base import Group, Unit
from rag_core.store import FullText

_IDENTIFIER = re.compile(r"\b[\w-]*\d[\w-]*\b")


class IdentifierChannel(FullTextChannel):
    name = "identifiers"
    unit: Unit = "children"
    group: Group = "question"
    passage_priority = 10
    abbreviation = "I"
    description = "identifiers"

    def applies(self, query: ChannelQuery) -> bool:
        return bool(_IDENTIFIER.search(query.query))

    def request(self, query: ChannelQuery) -> FullText:
        terms = " ".join(_IDENTIFIER.findall(query.query))
        return FullText("children", terms, query.language, query.candidate_k)


CHANNEL = IdentifierChannel()
