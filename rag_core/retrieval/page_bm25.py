"""The page channel's ranking: BM25 over whole pages, scored as the untuned `bm25s` baseline scores them.

LanceDB's full-text index ranked the same pages below `bm25s` on the dev set (hit@1 -0.035): its
analyser (tantivy's stop words and stemmer on one column chosen by the question's language) and its
BM25 constants differ from the baseline's. Here the pages are scored with the baseline's own
analyser and formula, so the channel ranks as BM25 over whole pages by construction: each page is
analysed in its document's language (`analyse`: word tokens, that language's stop words, Snowball
stems; the stored text is accent-folded, so the question is folded before it is analysed, in its own
language); Lucene's BM25 (k1 1.5, b 0.75, idf ln(1 + (N - df + .5)/(df + .5)),
`bm25s`'s defaults) with the statistics of every page of the library. The thesaurus's extra terms
add their own BM25 times their weight, as their boosted clauses do in LanceDB.

The pages' analysed terms are read from the `pages` table once per version of it and of the
documents table, and kept (`page_index`). A library of more than `MAX_PAGES_IN_MEMORY` pages keeps
LanceDB's ranking (`None`). This module does not fuse or read PDFs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from bm25s import stopwords as bm25s_stopwords

from rag_core.stemming import stemmer
from rag_core.store import PageHit, Store
from rag_core.text import fold

K1 = 1.5
B = 0.75
# 20,000 pages: about 6 million postings at most (300 distinct terms a page), ~70 MB of arrays.
MAX_PAGES_IN_MEMORY = 20_000
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = {"fr": bm25s_stopwords.STOPWORDS_FRENCH, "en": bm25s_stopwords.STOPWORDS_EN}


@lru_cache(maxsize=4)
def _analyser(language: str) -> tuple[object, frozenset[str]]:
    lang = language if language in _STOPWORDS else "en"
    stops = frozenset(w.lower() for w in _STOPWORDS[lang]) | frozenset(fold(w) for w in _STOPWORDS[lang])
    return stemmer(lang), stops


def analyse(text: str, language: str) -> list[str]:
    """Terms of `text` in `language`: stop words out, Snowball stems, accents folded."""
    stem, stops = _analyser(language)
    words = [w for w in _WORD.findall(text.lower()) if w not in stops and fold(w) not in stops]
    return [fold(s) for s in stem.stemWords(words)]  # type: ignore[attr-defined]  # PyStemmer ships no type stubs


@dataclass(frozen=True)
class PageBM25:
    """Postings of every page of a library: term -> (page indexes, term frequencies)."""

    doc_ids: np.ndarray  # page index -> doc id (object array)
    pages: list[int]
    parent_ids: list[tuple[str, ...]]
    norms: np.ndarray  # k1 * (1 - b + b * length / average length), per page
    postings: dict[str, tuple[np.ndarray, np.ndarray]]

    @classmethod
    def build(cls, rows: Sequence[tuple[str, int, tuple[str, ...], str, str]]) -> PageBM25:
        """From (doc id, page, parent ids, text, language) rows."""
        found: dict[str, tuple[list[int], list[int]]] = {}
        lengths = np.zeros(len(rows), dtype=np.float64)
        for i, (_, _, _, text, language) in enumerate(rows):
            terms = analyse(text, language)
            lengths[i] = max(len(terms), 1)  # an empty page counts one token, as bm25s's [""]
            for term, count in Counter(terms).items():
                where = found.setdefault(term, ([], []))
                where[0].append(i)
                where[1].append(count)
        average = float(lengths.mean()) if len(rows) else 1.0
        return cls(
            doc_ids=np.array([r[0] for r in rows], dtype=object),
            pages=[r[1] for r in rows],
            parent_ids=[r[2] for r in rows],
            norms=K1 * (1 - B + B * lengths / average),
            postings={t: (np.array(i, dtype=np.int64), np.array(c, dtype=np.float64)) for t, (i, c) in found.items()},
        )

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """BM25 of each page for `terms` (analysed; each distinct term counts once, as in bm25s)."""
        out = np.zeros(len(self.pages), dtype=np.float64)
        n = len(self.pages)
        for term in dict.fromkeys(terms):
            posting = self.postings.get(term)
            if posting is None:
                continue
            index, tf = posting
            idf = np.log(1 + (n - index.size + 0.5) / (index.size + 0.5))
            out[index] += idf * tf / (self.norms[index] + tf)
        return out

    def search(
        self, query: str, language: str, scope: Sequence[str], k: int, extra_terms: Sequence[tuple[str, float]] = ()
    ) -> list[PageHit]:
        """The `k` best pages of `scope` (doc ids) for `query`, with a score above zero."""
        total = self.scores(analyse(fold(query), language))  # folded as the pages' text is
        for term, weight in extra_terms:
            total += weight * self.scores(analyse(fold(term), language))
        total[~np.isin(self.doc_ids, list(scope))] = 0.0
        order = np.argsort(-total, kind="stable")[:k]
        return [
            PageHit(str(self.doc_ids[i]), self.pages[i], self.parent_ids[i], float(total[i]))
            for i in order
            if total[i] > 0
        ]


def page_index(store: Store) -> PageBM25 | None:
    """The library's pages analysed, read once per version of the pages and documents tables and kept
    with the store; None when the library has no pages table or more than `MAX_PAGES_IN_MEMORY` pages."""
    version = store.pages_version()
    if version is None or version[1] > MAX_PAGES_IN_MEMORY:
        return None
    key = (version, store.documents_version())
    kept = store.derived.get(_KEY)
    if kept is not None and kept[0] == key and isinstance(kept[1], PageBM25):
        return kept[1]
    languages = {r.doc_id: r.language for r in store.documents()}
    rows = [(d, p, ids, text, languages[d]) for d, p, ids, text in store.page_rows() if d in languages]
    built = PageBM25.build(rows)
    store.derived[_KEY] = (key, built)  # one assignment: a concurrent search reads the old or the new
    return built


_KEY = "page_bm25"
