"""Engines under evaluation: what each returns for one question, at page and parent level.

Page level (docs/method.md, evaluation): a page takes the rank of its best child; channels are
searched with `PAGE_CANDIDATE_K` children so that recall@100 means something. Each registered
search channel is an engine on its own (`channel_engines`; earlier reports' names kept: "pages" is
the page channel, BM25 over whole pages in LanceDB; "dense-other-language" the dense channel over
the documents written in another language than the question; "translated" BM25 of the question's
translated terms over them, children and pages fused). "hybrid-parents" fuses the channels' *page*
rankings by weighted RRF (k=60) with the product's weights, as `retrieval` does on parents;
"hybrid-children" takes the pages of LanceDB's natively fused children. "bm25s-pages" is the
baseline of docs/method.md. Parent level (passages, context, refusal) uses the product's own
settings and code path (`retrieval.search`), so what is measured is what the product does.
This module does not aggregate or format results (`report.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag_core import retrieval, understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.embedding import Embedder, select_embedder
from rag_core.evaluation import metrics
from rag_core.evaluation.bm25_pages import PageIndex
from rag_core.evaluation.questions import PageKey, Question
from rag_core.models import DocumentRecord, Parent, SearchResult
from rag_core.parsing.pagetext import page_texts
from rag_core.services import documents
from rag_core.services.connection import open_store
from rag_core.store import ChildHit, PageHit, Store
from rag_core.text import contains_quote, detect_language

PAGE_CANDIDATE_K = 100  # children per channel for page rankings: enough for recall@100
RANKED_PAGES_KEPT = 100
OPTIONAL_ENGINES = ("reranker",)


def default_engine(settings: Settings) -> str:
    return f"hybrid-{settings.retrieval.fusion}"


@dataclass
class Corpus:
    """The searchable documents of a question set, with what the metrics need in memory."""

    settings: Settings
    store: Store
    records: dict[str, DocumentRecord]  # doc_id -> record
    scope: list[str]
    child_pages: dict[str, list[PageKey]] = field(default_factory=dict)
    parents: dict[str, Parent] = field(default_factory=dict)
    pdf_dir: Path | None = None
    sources: dict[str, Path] = field(default_factory=dict)  # file name -> stored original, without a pdf_dir
    _pages: dict[str, list[str]] = field(default_factory=dict)
    _bm25: PageIndex | None = None
    _embedder: _QueryCache | None = None

    def embedder(self) -> _QueryCache:
        if self._embedder is None:
            self._embedder = _QueryCache(select_embedder(self.settings))
        return self._embedder

    @classmethod
    def load(
        cls, settings: Settings, file_names: Sequence[str], pdf_dir: Path | None = None, *, principal: Principal
    ) -> Corpus:
        """The readable documents named `file_names`; their ids are the scope every engine prefilters on."""
        store = open_store(settings)
        wanted = set(file_names)
        records = {
            r.doc_id: r for r in documents.list_documents(settings, principal=principal) if r.file_name in wanted
        }
        corpus = cls(settings=settings, store=store, records=records, scope=sorted(records), pdf_dir=pdf_dir)
        if pdf_dir is None:  # the library's own stored originals give the pages' text
            corpus.sources = {
                r.file_name: documents.source_path(doc_id, settings, principal=principal)
                for doc_id, r in records.items()
                if r.file_name.lower().endswith(".pdf")
            }
        for doc_id, record in records.items():
            chunked = documents.load_chunks(doc_id, settings, principal=principal)
            for child in chunked.children:
                corpus.child_pages[child.id] = [(record.file_name, p) for p in child.pages]
            for parent in chunked.parents:
                corpus.parents[parent.id] = parent
        return corpus

    def page_text(self, pdf: str, page: int) -> str | None:
        """Raw text layer of one page of a PDF of `pdf_dir`, or of the library (None when unknown)."""
        path = self.pdf_dir / pdf if self.pdf_dir is not None else self.sources.get(pdf)
        if path is None:
            return None
        if pdf not in self._pages:
            self._pages[pdf] = page_texts(path) if path.is_file() else []
        texts = self._pages[pdf]
        return texts[page - 1] if 1 <= page <= len(texts) else None

    def bm25(self) -> PageIndex:
        if self._bm25 is None:
            keys: list[PageKey] = []
            texts: list[str] = []
            langs: list[str] = []
            for record in sorted(self.records.values(), key=lambda r: r.file_name):
                self.page_text(record.file_name, 1)
                for number, text in enumerate(self._pages.get(record.file_name, []), start=1):
                    keys.append((record.file_name, number))
                    texts.append(text)
                    langs.append(record.language)
            self._bm25 = PageIndex(keys, texts, langs)
        return self._bm25

    def pages_of(self, hits: Sequence[ChildHit]) -> list[PageKey]:
        return metrics.pages_of_children(self.child_pages.get(h.child_id, []) for h in hits)

    def pages_of_pages(self, hits: Sequence[PageHit]) -> list[PageKey]:
        return [(self.records[h.doc_id].file_name, h.page) for h in hits if h.doc_id in self.records]

    def language_match(self, question: Question) -> str:
        """'same language' when every relevant PDF is in the question's language, 'cross-lingual' when
        none is, 'mixed' otherwise (unanswerable questions: 'same language')."""
        by_name = {r.file_name: r.language for r in self.records.values()}
        languages = {by_name.get(pdf, question.language) for pdf in question.pdfs}
        if languages <= {question.language}:
            return "same language"
        return "cross-lingual" if question.language not in languages else "mixed"


class _QueryCache:
    """The configured embedder, embedding each question once however many engines search it."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self.name = embedder.name
        self.dim = embedder.dim
        self._last: tuple[str, np.ndarray] | None = None

    def embed_query(self, text: str) -> np.ndarray:
        if self._last is None or self._last[0] != text:
            self._last = (text, self._embedder.embed_query(text))
        return self._last[1]

    def embed_passages(self, texts, progress=None):
        return self._embedder.embed_passages(texts, progress)


