"""Question understanding on the development sets: each component with and without, with intervals.

    cp -r /tmp/evaldata /tmp/wt8-data
    HF_HUB_OFFLINE=1 nice -n 10 python -m benchmarks.understanding_dev --data-dir /tmp/wt8-data

Page level (docs/method.md, "Evaluation", as `rag_core.evaluation`'s "hybrid-parents" engine): each channel
returns 100 children, a page takes the rank of its best child, channels are fused by RRF
(k=60) on pages. Variants:
- dense weight w: RRF weights lexical 1.0, dense w;
- thesaurus: the lexical channel with the thesaurus' weighted terms as BM25 boosts: the
  product's (0.95 / 0.85 divided by the number of added terms) or the raw 0.95 / 0.85, or
  with the terms simply appended to the query (unweighted);
- sub-questions (rules, no LLM here): an explicit comparison is searched per sub-question and the
  sub-questions' page rankings are interleaved (each gets its share, as in the product);
- context budget: it does not change the ranking, so it is measured on the product path
  (`retrieval.search`, parents): share of questions whose relevant page lies in the context
  parents, and context size, fixed 3 parents vs the router's 3/5/7.
- reranker: bge-reranker-v2-m3 cannot run here (no weights on disk, no network): not measured.
Means with 95 % bootstrap intervals; paired differences against the baseline on the same
questions. Answerable questions only. Nothing here changes the product's settings.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rag_core import retrieval
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.evaluation import metrics
from rag_core.evaluation.engines import Corpus
from rag_core.evaluation.questions import Question, build_question, load_rows
from rag_core.text import detect_language
from rag_core.understanding.budget import rule_plan
from rag_core.understanding.thesaurus import load_thesaurus

SHARED = Path(os.environ.get("RAG_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
SETS = ("dev_questions", "dev_hard_questions")
PAGE_K = 100
SHOWN = ("hit@3", "ndcg@10")


def interleave(rankings: Sequence[Sequence]) -> list:
    """Round-robin merge, each key at its first position: every sub-question gets its share."""
    out, seen = [], set()
    for i in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if i < len(ranking) and ranking[i] not in seen:
                seen.add(ranking[i])
                out.append(ranking[i])
    return out


class Runner:
    def __init__(self, corpus: Corpus, thesaurus) -> None:
        self.corpus = corpus
        self.thesaurus = thesaurus
        self.embedder = corpus.embedder()

    def channels(self, text: str, extra: Sequence[tuple[str, float]] = ()) -> tuple[list, list]:
        c = self.corpus
        vector = self.embedder.embed_query(text)
        ch = retrieval.run_channels(text, vector, c.store, c.scope, PAGE_K, detect_language(text), extra)
        return c.pages_of(ch.children("lexical")), c.pages_of(ch.children("dense"))

    def lexical_pages_weighted(self, text: str, language: str, terms: Sequence[tuple[str, float]]) -> list:
        return self.corpus.pages_of(self.corpus.store.lexical(text, language, self.corpus.scope, PAGE_K, terms))

    def lexical_pages(self, text: str, language: str) -> list:
        return self.corpus.pages_of(self.corpus.store.lexical(text, language, self.corpus.scope, PAGE_K))

    def rankings(self, q: Question, dense_weights: Sequence[float]) -> dict[str, list]:
        text = q.question
        language = detect_language(text)
        lex, den = self.channels(text)
        expansion = self.thesaurus.expand(text) if self.thesaurus else None
        terms = expansion.terms if expansion else ()
        lex_t = self.channels(text, expansion.lexical_terms)[0] if expansion and terms else lex
        lex_raw = self.lexical_pages_weighted(text, language, terms) if terms else lex
        lex_a = self.lexical_pages(text + " " + " ".join(t for t, _ in terms), language) if terms else lex
        subs = rule_plan(text, self.corpus.settings).sub_questions
        sub_channels = [self.channels(s) for s in subs]
        sub_channels_t = [
            self.channels(s, self.thesaurus.expand(s).lexical_terms if self.thesaurus else ()) for s in subs
        ]
        out: dict[str, list] = {}
        for w in dense_weights:
            fuse = lambda a, b, w=w: metrics.fuse_rankings([a, b], weights=[1.0, w])  # noqa: E731
            tag = f"dense {w:g}"
            out[f"{tag}"] = fuse(lex, den)
            out[f"{tag} + thesaurus (product: boosts / n)"] = fuse(lex_t, den)
            out[f"{tag} + thesaurus (raw 0.95/0.85 boosts)"] = fuse(lex_raw, den)
            out[f"{tag} + thesaurus (appended)"] = fuse(lex_a, den)
            out[f"{tag} + sub-questions"] = (
                interleave([fuse(a, b) for a, b in sub_channels]) if subs else fuse(lex, den)
            )
            out[f"{tag} + thesaurus + sub-questions"] = (
                interleave([fuse(a, b) for a, b in sub_channels_t]) if subs else fuse(lex_t, den)
            )
        out["_split"] = [bool(subs)]
        out["_expanded"] = [bool(terms)]
        return out


def context_measures(q: Question, corpus: Corpus, settings: Settings, thesaurus) -> dict[str, float]:
    """Relevant page inside the context parents, fixed 3 vs routed budget (product path)."""
    terms = thesaurus.expand(q.question).lexical_terms if thesaurus else ()
    result = retrieval.search(
        q.question, corpus.store, corpus.embedder(), settings, corpus.scope, k=10, extra_terms=terms
    )
    plan = rule_plan(q.question, settings)
    out = {}
    for name, n in (("fixed 3", 3), ("routed", plan.parents)):
        parents = result.parents[:n]
        pages = {(p.document.file_name, page) for p in parents for page in p.parent.pages}
        out[f"context hit, {name}"] = float(any(q.relevant.get(pg, 0) > 0 for pg in pages))
        out[f"context tokens, {name}"] = float(sum(p.parent.tokens for p in parents))
    out["budget"] = float(plan.parents)
    return out


def fmt(ci: dict) -> str:
    return f"{ci['mean']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]"


def report(
    name: str, per_q: list[dict[str, list]], questions: list[Question], baseline: str, extra: list[dict[str, float]]
) -> None:
    variants = [k for k in per_q[0] if not k.startswith("_")]
    scores = {v: [metrics.rank_metrics(r[v], q.relevant) for r, q in zip(per_q, questions)] for v in variants}
    split = sum(r["_split"][0] for r in per_q)
    expanded = sum(r["_expanded"][0] for r in per_q)
    print(
        f"\n{name}: {len(questions)} answerable questions ({expanded} expanded by the thesaurus, {split} split "
        f"into sub-questions); mean [95% bootstrap CI]; paired difference vs '{baseline}'"
    )
    print(f"{'variant':<44}" + "".join(f"{c:>26}" for c in SHOWN) + "".join(f"{'Δ ' + c:>30}" for c in SHOWN))
    for v in variants:
        cells = "".join(f"{fmt(metrics.bootstrap_ci([s[c] for s in scores[v]])):>26}" for c in SHOWN)
        diffs = ""
        for c in SHOWN:
            d = metrics.paired_difference([s[c] for s in scores[v]], [s[c] for s in scores[baseline]])
            diffs += f"{d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]".rjust(30)
        print(f"{v:<44}{cells}{diffs}")
    report_context(extra)


def report_context(extra: list[dict[str, float]]) -> None:
    print("context budget (product path, parents; dense weight and thesaurus as configured):")
    for key in (
        "context hit, fixed 3",
        "context hit, routed",
        "context tokens, fixed 3",
        "context tokens, routed",
        "budget",
    ):
        print(f"  {key:<30} {fmt(metrics.bootstrap_ci([e[key] for e in extra]))}")
    d = metrics.paired_difference([e["context hit, routed"] for e in extra], [e["context hit, fixed 3"] for e in extra])
    print(f"  {'Δ context hit routed - fixed':<30} {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default="/tmp/wt8-data")
    parser.add_argument("--pdf-dir", default=str(SHARED / "corpus" / "pdfs"))
    parser.add_argument("--dense-weights", default="1,0.5,0.25")
    parser.add_argument("--context-dense-weight", type=float, help="retrieval.dense_weight for the context measure")
    parser.add_argument("--context-only", action="store_true", help="only the context-budget measure")
    args = parser.parse_args()
    settings = Settings(data_dir=Path(args.data_dir))
    if args.context_dense_weight is not None:
        settings = settings.model_copy(
            update={"retrieval": settings.retrieval.model_copy(update={"dense_weight": args.context_dense_weight})}
        )
    weights = [float(w) for w in args.dense_weights.split(",")]
    pdfs = sorted(p.name for p in Path(args.pdf_dir).glob("*.pdf"))
    corpus = Corpus.load(settings, pdfs, Path(args.pdf_dir), principal=Principal.local_operator())
    forced = settings.model_copy(
        update={"understanding": settings.understanding.model_copy(update={"thesaurus": True})}
    )
    thesaurus = load_thesaurus(forced)
    runner = Runner(corpus, thesaurus)
    for name in SETS:
        questions = [build_question(row, corpus.page_text) for row in load_rows(SHARED / "eval" / f"{name}.jsonl")]
        questions = [q for q in questions if q.answerable and all(p in pdfs for p in q.pdfs)]
        extra = [
            context_measures(q, corpus, settings, thesaurus if settings.understanding.thesaurus else None)
            for q in questions
        ]
        if args.context_only:
            print(f"\n{name}: {len(questions)} answerable questions")
            report_context(extra)
            continue
        per_q = [runner.rankings(q, weights) for q in questions]
        report(name, per_q, questions, f"dense {weights[0]:g}", extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
