"""The page baseline of the development sets: bm25s over whole pages, one document per page, no chunking
(docs/method.md, "Baselines and published figures").

Each page is analysed in its document's language: lower-case, word tokens, that language's
stop words removed, Snowball stemming (PyStemmer), then accents folded. The question is
analysed in its own language (analysing it in both languages and searching the union was
measured worse on the dev set: hit@3 0.77 vs 0.82). A zero BM25 score is not a match.
This is the only module that imports bm25s (Snowball stems come from `rag_core.stemming`). It does not read PDFs.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Generic, TypeVar

import bm25s
import numpy as np
from bm25s import stopwords as bm25s_stopwords

from rag_core.stemming import stemmer
from rag_core.text import fold

K = TypeVar("K", bound=Hashable)  # a page's name, e.g. (pdf, page)
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = {"fr": bm25s_stopwords.STOPWORDS_FRENCH, "en": bm25s_stopwords.STOPWORDS_EN}


@lru_cache(maxsize=4)
def _analyser(language: str) -> tuple[object, frozenset[str]]:
    lang = language if language in _STOPWORDS else "en"
    stops = frozenset(w.lower() for w in _STOPWORDS[lang]) | frozenset(fold(w) for w in _STOPWORDS[lang])
    return stemmer(lang), stops


def analyse(text: str, language: str) -> list[str]:
    """Terms of `text` in `language`: stop words out, Snowball stems, accents folded."""
    stemmer, stops = _analyser(language)
    words = [w for w in _WORD.findall(text.lower()) if w not in stops and fold(w) not in stops]
    return [fold(s) for s in stemmer.stemWords(words)]  # type: ignore[attr-defined]  # PyStemmer ships no type stubs


class PageIndex(Generic[K]):
    """BM25 over pages; `keys[i]` names page i (e.g. (pdf, page))."""

    def __init__(self, keys: Sequence[K], texts: Sequence[str], languages: Sequence[str]) -> None:
        self.keys = list(keys)
        self.retriever = bm25s.BM25()
        corpus = [analyse(t, lang) or [""] for t, lang in zip(texts, languages, strict=True)]
        self.retriever.index(corpus, show_progress=False)
        self.vocab = set(self.retriever.vocab_dict) - {""}

    def search(self, question: str, language: str, k: int = 100) -> list[K]:
        terms = list(dict.fromkeys(t for t in analyse(question, language) if t in self.vocab))
        if not terms or not self.keys:
            return []
        scores = np.asarray(self.retriever.get_scores(terms), dtype=float)
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.keys[i] for i in order if scores[i] > 0]