@dataclass
class EngineRun:
    """One engine on one question."""

    ranked_pages: list[PageKey]
    parents: list[tuple[str, float]] = field(default_factory=list)  # (parent id, score), best first
    has_parents: bool = True


def run_question(question: Question, corpus: Corpus, engines: Sequence[str]) -> tuple[dict[str, EngineRun], dict]:
    """Every engine on one question, and the raw signals a refusal threshold could use."""
    settings = corpus.settings
    embedder = corpus.embedder()
    language = detect_language(question.question)
    vector = embedder.embed_query(question.question)
    translation = understanding.translation(question.question, language, settings)
    weights = settings.retrieval
    languages = {doc_id: r.language for doc_id, r in corpus.records.items()}
    other = (
        retrieval.other_language(languages, corpus.scope, language, translation)
        if weights.other_language_rank > 0
        else None
    )
    only_other = retrieval.only_in_other_language(other, settings, languages, corpus.scope)
    candidates = retrieval.run_channels(
        question.question, vector, corpus.store, corpus.scope, PAGE_CANDIDATE_K, language, other=other
    )
    ranked = {c.name: _channel_pages(c, candidates, corpus) for c in retrieval.channels() if c.name in candidates.hits}
    out: dict[str, EngineRun] = {}
    searched: dict[str, SearchResult] = {}

    def search(fusion: str) -> SearchResult:
        if fusion not in searched:
            searched[fusion] = retrieval.search(
                question.question,
                corpus.store,
                embedder,
                settings,
                corpus.scope,
                fusion=fusion,
                extra_terms=understanding.expansion_terms(question.question, settings)
                if settings.understanding.thesaurus
                else (),
                language=language,
                translation=translation,
            )
        return searched[fusion]

    for engine in engines:
        if engine in ("hybrid-parents", "hybrid-children"):
            fusion = engine.removeprefix("hybrid-")
            if fusion == "parents":  # as retrieval.fuse_with_other_language, on pages
                pages = _fused_pages(
                    candidates, ranked, settings, languages, language, only_other if other is not None else None
                )
            else:
                fused = corpus.store.hybrid(question.question, vector, language, corpus.scope, 2 * PAGE_CANDIDATE_K)
                pages = corpus.pages_of(fused)
            result = search(fusion)
            out[engine] = EngineRun(pages, [(p.parent.id, p.fused_score) for p in result.parents])
        elif engine in PARENT_PAGE_ENGINES:  # the pages of the product's own parents, two readings
            result = search(settings.retrieval.fusion)
            if engine == "answer-pages":
                refs = retrieval.answer_pages(result.parents)
            else:
                refs = retrieval.parent_pages(result.parents)
            pages = [(corpus.records[d].file_name, n) for d, n in refs if d in corpus.records]
            out[engine] = EngineRun(pages, [(p.parent.id, p.fused_score) for p in result.parents])
        elif engine == "bm25s-pages":
            out[engine] = EngineRun(
                corpus.bm25().search(question.question, language, PAGE_CANDIDATE_K), [], has_parents=False
            )
        elif engine in channel_engines():
            out[engine] = _channel_engine(channel_engines()[engine], candidates, ranked, settings.retrieval.candidate_k)
    return out, _signals(candidates, settings.retrieval.candidate_k)


def _channel_pages(channel: retrieval.Channel, candidates: retrieval.Candidates, corpus: Corpus) -> list[PageKey]:
    """A channel's page ranking: a page takes the rank of its best child (channels over children)."""
    if channel.unit == "pages":
        return corpus.pages_of_pages(candidates.pages(channel.name))
    return corpus.pages_of(candidates.children(channel.name))


