"""The page baseline of the development sets: bm25s over whole pages, one document per page, no chunking
(docs/method.md, "Baselines and published figures").

Each page is analysed in its document's language: lower-case, word tokens, that language's
stop words removed, Snowball stemming (PyStemmer), then accents folded. The question is
analysed in its own language (analysing it in both languages and searching the union was
measured worse on the dev set: hit@3 0.77 vs 0.82). A zero BM25 score is not a match.
The analyser (`analyse`) is the page channel's own (`retrieval.page_bm25`), which scores pages with
this baseline's formula. This is the only module that runs bm25s. It does not read PDFs.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

import bm25s
import numpy as np

from rag_core.retrieval.page_bm25 import analyse

K = TypeVar("K", bound=Hashable)  # a page's name, e.g. (pdf, page)


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
