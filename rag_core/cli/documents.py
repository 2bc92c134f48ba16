"""The library's own commands: `ingest` (here, or `--queue` for the workers), `documents`, `inspect`,
`delete`, `reindex` and `evaluate`, and their registration on the parser (`rag_core.cli.main`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rag_core.access import Principal
from rag_core.cli.common import page_span, principal_of, print_progress, settings_of
from rag_core.config import Settings
from rag_core.errors import RagError


def cmd_ingest(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    if args.queue:
        from rag_core.cli.jobs import queue_files

        return queue_files(args)
    settings = settings_of(args)
    principal = principal_of(args, settings)
    worst = 0
    for path in args.files:
        for result in pipeline.ingest(
            [Path(path)],
            settings,
            collection=args.collection,
            progress=print_progress,
            principal=principal,
            into_existing=args.into_existing,
        ):
            print(f"{result.status:>16}  {result.file_name}: {result.message}", flush=True)
            if result.record and result.record.warnings:
                for warning in result.record.warnings:
                    print(f"{'warning':>16}  {warning}")
            if result.status == "refused":
                worst = 2
    return worst


def cmd_documents(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = settings_of(args)
    records = pipeline.list_documents(settings, args.collection, principal=principal_of(args, settings))
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in records], ensure_ascii=False, indent=1))
        return 0
    for r in records:
        print(
            f"{r.doc_id[:12]}  {r.collection:<12} {r.language}  {r.pages:>4} p  {r.parents:>4} parents  "
            f"{r.children:>5} children  {r.tables:>3} tables  {r.parser:<8} {r.file_name}"
        )
    if not records:
        print("The library is empty.")
    return 0


def _resolve_doc(prefix: str, settings: Settings, principal: Principal) -> str:
    from rag_core import pipeline

    matches = [
        r.doc_id
        for r in pipeline.list_documents(settings, principal=principal)
        if r.doc_id.startswith(prefix) or r.file_name == prefix
    ]
    if len(matches) != 1:
        raise RagError(f"No single document matches '{prefix}'; see `python -m rag_core documents`.")
    return matches[0]


def cmd_inspect(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = settings_of(args)
    principal = principal_of(args, settings)
    view = pipeline.inspect(_resolve_doc(args.doc, settings, principal), settings, principal=principal)
    if args.json:
        print(json.dumps(view, ensure_ascii=False, indent=1))
        return 0
    doc = view["document"]
    print(f"{doc['file_name']} ({doc['pages']} pages, {doc['language']}, parser {doc['parser']})\n\nSections:")
    for s in view["sections"]:
        print(f"{'  ' * s['level']}{s['title']}")
    print("\nParents:")
    for p in view["parents"]:
        print(
            f"  {p['id']}  p.{page_span(p['pages'])}  {p['tokens']:>5} tok  {p['children']} children  "
            f"{' › '.join(p['section'])}"
        )
    print("\nChildren:")
    for c in view["children"]:
        print(
            f"  {c['id']}  {c['parent_id']}  [{c['start']}:{c['end']}]  {c['tokens']:>3} tok  "
            f"p.{page_span(c['pages'])}  {len(c['boxes'])} boxes"
        )
    print("\nTables:")
    for t in view["tables"]:
        print(f"  {t['ref']}  p.{t['page']}  {t['shape'][0]}x{t['shape'][1]}  {t['caption'] or '(no caption kept)'}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = settings_of(args)
    principal = principal_of(args, settings)
    doc_id = _resolve_doc(args.doc, settings, principal)
    pipeline.delete(doc_id, settings, principal=principal)
    print(f"Deleted {doc_id[:12]}.")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = settings_of(args)
    if args.pages_only:
        count = pipeline.reindex_pages(settings, principal=principal_of(args, settings))
        print(f"page channel rewritten for {count} documents")
        return 0
    for result in pipeline.reindex(settings, progress=print_progress, principal=principal_of(args, settings)):
        print(f"{result.status:>16}  {result.file_name}: {result.message}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rag_core import evaluation

    settings = settings_of(args)
    return evaluation.run_cli(args, settings, principal_of(args, settings))


def add_document_commands(add: Any) -> None:
    """Register the library's commands (`add` gives the common options, `rag_core.cli.common.add_command`)."""
    p = add("ingest", cmd_ingest, "ingest files into the library")
    p.add_argument("files", nargs="+")
    p.add_argument(
        "--collection",
        help="the collection (default: the library's default collection, which only an administrator creates)",
    )
    p.add_argument(
        "--into-existing",
        action="store_true",
        help="add to a collection that another user created "
        "(refused without it, so that nobody's documents land silently in someone else's collection)",
    )
    p.add_argument("--queue", action="store_true", help="queue the files for the workers instead of ingesting here")
    p = add("documents", cmd_documents, "list documents")
    p.add_argument("--collection")
    p.add_argument("--json", action="store_true")
    p = add("inspect", cmd_inspect, "sections, parents, children and tables of one document")
    p.add_argument("doc", help="document id (or a unique prefix) or file name")
    p.add_argument("--json", action="store_true")
    p = add("delete", cmd_delete, "delete a document")
    p.add_argument("doc")
    p = add("reindex", cmd_reindex, "re-embed every document with the configured embedder")
    p.add_argument("--pages-only", action="store_true", help="only rewrite the page channel's rows (no re-embedding)")
    p = add("evaluate", cmd_evaluate, "measure retrieval on a question set")
    p.add_argument("--questions", required=True)
    p.add_argument("--pdf-dir", required=True)
    p.add_argument("--out")
    p.add_argument("--engines", help="comma-separated engines (default: all)")