def _fused_pages(
    candidates: retrieval.Candidates,
    ranked: dict[str, list[PageKey]],
    settings: Settings,
    languages: Mapping[str, str],
    language: str,
    only_other: Sequence[str] | None,
) -> list[PageKey]:
    """The question's channels' page rankings fused by weighted RRF, the other language's best page placed
    (`only_other` None: the cross-lingual search is off or there is no other language)."""
    weights = settings.retrieval

    def fused(group: str) -> list[PageKey]:
        voting = [c for c in retrieval.channels() if c.group == group and c.name in ranked]
        pages = metrics.fuse_rankings(
            [ranked[c.name] for c in voting], weights=[retrieval.weight(c, weights) for c in voting]
        )
        over_pages = [c for c in voting if c.unit == "pages"]
        first = ranked[over_pages[0].name][:1] if over_pages else []
        if weights.page_first and group == "question" and first and first[0] in pages[: retrieval.PAGE_FIRST_WITHIN]:
            pages = metrics.dedupe([*first, *pages])  # as retrieval.lead_with_first_page, on pages
        return pages

    ratio = retrieval.crosslingual.candidates_evidence_ratio(candidates, languages, language)
    rank = retrieval.placement(ratio, weights, only_other) if only_other is not None else 0
    return retrieval.place(fused("question"), fused("other_language"), rank)


def channel_engines() -> dict[str, list[retrieval.Channel]]:
    """Engine name -> the channels it reads: one engine per `report_name` of the registered channels
    (a channel's name unless it keeps an earlier report's, or joins another channel's engine)."""
    out: dict[str, list[retrieval.Channel]] = {}
    for channel in retrieval.channels():
        out.setdefault(channel.report_name, []).append(channel)
    return out


def _channel_engine(
    channels: list[retrieval.Channel], candidates: retrieval.Candidates, ranked: dict[str, list[PageKey]], k: int
) -> EngineRun:
    """Channels on their own: their pages (fused by RRF when several), the parents of the first one over
    children (none when they all rank pages)."""
    pages = [ranked.get(c.name, []) for c in channels]
    on_children = [c for c in channels if c.unit == "children"]
    parents = (
        [(h.parent_id, h.score) for h in retrieval.best_child_per_parent(candidates.children(on_children[0].name)[:k])]
        if on_children
        else []
    )
    return EngineRun(
        pages[0] if len(pages) == 1 else metrics.fuse_rankings(pages), parents, has_parents=bool(on_children)
    )


def _signals(candidates: retrieval.Candidates, k: int) -> dict:
    """Each channel's best score over children (`best_<channel>`), and whether the first parent of the
    question's "lexical" channel is among the first three of its "dense" channel (`retrieval.base.ROLES`)."""
    signals: dict = {
        f"best_{c.name}": candidates.children(c.name)[0].score if candidates.children(c.name) else None
        for c in retrieval.channels("children")
    }
    lexical, dense = (
        retrieval.best_child_per_parent(candidates.children(c.name)[:k]) if c is not None else []
        for c in (retrieval.with_role("lexical"), retrieval.with_role("dense"))
    )
    signals["top_parent_in_both"] = bool(
        lexical and dense and {lexical[0].parent_id} & {h.parent_id for h in dense[:3]}
    )
    return signals


def parent_level(run: EngineRun, question: Question, corpus: Corpus) -> dict:
    """Passage and context measures from the engine's parents (product settings)."""
    if not run.has_parents:
        return {
            "top_parents": [],
            "quote_in_top3": None,
            "context_tokens": None,
            "context_pages": None,
            "best_score": None,
        }
    top3 = [corpus.parents[pid] for pid, _ in run.parents[:3] if pid in corpus.parents]
    context = [
        corpus.parents[pid] for pid, _ in run.parents[: corpus.settings.retrieval.context_k] if pid in corpus.parents
    ]
    pages = {(p.doc_id, n) for p in context for n in p.pages}
    quote_hit = None
    if question.quote and question.answerable:
        quote_hit = any(contains_quote(p.text, question.quote) for p in top3)
    return {
        "top_parents": [pid for pid, _ in run.parents[:3]],
        "quote_in_top3": quote_hit,
        "context_tokens": sum(p.tokens for p in context),
        "context_pages": len(pages),
        "best_score": run.parents[0][1] if run.parents else None,
    }


# One engine per search channel registered when this module is imported, then the fusions and the baseline.
# The pages of the default fusion's parents: each parent's best page first, or parent after parent.
PARENT_PAGE_ENGINES = ("answer-pages", "parent-pages")
ALL_ENGINES = (*channel_engines(), "hybrid-parents", "hybrid-children", *PARENT_PAGE_ENGINES, "bm25s-pages")
