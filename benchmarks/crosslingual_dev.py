"""Cross-lingual retrieval on the development sets: the experiments behind the cross-lingual search
(`rag_core.retrieval`).

    HF_HUB_OFFLINE=1 python -m benchmarks.crosslingual_dev --data-dir COPY_OF_EVALDATA --out-dir DIR

The library is the one `benchmarks/eval_dev.py` builds (all 19 corpus PDFs). For every
answerable question of both sets it runs the channels once at page level (as the evaluation's
`hybrid-parents` engine does, 100 children per channel), with the question's language detected
as in the product, and saves their page rankings and the evidence ratio (`channels_<set>.json`;
`--analyse-only` re-reads them). Then it re-fuses the rankings offline:
- "current": lexical + 0.25 x dense + pages (the default before cross-lingual search);
- "per-language dense": the dense channel run per document language, each language's documents
  ranked on their own, fused by RRF, in place of the dense channel (the simple design);
- "dense centred / z": one dense ranking with each language's cosines centred (standardised)
  on their mean for the question: the same-language pull taken as a per-language offset;
- "+ other dense / translated": the other language's channels as extra RRF votes;
- "folded": the translated terms added to the question's own BM25 queries at that boost;
- "placed": the other language's documents ranked on their own (dense x w_o, translated terms'
  BM25 over children and pages x 1) and their best page placed at rank s when the evidence
  ratio reaches r or a question term is named only by the other language's documents
  (`understanding.term_presence`), else at rank w ("placed at s / w, ratio r"); the product's
  default is 2 / 5, ratio 2; "ratio 2 only" leaves the term out. Two cheaper variants (the
  translated terms' two full-text queries are what the cross-lingual search costs): the pages'
  query only, with the evidence ratio taken on pages;
  and shorter translated queries (each word once, or each term's preferred form only).
The variants themselves are in `crosslingual_variants.py`.
Last, it prints `crosslingual_frontier.py`'s table: placement rules against the four targets at once.
Questions are grouped as "same language" (every relevant PDF in the question's language),
"cross-lingual" (none) or "mixed"; doc@3 is 1 when a relevant PDF is among the first three
distinct documents of the page ranking. Paired differences against "current" on the same
questions, 95 % bootstrap; the product's choice is also compared with what each of its parts
adds. Nothing here changes the product's defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.crosslingual_variants import FOLD_WEIGHTS, PARTS, PRODUCT, Ranking, mean, score, variants
from rag_core import retrieval, understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.evaluation import load_rows, metrics
from rag_core.evaluation.engines import PAGE_CANDIDATE_K, Corpus
from rag_core.evaluation.questions import build_question
from rag_core.store import ChildHit
from rag_core.store.channels import lexical_query
from rag_core.text import detect_language
from rag_core.understanding.term_presence import term_presence

SHARED = Path(os.environ.get("RAG_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
SETS = ("dev_questions", "dev_hard_questions")
# ranking key in the rows (kept from earlier runs) -> search channel (`rag_core.retrieval.channels()`)
CHANNELS = {
    "lexical": "lexical",
    "dense": "dense",
    "pages": "page",
    "dense_other": "dense_other",
    "translated": "translated",
    "translated_pages": "translated_page",
}
SHOWN = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "doc@3")


def collect(name: str, corpus: Corpus, settings: Settings, path: Path | None = None) -> list[dict]:
    """Every channel's page ranking for each answerable question of one set (`path`: another
    question file in the dev sets' format than shared/eval's `name`)."""
    languages = {r.file_name: r.language for r in corpus.records.values()}
    languages_of_docs = {doc_id: r.language for doc_id, r in corpus.records.items()}
    embedder = corpus.embedder()
    out = []
    for row in load_rows(path or SHARED / "eval" / f"{name}.jsonl"):
        q = build_question(row, corpus.page_text)
        if not q.answerable or any(pdf not in languages for pdf in q.pdfs):
            continue
        language = detect_language(q.question)
        translation = understanding.translation(q.question, language, settings)
        other = retrieval.other_language(languages_of_docs, corpus.scope, language, translation)
        found = retrieval.run_channels(
            q.question,
            embedder.embed_query(q.question),
            corpus.store,
            corpus.scope,
            PAGE_CANDIDATE_K,
            language,
            other=other,
        )
        rankings: dict[str, Ranking] = {}
        for key, channel in CHANNELS.items():
            on_pages = retrieval.channels("pages")
            rankings[key] = (
                corpus.pages_of_pages(found.pages(channel))
                if channel in [c.name for c in on_pages]
                else corpus.pages_of(found.children(channel))
            )
        split_ratio = 0.0
        if translation is not None and translation.pairs:  # one BM25 query, its hits split by language
            combined = " ".join([q.question] + [f for _, forms in translation.pairs for f in forms])
            hits = corpus.store.lexical(combined, language, corpus.scope, 2 * PAGE_CANDIDATE_K)
            pages = corpus.store.page_lexical(combined, language, corpus.scope, 2 * PAGE_CANDIDATE_K)
            for side, keep in (
                ("same", lambda d: languages_of_docs[d] == language),
                ("other", lambda d: languages_of_docs[d] != language),
            ):
                rankings[f"lexical_split_{side}"] = corpus.pages_of([h for h in hits if keep(h.doc_id)])
                rankings[f"pages_split_{side}"] = corpus.pages_of_pages([h for h in pages if keep(h.doc_id)])
            own = next((h.score for h in hits if languages_of_docs[h.doc_id] == language), 0.0)
            theirs = next((h.score for h in hits if languages_of_docs[h.doc_id] != language), 0.0)
            split_ratio = min(theirs / own if own > 0 else (1e9 if theirs > 0 else 0.0), 1e9)
        ratios, page_scores = {}, {}
        if other is not None and other.translation is not None:  # shorter translated queries (cost per query)
            their_docs = set(other.scope)
            for short, text in shorter_queries(other.translation).items():
                hits = [
                    h
                    for h in corpus.store.lexical(text, other.language, corpus.scope, 2 * PAGE_CANDIDATE_K)
                    if h.doc_id in their_docs
                ][:PAGE_CANDIDATE_K]
                pages = [
                    h
                    for h in corpus.store.page_lexical(text, other.language, corpus.scope, 2 * PAGE_CANDIDATE_K)
                    if h.doc_id in their_docs
                ]
                rankings[f"translated_{short}"] = corpus.pages_of(hits)
                rankings[f"translated_pages_{short}"] = corpus.pages_of_pages(pages[:PAGE_CANDIDATE_K])
                ratios[short] = min(
                    retrieval.evidence_ratio(found.children("lexical"), hits, languages_of_docs, language), 1e9
                )
                page_scores[short] = pages[0].score if pages else 0.0
        for name, hits in centred_dense(corpus, q.question, language).items():
            rankings[name] = corpus.pages_of(hits)
        folded = translation.query if translation is not None else ""
        for weight in FOLD_WEIGHTS if folded else ():
            extra = [(folded, weight)]
            rankings[f"lexical+{weight}"] = corpus.pages_of(
                corpus.store.lexical(q.question, language, corpus.scope, PAGE_CANDIDATE_K, extra)
            )
            rankings[f"pages+{weight}"] = corpus.pages_of_pages(
                corpus.store.page_lexical(q.question, language, corpus.scope, PAGE_CANDIDATE_K, extra)
            )
        doc_languages = {languages[pdf] for pdf in q.pdfs}
        group = (
            "same language"
            if doc_languages == {language}
            else "cross-lingual"
            if language not in doc_languages
            else "mixed"
        )
        out.append(
            {
                "id": q.id,
                "question": q.question,
                "given_language": q.language,
                "language": language,
                "group": group,
                "pdfs": list(q.pdfs),
                "relevant": [[pdf, page, g] for (pdf, page), g in sorted(q.relevant.items())],
                "translated": translation.shown() if translation else [],
                "rankings": rankings,
                "split_ratio": split_ratio,
                "ratio": min(
                    retrieval.evidence_ratio(
                        found.children("lexical"), found.children("translated"), languages_of_docs, language
                    ),
                    1e9,
                ),
                "page_ratio": min(
                    retrieval.evidence_ratio(
                        found["page"],  # type: ignore[arg-type]  # pages carry the score and doc_id it reads
                        found["translated_page"],  # type: ignore[arg-type]
                        languages_of_docs,
                        language,
                    ),
                    1e9,
                ),
                "page_language": {pdf: languages[pdf] for pdf in languages},
                **{f"ratio_{short}": value for short, value in ratios.items()},
                **{f"page_score_{short}": value for short, value in page_scores.items()},
                "page_score": found["translated_page"][0].score if found["translated_page"] else 0.0,
                "own_page_scores": [h.score for h in found["page"] if languages_of_docs[h.doc_id] == language],
                "only_other_terms": term_presence(settings, corpus.scope).only_other_language(
                    translation, languages_of_docs, corpus.scope
                ),
            }
        )
    return out


def shorter_queries(translation) -> dict[str, str]:
    """The translated query with each word once ("distinct"), or with each term's preferred form
    only ("preferred"): a full-text query costs about 2 ms per word at 10k children."""
    words = lexical_query(translation.query).split()
    preferred = " ".join([forms[0] for _, forms in translation.pairs] + list(translation.kept))
    return {"distinct": " ".join(dict.fromkeys(words)), "preferred": preferred}


def centred_dense(corpus: Corpus, question: str, language: str, k: int = PAGE_CANDIDATE_K) -> dict[str, list]:
    """The dense channel over every document with each document language's cosines centred on
    their mean for this question ("dense_centred") or standardised ("dense_z"): the same-language
    pull is a per-language offset of the cosines."""
    store = corpus.store
    store.dense(corpus.embedder().embed_query(question), corpus.scope, 1)  # loads the in-memory vectors
    vectors = store._vectors  # an experiment on the exact scores
    assert vectors is not None, "the dense search above loads them"
    vector = corpus.embedder().embed_query(question)
    sims = vectors.matrix @ (vector / np.linalg.norm(vector))
    languages = np.array([corpus.records[d].language for d in vectors.doc_ids])
    out = {}
    for name in ("dense_centred", "dense_z"):
        adjusted = sims.copy()
        for lang in set(languages):
            mask = languages == lang
            adjusted[mask] -= sims[mask].mean()
            if name == "dense_z":
                adjusted[mask] /= sims[mask].std() or 1.0
        top = np.argsort(-adjusted)[:k]
        out[name] = [
            ChildHit(vectors.ids[i], vectors.parent_ids[i], vectors.doc_ids[i], float(adjusted[i])) for i in top
        ]
    return out


def report(rows: list[dict], label: str, only: Sequence[str] | None = None) -> None:
    groups = {
        "all": rows,
        **{g: [r for r in rows if r["group"] == g] for g in ("same language", "cross-lingual", "mixed")},
    }
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
            cells = "".join(f"{mean([values[i][c] for i in idx]):>8.3f}" for c in SHOWN)
            diff = ""
            if name != "current":
                for c in ("ndcg@10", "hit@5"):
                    d = metrics.paired_difference([values[i][c] for i in idx], [base[i][c] for i in idx])
                    diff += f"  {d['mean']:+.3f} [{d['low']:+.3f},{d['high']:+.3f}]"
            print(f"{name:<48}{cells}{diff}")


def parts(rows: list[dict], label: str) -> None:
    """What each part of the product's choice adds: paired product - ablation, 95 % bootstrap."""
    every = variants()
    product = [score(r, every[PRODUCT](r)) for r in rows]
    print(f"\n{label} ({len(rows)}): product - ablation, paired [95% CI]")
    for what, name in PARTS.items():
        ablated = [score(r, every[name](r)) for r in rows]
        cells = []
        for c in ("hit@5", "ndcg@10", "doc@3"):
            d = metrics.paired_difference([v[c] for v in product], [v[c] for v in ablated])
            cells.append(f"{c} {d['mean']:+.3f} [{d['low']:+.3f},{d['high']:+.3f}]")
        print(f"  {what:<42} " + "  ".join(cells))


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
                corpus = Corpus.load(settings, pdfs, Path(args.pdf_dir), principal=Principal.local_operator())
            path.write_text(json.dumps(collect(name, corpus, settings), ensure_ascii=False), encoding="utf-8")
        rows = [{**r, "set": name} for r in json.loads(path.read_text(encoding="utf-8"))]
        wrong = [r["id"] for r in rows if r["language"] != r["given_language"]]
        print(
            f"{name}: {len(rows)} answerable; language detection differs from the set's label on {len(wrong)}"
            + (f" ({', '.join(wrong)})" if wrong else "")
        )
        report(rows, name, args.variants.split(",") if args.variants else None)
        every += rows
    same = [r for r in every if r["group"] == "same language"]
    report(same, "both sets, same language", args.variants.split(",") if args.variants else None)
    parts([r for r in every if r["group"] == "cross-lingual"], "cross-lingual questions")
    parts(same, "same-language questions, both sets")
    # The placement rules' table, from the rankings just saved: its own script (it imports this one).
    frontier = Path(__file__).with_name("crosslingual_frontier.py")
    subprocess.run([sys.executable, str(frontier), "--out-dir", str(out_dir)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
