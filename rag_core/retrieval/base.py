"""The `Channel` protocol: one way of ranking the scope's children or pages for a question.

A channel is data. It declares its `name`, what it ranks (`unit`: children or pages), which fused
ranking it votes in (`group`: the question's own, or the ranking of the documents written in
another language, `crosslingual`), the `RetrievalSettings` field that holds its weight in that
fusion (`weight_setting`; None: 1.0), the UI string that names it (`label_key`), its `role` for
the rules that read one kind of evidence (`ROLES`), the engine it is measured in by the
evaluation (`report_name`), whether it runs for a given question (`applies`) and `run`, which
returns its hits over `ChannelQuery.scope`, best first. `registry.register` checks all of this
when the channel registers. A channel that asks LanceDB for BM25 only
describes its query (`FullTextChannel.request`): the runner sends every such query in one call
(`running.run_channels`). A channel joins every search through `registry.register`; the package's
own are in `retrieval/builtin/`, registered there in a fixed order. This module runs no query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from rag_core.config import RetrievalSettings
from rag_core.store import ChildHit, FullText, PageHit, Store
from rag_core.understanding.glossary import Translation

Unit = Literal["children", "pages"]
Group = Literal["question", "other_language"]
Role = Literal["lexical", "dense"]
# What a role means to the rules that look a channel up by it (`registry.with_role`), per group:
ROLES: dict[str, str] = {
    "lexical": "BM25 over children: its best score is the group's lexical evidence "
    "(`crosslingual.evidence_ratio`, the evaluation's signals)",
    "dense": "the embedding's ranking of every child: a parent it alone ranks first is the weakest evidence "
    "the fusion passes, so the refusal threshold scales with its weight (`answering.evidence_threshold`)",
}
Hits = list[ChildHit] | list[PageHit]


@dataclass(frozen=True)
class OtherLanguage:
    """The documents in scope written in another language than the question, searched on their own."""

    scope: list[str]
    language: str
    translation: Translation | None = None  # the question's terms in that language; None: dense only


@dataclass(frozen=True)
class ChannelQuery:
    """What every channel is given: the question, once embedded, and where to search.

    `pages`: whether channels over whole pages run (fusion on parents with a page weight above 0).
    `other`: the other language's documents, None when the cross-lingual search is off or there
    are none.
    """

    query: str
    vector: np.ndarray
    store: Store
    scope: Sequence[str]
    candidate_k: int
    language: str
    extra_terms: Sequence[tuple[str, float]] = ()
    pages: bool = True
    other: OtherLanguage | None = None

    @property
    def translated_query(self) -> str:
        """The question's terms in the other language ('' when there is nothing to search with)."""
        other = self.other
        return other.translation.query if other is not None and other.scope and other.translation else ""


@runtime_checkable
class Channel(Protocol):
    @property
    def name(self) -> str:
        """Key of `RetrievedParent.ranks` (lower-case letters, digits and '_')."""
        ...

    @property
    def unit(self) -> Unit: ...

    @property
    def group(self) -> Group: ...

    @property
    def weight_setting(self) -> str | None:
        """A `RetrievalSettings` field; None: the channel weighs 1.0."""
        ...

    @property
    def label_key(self) -> str:
        """The UI string that names it (ui/strings/search.py, usually `search.channel.<name>`)."""
        ...

    @property
    def role(self) -> Role | None:
        """Its role in its group (`ROLES`; at most one channel per role and group), None: none."""
        ...

    @property
    def report_name(self) -> str:
        """The evaluation engine it is measured in (channels sharing one are fused there), usually its name."""
        ...

    @property
    def passage_priority(self) -> int:
        """A parent's passage comes from the channel of lowest priority that found it."""
        ...

    @property
    def abbreviation(self) -> str:
        """The CLI's column heading (a letter or two)."""
        ...

    @property
    def description(self) -> str:
        """The CLI's legend for it (English)."""
        ...

    def applies(self, query: ChannelQuery) -> bool:
        """Whether the channel runs for this question."""
        ...

    def run(self, query: ChannelQuery) -> Hits:
        """Its hits over `query.scope`, best first (`unit` children or pages)."""
        ...


def weight(channel: Channel, settings: RetrievalSettings) -> float:
    """The channel's weight in its fusion: the setting it names, 1.0 when it names none."""
    return 1.0 if channel.weight_setting is None else float(getattr(settings, channel.weight_setting))


class FullTextChannel:
    """A BM25 channel: a `FullText` query of LanceDB, sent together with the other channels' own.

    Subclasses set the class attributes of `Channel` and `request`; `keep` filters the hits.
    """

    name: str
    unit: Unit
    group: Group
    weight_setting: str | None = None
    role: Role | None = None
    passage_priority: int = 100
    abbreviation: str = "?"
    description: str = ""

    @property
    def label_key(self) -> str:
        return f"search.channel.{self.name}"

    @property
    def report_name(self) -> str:
        return self.name

    def applies(self, query: ChannelQuery) -> bool:
        return True

    def request(self, query: ChannelQuery) -> FullText:
        raise NotImplementedError

    def keep(self, hits: Hits, query: ChannelQuery) -> Hits:
        """The hits the channel returns, from what LanceDB found (all of them unless overridden)."""
        return hits

    def asks_lancedb(self, query: ChannelQuery) -> bool:
        """Whether its hits come from LanceDB's full-text query (`request`, sent with the other channels');
        a channel that can score on its own says False and finds its hits in `run`."""
        return True

    def run(self, query: ChannelQuery) -> Hits:
        (hits,) = query.store.full_text([self.request(query)], query.scope)
        return self.keep(hits, query)
