"""docling-core's chunker classes, imported without transformers, torch or scikit-learn, and the
XLM-R tokenizer they count with (the `tokenizers` library on the bundled `tokenizer.json`).

docling-core's chunker package imports its HuggingFace tokenizer module when it loads (its
line chunker takes `get_default_tokenizer` from it), and that module imports transformers,
which imports torch and scikit-learn: about 7-10 CPU-seconds in every process that chunks or
counts tokens, for a tokenizer this product never builds through transformers. Until something
reads another name from that module, a stand-in takes its place in `sys.modules`; the first
such read imports the real module, so docling-core's own HuggingFace tokenizer still works.
`tests/integration/test_chunking_splitter.py` checks that the children are those of docling-core's
HybridChunker with the transformers tokenizer; `tests/integration/test_chunk_imports.py` checks
that chunking imports none of the three.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

_HUGGINGFACE = "docling_core.transforms.chunker.tokenizer.huggingface"


def _real_huggingface() -> types.ModuleType:
    """docling-core's HuggingFace tokenizer module itself (imports transformers)."""
    if isinstance(sys.modules.get(_HUGGINGFACE), _DeferredHuggingFace):
        sys.modules.pop(_HUGGINGFACE, None)
    return importlib.import_module(_HUGGINGFACE)


class _DeferredHuggingFace(types.ModuleType):
    """Stands for docling-core's HuggingFace tokenizer module until a name other than
    `get_default_tokenizer` is read from it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # the import system asks for `__path__`
            raise AttributeError(name)
        return getattr(_real_huggingface(), name)


def _get_default_tokenizer() -> Any:
    """The name docling-core's line chunker imports at load; builds docling-core's default when called."""
    return _real_huggingface().get_default_tokenizer()


if _HUGGINGFACE not in sys.modules:
    _stand_in = _DeferredHuggingFace(_HUGGINGFACE)
    _stand_in.get_default_tokenizer = _get_default_tokenizer  # type: ignore[attr-defined]
    sys.modules[_HUGGINGFACE] = _stand_in

# The imports below must follow the stand-in: they load docling-core's chunker package.
from docling_core.transforms.chunker.doc_chunk import DocChunk, DocMeta  # noqa: E402
from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer, ChunkingSerializerProvider  # noqa: E402
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker  # noqa: E402
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer  # noqa: E402
from pydantic import ConfigDict  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

__all__ = [
    "BaseTokenizer",
    "ChunkingDocSerializer",
    "ChunkingSerializerProvider",
    "DocChunk",
    "DocMeta",
    "HybridChunker",
    "XlmrTokenizer",
]


class XlmrTokenizer(BaseTokenizer):
    """docling-core's tokenizer interface over a `tokenizers.Tokenizer`: the same counts as
    docling-core's `HuggingFaceTokenizer` over transformers' fast tokenizer of the same file
    (tokens without special tokens, never truncated)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tokenizer: Tokenizer
    max_tokens: int

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def get_max_tokens(self) -> int:
        return self.max_tokens

    def get_tokenizer(self) -> Tokenizer:
        """What semchunk splits with: it counts `encode(text, add_special_tokens=False)` and reads `get_vocab()`."""
        return self.tokenizer
