"""Cross-lingual retrieval on the development sets: the experiments behind the language-aware channels.

    HF_HUB_OFFLINE=1 python benchmarks/crosslingual_dev.py --data-dir COPY_OF_EVALDATA --out-dir DIR

The library is the one `benchmarks/eval_dev.py` builds (all 19 corpus PDFs). For every
answerable question of both sets it runs the channels once at page level (as the evaluation's
`hybrid-parents` engine does, 100 children per channel) and saves their page rankings
(`channels_<set>.json`; `--analyse-only` re-reads them). The question's language is detected,
as in the product. Then it re-fuses the rankings offline:
- "current": lexical + 0.25 x dense + pages (the default before this work);
- "per-language dense": the dense channel run per document language, each language's documents
  ranked on their own, the rankings fused by RRF, in place of the dense channel (the simple design);
- "+ other-language dense / translated": the current fusion plus the dense channel over the
  other language's documents and BM25 of the question's translated terms over them.
Questions are grouped as "same language" (every relevant PDF in the question's language),
"cross-lingual" (none) or "mixed"; "doc@3" is 1 when a relevant PDF is among the first three
distinct documents of the page ranking. Paired differences against "current" on the same
questions, 95 % bootstrap. Nothing here changes the product's defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag_core import retrieval, understanding  # noqa: E402
from rag_core.config import Settings  # noqa: E402
from rag_core.evaluation import load_rows, metrics  # noqa: E402
from rag_core.evaluation.engines import PAGE_CANDIDATE_K, Corpus  # noqa: E402
from rag_core.evaluation.questions import build_question  # noqa: E402
from rag_core.text import detect_language  # noqa: E402

SHARED = Path(os.environ.get("RAG_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
SETS = ("dev_questions", "dev_hard_questions")
CHANNELS = ("lexical", "dense", "pages", "dense_other", "translated", "translated_pages")
SHOWN = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "doc@3")
Ranking = list[tuple[str, int]]


def collect(name: str, corpus: Corpus, settings: Settings) -> list[dict]:
    """Every channel's page ranking for each answerable question of one set."""
    languages = {r.file_name: r.language for r in corpus.records.values()}
    embedder = corpus.embedder()
    out = []
    for row in load_rows(SHARED / "eval" / f"{name}.jsonl"):
        q = build_question(row, corpus.page_text)
        if not q.answerable or any(pdf not in languages for pdf in q.pdfs):
            continue
        language = detect_language(q.question)
        translation = understanding.translation(q.question, language, settings)
        other = retrieval.other_language(corpus.store, corpus.scope, language, translation)
        channels = retrieval.run_channels(q.question, embedder.embed_query(q.question), corpus.store, corpus.scope,
                                          PAGE_CANDIDATE_K, language, other=other)
        rankings: dict[str, Ranking] = {}
        for channel in CHANNELS:
            hits = getattr(channels, channel)
            if channel.endswith("pages"):
                rankings[channel] = [(corpus.records[h.doc_id].file_name, h.page) for h in hits]
            else:
                rankings[channel] = corpus.pages_of(hits)
        doc_languages = {languages[pdf] for pdf in q.pdfs}
        group = ("same language" if doc_languages == {language} else
                 "cross-lingual" if language not in doc_languages else "mixed")
        out.append({
            "id": q.id, "question": q.question, "given_language": q.language, "language": language, "group": group,
            "pdfs": list(q.pdfs), "relevant": [[pdf, page, g] for (pdf, page), g in sorted(q.relevant.items())],
            "translated": translation.shown() if translation else [], "rankings": rankings,
            "page_language": {pdf: languages[pdf] for pdf in languages},
        })
    return out


def doc_hit_at(ranking: Sequence[tuple[str, int]], pdfs: Sequence[str], k: int = 3) -> float:
    docs = metrics.dedupe(pdf for pdf, _ in ranking)[:k]
    return 1.0 if set(docs) & set(pdfs) else 0.0


def score(row: dict, ranking: Ranking) -> dict[str, float]:
    relevant = {(pdf, page): g for pdf, page, g in row["relevant"]}
    values = metrics.rank_metrics(ranking, relevant)
    values["doc@3"] = doc_hit_at(ranking, row["pdfs"])
    return values


def _r(row: dict, channel: str) -> Ranking:
    return [tuple(x) for x in row["rankings"][channel]]  # type: ignore[misc]


def per_language_dense(row: dict) -> Ranking:
    """The simple design: each document language's dense ranking on its own, fused by RRF."""
    languages = row["page_language"]
    same = [p for p in _r(row, "dense") if languages[p[0]] == row["language"]]
    return metrics.fuse_rankings([same, _r(row, "dense_other")])


