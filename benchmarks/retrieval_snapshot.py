"""Every search result of fixed questions and setting variants, as JSON: a refactor of the retrieval
must leave it unchanged (same parents, fused scores, passages, channel ranks, placements).

    nice .venv/bin/python -m benchmarks.retrieval_snapshot build --data-dir /tmp/snap-lib
    nice .venv/bin/python -m benchmarks.retrieval_snapshot snapshot --data-dir /tmp/snap-lib --out before.json
    (change the code)
    nice .venv/bin/python -m benchmarks.retrieval_snapshot snapshot --data-dir /tmp/snap-lib --out after.json
    .venv/bin/python -m benchmarks.retrieval_snapshot compare before.json after.json

The library: a few pages of five corpus PDFs, two languages on overlapping subjects (so the
cross-lingual channels and the placement take part), about 50 s to build on 2 cores. Questions in
both languages, with and without thesaurus terms, one that matches nothing and an empty one; each
searched with k 3 and 100 under the default settings, fusion on children, no page channel, no
cross-lingual search and other weights, then every evaluation engine (`evaluation.engines`) on
each. Scores are compared exactly. A channel added since the first snapshot is reported, not
counted as a difference (unless `--compare-new-channels`).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.evaluation.engines import ALL_ENGINES, Corpus, run_question
from rag_core.evaluation.questions import Question
from rag_core.text import detect_language

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
LOCAL = Principal.local_operator()
EXTRACTS = {  # corpus PDF -> its 1-based pages kept
    "en_EIOPA_guidelines_valuation_technical_provisions.pdf": [15, 29, 30],
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf": [17, 19, 20],
    "fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf": [17, 25, 26],
    "fr_notes_ACT2005_mathematiques_actuarielles_IARD1.pdf": [17, 18],
    "en_actuar_coverage_modifications.pdf": [1, 2],
}
QUERIES = [
    "provision pour primes",
    "What is a premium provision?",
    "Mack chain ladder standard error",
    "méthode de Mack erreur de prédiction",
    "franchise ordinaire",
    "coverage deductible payment per payment",
    "décisions de gestion futures",
    "best estimate cash flows discount rate",
    "bootstrap des résidus",
    "quelle est la franchise",
    "xyzzy nothing",
    "",
]


def settings_of(data_dir: Path) -> Settings:
    settings = Settings(data_dir=data_dir)
    return settings.model_copy(update={"parsing": settings.parsing.model_copy(update={"workers": 1})})


def variants(settings: Settings) -> dict[str, Settings]:
    def changed(**update: object) -> Settings:
        return settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update=update)})

    return {
        "default": settings,
        "children": changed(fusion="children"),
        "nopage": changed(page_weight=0.0),
        "nocross": changed(other_language_rank=0),
        "weights": changed(dense_weight=0.7, translated_weight=0.3, other_language_weight=2.0),
    }


def build(data_dir: Path) -> None:
    import pymupdf

    folder = data_dir / "extracts"
    folder.mkdir(parents=True, exist_ok=True)
    for name, pages in EXTRACTS.items():
        with pymupdf.open(SHARED / "corpus" / "pdfs" / name) as doc:
            doc.select([p - 1 for p in pages])
            doc.save(folder / name)
    results = pipeline.ingest([folder / name for name in EXTRACTS], settings_of(data_dir), principal=LOCAL)
    print([r.status for r in results])


def snapshot(data_dir: Path) -> dict:
    settings = settings_of(data_dir)
    out: dict = {}
    for variant, chosen in variants(settings).items():
        for query in QUERIES:
            for k in (3, 100):
                try:
                    result = pipeline.search(query, chosen, k=k, principal=LOCAL)
                except InputError as err:  # the empty query is refused before any search (check_question)
                    out[f"{variant}|{query}|{k}"] = {"refused": str(err)}
                    continue
                out[f"{variant}|{query}|{k}"] = {
                    "language": result.language,
                    "expanded": result.expanded_terms,
                    "translated": result.translated.model_dump() if result.translated else None,
                    "parents": [
                        {
                            "parent": p.parent.id,
                            "best_child": p.best_child.id,
                            "fused_rank": p.fused_rank,
                            "fused_score": p.fused_score,
                            "placed": p.placed,
                            "channels": {name: hit.model_dump() for name, hit in p.ranks.items()},
                        }
                        for p in result.parents
                    ],
                }
    corpus = Corpus.load(settings, list(EXTRACTS), principal=LOCAL)
    engines = [e for e in ALL_ENGINES if e != "bm25s-pages"]  # the baseline reads the PDFs, not the library
    for i, query in enumerate(q for q in QUERIES if q.strip()):
        question = Question(
            id=str(i), question=query, language=detect_language(query), type="snapshot", pdfs=tuple(EXTRACTS)
        )
        runs, signals = run_question(question, corpus, engines)
        out[f"engines|{query}"] = {
            "signals": signals,
            "runs": {
                e: {"pages": r.ranked_pages, "parents": r.parents, "has_parents": r.has_parents}
                for e, r in runs.items()
            },
        }
    return out


def compare(before: dict, after: dict, ignore_new_channels: bool = True) -> int:
    """Print each difference; the number of searches that differ."""
    differ = 0
    new_channels: set[str] = set()
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old is not None and new is not None and ignore_new_channels and not key.startswith("engines|"):
            known = {name for p in old.get("parents", []) for name in p["channels"]}
            added = {name for p in new.get("parents", []) for name in p["channels"]} - known
            for parent in new.get("parents", []):
                parent["channels"] = {n: h for n, h in parent["channels"].items() if n not in added}
            new_channels |= added
        if old is not None and new is not None and key.startswith("engines|"):
            new = {**new, "signals": {s: v for s, v in new["signals"].items() if s in old["signals"]}}
            new["runs"] = {e: r for e, r in new["runs"].items() if e in old["runs"]}
        if old != new:
            differ += 1
            print(f"DIFFERS {key}")
    if new_channels:
        print(f"channels found only in the second snapshot, not compared: {', '.join(sorted(new_channels))}")
    print(f"{len(before)} searches before, {len(after)} after, {differ} differ")
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "snapshot", "compare"])
    parser.add_argument("files", nargs="*", help="compare: the two snapshots")
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/retrieval-snapshot"))
    parser.add_argument("--out", type=Path, help="snapshot: where to write it")
    parser.add_argument(
        "--compare-new-channels",
        action="store_true",
        help="count a channel that appeared since the first snapshot as a difference",
    )
    args = parser.parse_args()
    if args.command == "build":
        build(args.data_dir)
    elif args.command == "snapshot":
        text = json.dumps(snapshot(args.data_dir), indent=1, ensure_ascii=False, default=list)
        if args.out:
            args.out.write_text(text)
        else:
            print(text)
    else:
        before, after = (json.loads(Path(f).read_text()) for f in args.files)
        return 1 if compare(before, after, not args.compare_new_channels) else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
