"""Command line: `python -m rag_core {ingest,documents,inspect,search,ask,delete,reindex,evaluate,access,audit,
jobs,worker,serve}`.

Every command acts as the local operator (administrator) unless `--as-user EMAIL [--groups G1,G2]`
says whom to act as; it then behaves exactly as the app would for that person. `access
grant|revoke|show` changes and shows grants on collections, `audit` reads the audit trail;
`ingest --queue`, `jobs`, `worker` and `serve` are the upload queue's (`rag_core.jobs.cli`).
Errors meant for the user (`RagError`) are printed without a traceback and give exit code 1;
a refused file in `ingest`, and any refusal of access (`AccessDenied`), give exit code 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import asdict
from pathlib import Path

from rag_core.access import ROLES, Principal, make_principal, split_groups
from rag_core.config import Settings
from rag_core.errors import AccessDenied, InputError, RagError
from rag_core.models import ProgressEvent

LANGUAGE_NAMES = {"fr": "French", "en": "English"}


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(data_dir=Path(args.data_dir)) if getattr(args, "data_dir", None) else Settings()


def principal_of(args: argparse.Namespace, settings: Settings) -> Principal:
    """`--as-user EMAIL [--groups G1,G2]`, administrator when the settings say so; else the local operator."""
    user = getattr(args, "as_user", None)
    groups = getattr(args, "groups", None)
    if not user:
        if groups:
            raise InputError("--groups needs --as-user.")
        return Principal.local_operator()
    return make_principal(user, split_groups(groups), settings)


def _context(args: argparse.Namespace) -> tuple[Settings, Principal]:
    settings = _settings(args)
    return settings, principal_of(args, settings)


def _progress(event: ProgressEvent) -> None:
    if event.total and event.done and (event.done == event.total or event.done % 25 == 0):
        print(
            f"  {event.file_name}: {event.stage} {event.done}/{event.total} {event.message}".rstrip(),
            file=sys.stderr,
            flush=True,
        )


def cmd_ingest(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    if args.queue:
        from rag_core.jobs.cli import queue_files

        return queue_files(args)
    settings = _settings(args)
    principal = principal_of(args, settings)
    worst = 0
    for path in args.files:
        for result in pipeline.ingest(
            [Path(path)],
            settings,
            collection=args.collection,
            progress=_progress,
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

    settings = _settings(args)
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

    settings = _settings(args)
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
            f"  {p['id']}  p.{_pages(p['pages'])}  {p['tokens']:>5} tok  {p['children']} children  "
            f"{' › '.join(p['section'])}"
        )
    print("\nChildren:")
    for c in view["children"]:
        print(
            f"  {c['id']}  {c['parent_id']}  [{c['start']}:{c['end']}]  {c['tokens']:>3} tok  "
            f"p.{_pages(c['pages'])}  {len(c['boxes'])} boxes"
        )
    print("\nTables:")
    for t in view["tables"]:
        print(f"  {t['ref']}  p.{t['page']}  {t['shape'][0]}x{t['shape'][1]}  {t['caption'] or '(no caption kept)'}")
    return 0


def _pages(pages: list[int]) -> str:
    return f"{pages[0]}" if len(pages) == 1 else f"{pages[0]}–{pages[-1]}" if pages else "?"


def cmd_search(args: argparse.Namespace) -> int:
    from rag_core import pipeline, retrieval

    settings = _settings(args)
    result = pipeline.search(
        args.question,
        settings,
        collections=args.collection,
        doc_ids=args.documents,
        k=args.k,
        language=args.language,
        principal=principal_of(args, settings),
    )
    if args.json:
        data = result.model_dump(mode="json")
        for parent in data["parents"]:  # each channel's hit also under its own name, as before `ranks` (null: absent)
            parent.update({c.name: parent["ranks"].get(c.name) for c in retrieval.channels()})
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    if result.expanded_terms:
        print(f"added terms: {', '.join(result.expanded_terms)}")
    if result.translated is not None:
        terms = "; ".join(result.translated.terms + result.translated.kept) or "none"
        print(f"terms searched in the {result.translated.language} documents: {terms}")
        if result.translated.only_other:
            print(f"only the {result.translated.language} documents name: {', '.join(result.translated.only_other)}")
    shown = retrieval.channels()
    print(
        "channels: "
        + ", ".join(f"{c.abbreviation} {c.description}" for c in shown)
        + "; placed: the other language's best passage, placed at its rank"
    )
    for hit in result.parents:
        ranks = " ".join(
            f"{c.abbreviation}#{hit.ranks[c.name].rank}" if c.name in hit.ranks else f"{c.abbreviation} –"
            for c in shown
        )
        ranks += " placed" if hit.placed else ""
        print(
            f"{hit.fused_rank:>2}. {hit.fused_score:.4f} {ranks}  {hit.document.file_name} ({hit.document.language})"
            f" · {hit.parent.section} · p. {_pages(hit.parent.pages)}"
        )
    if not result.parents:
        print("No passage found.")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = _settings(args)
    answer = pipeline.ask(
        args.question,
        settings,
        conversation_id=args.conversation,
        collections=args.collection,
        principal=principal_of(args, settings),
    )
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
    if answer.mode == "refused" and answer.uncited:
        print("\nclosest, not an answer:")
        for src in answer.uncited:
            print(f"   [{src.file_name} · {src.section} · p. {_pages(src.pages)}]")
    for reason in answer.dropped:
        print(f"(dropped: {reason})")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = _settings(args)
    principal = principal_of(args, settings)
    doc_id = _resolve_doc(args.doc, settings, principal)
    pipeline.delete(doc_id, settings, principal=principal)
    print(f"Deleted {doc_id[:12]}.")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = _settings(args)
    for result in pipeline.reindex(settings, progress=_progress, principal=principal_of(args, settings)):
        print(f"{result.status:>16}  {result.file_name}: {result.message}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rag_core import evaluation

    settings = _settings(args)
    return evaluation.run_cli(args, settings, principal_of(args, settings))


# ----- access control: `access grant|revoke|show`, `audit` ------------------------------------
def cmd_grant(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = _context(args)
    grant = pipeline.grant(
        settings, args.collection, principal=principal, user=args.user, group=args.group, role=args.role
    )
    print(f"{grant.collection}: {grant.subject_kind} {grant.subject} can now {grant.role}.")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = _context(args)
    removed = pipeline.revoke(settings, args.collection, principal=principal, user=args.user, group=args.group)
    who = args.user or args.group
    print(
        f"{args.collection}: {who} no longer has {removed.role} access."
        if removed
        else f"{args.collection}: {who} had no grant; nothing changed."
    )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = _context(args)
    grants = pipeline.list_grants(settings, principal=principal)
    counts: dict[str, int] = {}
    for record in pipeline.list_documents(settings, principal=principal):
        counts[record.collection] = counts.get(record.collection, 0) + 1
    names = sorted(set(pipeline.manageable_collections(settings, principal=principal)) | {g.collection for g in grants})
    shown = [
        {
            "collection": name,
            "documents": counts.get(name, 0),
            "grants": [asdict(g) for g in grants if g.collection == name],
        }
        for name in names
    ]
    if args.json:
        print(json.dumps({"collections": shown}, ensure_ascii=False, indent=1))
        return 0
    for entry in shown:
        print(f"{entry['collection']} ({entry['documents']} documents)")
        for g in entry["grants"]:
            print(f"  {g['role']:<7} {g['subject_kind']:<5} {g['subject']}  (by {g['granted_by']}, {g['granted_at']})")
        if not entry["grants"]:
            print("  no grant: administrators only")
    if not shown:
        print("You manage no collection.")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = _context(args)
    filters = {"user": args.user, "since": args.since, "document": args.document}
    if args.csv:
        sys.stdout.buffer.write(pipeline.audit_csv(settings, principal=principal, **filters))
        return 0
    events = pipeline.audit_events(settings, principal=principal, **filters)
    if args.json:
        print(json.dumps(events, ensure_ascii=False, indent=1))
        return 0
    for e in events:
        details = {k: v for k, v in e.items() if k not in ("at", "event", "user", "groups", "admin") and v}
        print(
            f"{e.get('at', '')[:19]}  {e.get('event', ''):<16} {e.get('user', '')}  "
            f"{json.dumps(details, ensure_ascii=False)}"
        )
    if not events:
        print("No event recorded.")
    return 0


def add_access_commands(sub, add) -> None:  # type: ignore[no-untyped-def]
    """Register `access grant|revoke|show` and `audit` on the CLI's subparsers (`add` gives the common options)."""
    access = sub.add_parser("access", help="grants on collections: grant, revoke, show")
    verbs = access.add_subparsers(dest="access_command", required=True)
    for name, func, help_ in (
        ("grant", cmd_grant, "give a user or a group a role on a collection"),
        ("revoke", cmd_revoke, "remove a user's or a group's grant on a collection"),
    ):
        p = add(name, func, help_, verbs)
        p.add_argument("collection")
        who = p.add_mutually_exclusive_group(required=True)
        who.add_argument("--user", metavar="EMAIL")
        who.add_argument("--group", metavar="NAME")
        if name == "grant":
            p.add_argument("--role", choices=ROLES, required=True)
    p = add("show", cmd_show, "the grants of every collection you manage", verbs)
    p.add_argument("--json", action="store_true")
    p = add("audit", cmd_audit, "the audit trail (administrators)")
    p.add_argument("--user", metavar="EMAIL", help="only this user's events")
    p.add_argument("--since", metavar="DATE", help="only events at or after this date (2026-11-03)")
    p.add_argument("--document", metavar="DOC", help="only events naming this document (id or file name)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rag_core", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, func, help_: str, parent=None) -> argparse.ArgumentParser:  # type: ignore[no-untyped-def]
        p = (parent or sub).add_parser(name, help=help_)
        p.add_argument("--data-dir", help="library directory (default: RAG_DATA_DIR or ./data)")
        p.add_argument(
            "--as-user",
            metavar="EMAIL",
            help="act as this user, as the app would (default: the local operator, administrator)",
        )
        p.add_argument("--groups", metavar="G1,G2", help="the groups of --as-user, comma-separated")
        p.set_defaults(func=func)
        return p

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
    p = add("search", cmd_search, "ranked parents for a question")
    p.add_argument("question")
    p.add_argument("--collection", action="append")
    p.add_argument("--documents", nargs="*")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--language", choices=["fr", "en"], help="the question's language (default: detected)")
    p.add_argument(
        "--json",
        action="store_true",
        help="the result as JSON; each parent's hit in every channel is "
        "under `ranks` and, as before, under the channel's name (null when that channel did not find it)",
    )
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
    add_access_commands(sub, add)
    from rag_core.jobs.cli import add_job_commands

    add_job_commands(sub, add)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except AccessDenied as err:
        print(f"refused: {err}", file=sys.stderr)
        return 2
    except RagError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