Variant = Callable[[dict], Ranking]


def variants() -> dict[str, Variant]:
    def fused(dw: float = 0.25, pw: float = 1.0, ow: float = 0.0, tw: float = 0.0, tpw: float | None = None,
              dense: Callable[[dict], Ranking] | None = None) -> Variant:
        def rank(row: dict) -> Ranking:
            d = dense(row) if dense else _r(row, "dense")
            return metrics.fuse_rankings(
                [_r(row, "lexical"), d, _r(row, "pages"), _r(row, "dense_other"), _r(row, "translated"),
                 _r(row, "translated_pages")],
                weights=[1.0, dw, pw, ow, tw, tw if tpw is None else tpw])
        return rank

    out: dict[str, Variant] = {"current": fused()}
    for dw in (0.25, 0.5, 1.0):
        out[f"per-language dense x {dw}"] = fused(dw=dw, dense=per_language_dense)
    for ow in (0.25, 0.5, 0.75, 1.0):
        out[f"+ other dense x {ow}"] = fused(ow=ow)
    for tw in (0.25, 0.5, 0.75, 1.0):
        out[f"+ translated x {tw}"] = fused(tw=tw)
        out[f"+ translated children only x {tw}"] = fused(tw=tw, tpw=0.0)
    for ow, tw in ((0.25, 0.25), (0.25, 0.5), (0.5, 0.25), (0.5, 0.5), (0.5, 0.75), (0.75, 0.5), (0.75, 0.75),
                   (1.0, 0.5), (1.0, 1.0)):
        out[f"+ other dense x {ow} + translated x {tw}"] = fused(ow=ow, tw=tw)
    for dw, tw in ((0.25, 0.5), (0.5, 0.5), (0.5, 0.75)):
        out[f"per-language dense x {dw} + translated x {tw}"] = fused(dw=dw, tw=tw, dense=per_language_dense)
    return out


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def report(rows: list[dict], label: str, only: Sequence[str] | None = None) -> None:
    groups = {"all": rows, **{g: [r for r in rows if r["group"] == g]
                              for g in ("same language", "cross-lingual", "mixed")}}
    groups = {g: rs for g, rs in groups.items() if rs}
    chosen = {k: v for k, v in variants().items() if only is None or k in only}
    scored = {name: [score(r, rank(r)) for r in rows] for name, rank in chosen.items()}
    index = {id(r): i for i, r in enumerate(rows)}
    print(f"\n== {label}: {', '.join(f'{g} {len(rs)}' for g, rs in groups.items())}")
    for group, members in groups.items():
        idx = [index[id(r)] for r in members]
        print(f"\n{label} / {group} ({len(members)}): means; paired nDCG@10 and hit@5 vs current [95% CI]")
        print(f"{'variant':<48}" + "".join(f"{c:>8}" for c in SHOWN) + "   d nDCG@10              d hit@5")
        base = scored["current"]
        for name, values in scored.items():
            cells = "".join(f"{_mean([values[i][c] for i in idx]):>8.3f}" for c in SHOWN)
            diff = ""
            if name != "current":
                for c in ("ndcg@10", "hit@5"):
                    d = metrics.paired_difference([values[i][c] for i in idx], [base[i][c] for i in idx])
                    diff += f"  {d['mean']:+.3f} [{d['low']:+.3f},{d['high']:+.3f}]"
            print(f"{name:<48}{cells}{diff}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", required=True, help="a copy of the eval_dev.py library")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--pdf-dir", default=str(SHARED / "corpus" / "pdfs"))
    parser.add_argument("--analyse-only", action="store_true")
    parser.add_argument("--variants", help="comma-separated variant names to print (default: all)")
    args = parser.parse_args()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(data_dir=Path(args.data_dir))
    corpus = None
    every: list[dict] = []
    for name in SETS:
        path = out_dir / f"channels_{name}.json"
        if not args.analyse_only:
            if corpus is None:
                pdfs = sorted(p.name for p in Path(args.pdf_dir).glob("*.pdf"))
                corpus = Corpus.load(settings, pdfs, Path(args.pdf_dir))
            path.write_text(json.dumps(collect(name, corpus, settings), ensure_ascii=False), encoding="utf-8")
        rows = json.loads(path.read_text(encoding="utf-8"))
        wrong = [r["id"] for r in rows if r["language"] != r["given_language"]]
        print(f"{name}: {len(rows)} answerable; language detection differs from the set's label on {len(wrong)}"
              + (f" ({', '.join(wrong)})" if wrong else ""))
        report(rows, name, args.variants.split(",") if args.variants else None)
        every += rows
    report([r for r in every if r["group"] == "same language"], "both sets, same language",
           args.variants.split(",") if args.variants else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
