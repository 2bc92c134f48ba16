"""Chunking and token counting import neither transformers, torch nor scikit-learn (about 7-10
CPU-seconds in every worker, server and CLI process that chunks or counts), and docling-core's
own HuggingFace tokenizer still works in a process that chunked first. Each check runs in a
fresh interpreter, since this test process may have imported them already."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.parsing_support import fixture_paths

HEAVY = ("transformers", "torch", "sklearn")

CHUNK_AND_COUNT = """
import json, sys
from pathlib import Path
from docling_core.types.doc import DoclingDocument
from rag_core.chunking import build_chunks, count_tokens
from rag_core.config import Settings
from rag_core.embedding import e5_torch
from rag_core.llm.shaping import estimate_tokens

doc = DoclingDocument.load_from_json(Path(sys.argv[1]))
settings = Settings()
chunked = build_chunks(doc, "d" * 64, settings)
small = settings.model_copy(update={"chunking": settings.chunking.model_copy(update={"max_tokens": 64})})
children = len(build_chunks(doc, "d" * 64, small).children)
print(json.dumps({
    "children": len(chunked.children),
    "small_children": children,
    "count": count_tokens("Provisions techniques", settings),
    "estimate": estimate_tokens("Provisions techniques"),
    "ids": e5_torch._token_ids(["Provisions techniques"])[0],
    "loaded": sorted(m for m in %r if m in sys.modules),
}))
"""

HUGGINGFACE_AFTER_CHUNKING = """
import json
import rag_core.chunking
from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer
from rag_core.chunking.tokenizer import load_tokenizer, tokenizer_path

tok = HuggingFaceTokenizer(tokenizer=load_tokenizer(tokenizer_path()), max_tokens=100)
print(json.dumps({"count": tok.count_tokens("Provisions techniques"), "max": tok.get_max_tokens()}))
"""


def _run(code: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_chunking_and_counting_import_no_transformers_torch_or_sklearn() -> None:
    fixture = max(fixture_paths(), key=lambda p: p.stat().st_size)
    out = _run(CHUNK_AND_COUNT % (HEAVY,), str(fixture))
    assert out["loaded"] == []
    assert out["children"] > 0 and out["small_children"] > out["children"]  # the splitter ran too
    assert out["count"] == out["estimate"] == 4  # "▁Pro" "vision" "s" "▁techniques"
    assert out["ids"][0] == 0 and out["ids"][-1] == 2 and len(out["ids"]) == 6  # <s> … </s>


def test_docling_core_s_huggingface_tokenizer_still_works_after_chunking() -> None:
    assert _run(HUGGINGFACE_AFTER_CHUNKING) == {"count": 4, "max": 100}


def test_the_stand_in_is_gone_once_the_real_module_is_read() -> None:
    code = (
        "import sys, rag_core.chunking\n"
        "name = 'docling_core.transforms.chunker.tokenizer.huggingface'\n"
        "before = type(sys.modules[name]).__name__\n"
        "from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer\n"
        "import json; print(json.dumps([before, type(sys.modules[name]).__name__, 'transformers' in sys.modules]))\n"
    )
    assert _run(code) == ["_DeferredHuggingFace", "module", True]
