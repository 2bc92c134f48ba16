"""Command line: `python -m rag_core {ingest,documents,inspect,search,ask,delete,reindex,evaluate}`.

Errors meant for the user (`RagError`) are printed without a traceback and give exit code 1;
a refused file in `ingest` gives exit code 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from rag_core.config import Settings
from rag_core.errors import RagError
from rag_core.models import ProgressEvent

LANGUAGE_NAMES = {"fr": "French", "en": "English"}


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(data_dir=Path(args.data_dir)) if getattr(args, "data_dir", None) else Settings()


def _progress(event: ProgressEvent) -> None:
    if event.total and event.done and (event.done == event.total or event.done % 25 == 0):
        print(f"  {event.file_name}: {event.stage} {event.done}/{event.total} {event.message}".rstrip(),
              file=sys.stderr, flush=True)


def cmd_ingest(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = _settings(args)
    worst = 0
    for path in args.files:
        for result in pipeline.ingest([Path(path)], settings, collection=args.collection, progress=_progress):
            print(f"{result.status:>16}  {result.file_name}: {result.message}", flush=True)
            if result.record and result.record.warnings:
                for warning in result.record.warnings:
                    print(f"{'warning':>16}  {warning}")
            if result.status == "refused":
                worst = 2
    return worst


def cmd_documents(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    records = pipeline.list_documents(_settings(args), args.collection)
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in records], ensure_ascii=False, indent=1))
        return 0
    for r in records:
        print(f"{r.doc_id[:12]}  {r.collection:<12} {r.language}  {r.pages:>4} p  {r.parents:>4} parents  "
              f"{r.children:>5} children  {r.tables:>3} tables  {r.parser:<8} {r.file_name}")
    if not records:
        print("The library is empty.")
    return 0


def _resolve_doc(prefix: str, settings: Settings) -> str:
    from rag_core import pipeline

    matches = [r.doc_id for r in pipeline.list_documents(settings) if r.doc_id.startswith(prefix)
               or r.file_name == prefix]
    if len(matches) != 1:
        raise RagError(f"No single document matches '{prefix}'; see `python -m rag_core documents`.")
    return matches[0]


def cmd_inspect(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = _settings(args)
    view = pipeline.inspect(_resolve_doc(args.doc, settings), settings)
    if args.json:
        print(json.dumps(view, ensure_ascii=False, indent=1))
        return 0
    doc = view["document"]
    print(f"{doc['file_name']} ({doc['pages']} pages, {doc['language']}, parser {doc['parser']})\n\nSections:")
    for s in view["sections"]:
        print(f"{'  ' * s['level']}{s['title']}")
    print("\nParents:")
    for p in view["parents"]:
        print(f"  {p['id']}  p.{_pages(p['pages'])}  {p['tokens']:>5} tok  {p['children']} children  "
              f"{' › '.join(p['section'])}")
    print("\nChildren:")
    for c in view["children"]:
        print(f"  {c['id']}  {c['parent_id']}  [{c['start']}:{c['end']}]  {c['tokens']:>3} tok  "
              f"p.{_pages(c['pages'])}  {len(c['boxes'])} boxes")
    print("\nTables:")
    for t in view["tables"]:
        print(f"  {t['ref']}  p.{t['page']}  {t['shape'][0]}x{t['shape'][1]}  {t['caption'] or '(no caption kept)'}")
    return 0


def _pages(pages: list[int]) -> str:
    return f"{pages[0]}" if len(pages) == 1 else f"{pages[0]}–{pages[-1]}" if pages else "?"


def cmd_search(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    result = pipeline.search(args.question, _settings(args), collections=args.collection,
                             doc_ids=args.documents, k=args.k, language=args.language)
    if args.json:
        print(result.model_dump_json(indent=1))
        return 0
    if result.expanded_terms:
        print(f"added terms: {', '.join(result.expanded_terms)}")
    if result.translated is not None:
        terms = "; ".join(result.translated.terms + result.translated.kept) or "none"
        print(f"terms searched in the {result.translated.language} documents: {terms}")
    print("channels: L lexical, D dense, P pages, O dense over the other language's documents, T translated terms")
    for hit in result.parents:
        ranks = " ".join(f"{name}#{ch.rank}" if ch else f"{name} –" for name, ch in (
            ("L", hit.lexical), ("D", hit.dense), ("P", hit.page), ("O", hit.dense_other), ("T", hit.translated)))
        print(f"{hit.fused_rank:>2}. {hit.fused_score:.4f} {ranks}  {hit.document.file_name} ({hit.document.language})"
              f" · {hit.parent.section} · p. {_pages(hit.parent.pages)}")
    if not result.parents:
        print("No passage found.")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    answer = pipeline.ask(args.question, _settings(args), conversation_id=args.conversation,
                          collections=args.collection)
    if args.json:
        print(answer.model_dump_json(indent=1))
        return 0
    by_id = {s.id: s for s in answer.sources}
    print(f"[{answer.mode}{' · ' + answer.model if answer.model else ''}]")
    if answer.standalone_question:
        print(f"understood as: {answer.standalone_question}")
    if answer.budget:
        print(f"context: {answer.budget} parents ({answer.budget_reason})")
    for warning in answer.warnings:
        print(f"! {warning}")
    heading = ""
    for para in answer.paragraphs:
        if para.sub_question and para.sub_question != heading:
            heading = para.sub_question
            print(f"\n## {heading}")
        mark = "" if para.status == "supported" else "  [partially supported: " + para.note + "]"
        written = f"[passage in {LANGUAGE_NAMES.get(para.language, para.language)}] " if para.language else ""
        print(f"\n{written}{para.text}{mark}")
        for sid in para.source_ids:
            src = by_id.get(sid)
            if src:
                print(f"   [{src.file_name} · {src.section} · p. {_pages(src.pages)}]")
        for n in para.numbers:
            if n.status != "quoted":  # quoted numbers are the rule; say only what needs a look
                print(f"   {n.text}: {n.status} ({n.reason})")
    if answer.missing_information:
        print(f"\n{answer.missing_information}")
    for reason in answer.dropped:
        print(f"(dropped: {reason})")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = _settings(args)
    doc_id = _resolve_doc(args.doc, settings)
    pipeline.delete(doc_id, settings)
    print(f"Deleted {doc_id[:12]}.")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    for result in pipeline.reindex(_settings(args), progress=_progress):
        print(f"{result.status:>16}  {result.file_name}: {result.message}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rag_core import evaluation

    return evaluation.run_cli(args, _settings(args))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rag_core", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, func, help_: str) -> argparse.ArgumentParser:  # type: ignore[no-untyped-def]
        p = sub.add_parser(name, help=help_)
        p.add_argument("--data-dir", help="library directory (default: RAG_DATA_DIR or ./data)")
        p.set_defaults(func=func)
        return p

    p = add("ingest", cmd_ingest, "ingest files into the library")
    p.add_argument("files", nargs="+")
    p.add_argument("--collection", default="default")
    p = add("documents", cmd_documents, "list documents")
    p.add_argument("--collection")
    p.add_argument("--json", action="store_true")
    p = add("inspect", cmd_inspect, "sections, parents, children and tables of one document")
    p.add_argument("doc", help="document id (or a unique prefix) or file name")
    p.add_argument("--json", action="store_true")
    p = add("search", cmd_search, "ranked parents for a question")
    p.add_argument("question")
    p.add_argument("--collection", action="append")
    p.add_argument("--documents", nargs="*")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--language", choices=["fr", "en"], help="the question's language (default: detected)")
    p.add_argument("--json", action="store_true")
    p = add("ask", cmd_ask, "answer a question with checked citations")
    p.add_argument("question")
    p.add_argument("--collection", action="append")
    p.add_argument("--conversation", default="cli")
    p.add_argument("--json", action="store_true")
    p = add("delete", cmd_delete, "delete a document")
    p.add_argument("doc")
    add("reindex", cmd_reindex, "re-embed every document with the configured embedder")
    p = add("evaluate", cmd_evaluate, "measure retrieval on a question set")
    p.add_argument("--questions", required=True)
    p.add_argument("--pdf-dir", required=True)
    p.add_argument("--out")
    p.add_argument("--engines", help="comma-separated engines (default: all)")
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except RagError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
