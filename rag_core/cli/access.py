"""`access grant|revoke|show` (grants on collections) and `audit` (the audit trail): their commands
and their registration on the CLI's parser."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from rag_core.access import ROLES
from rag_core.cli.common import context_of


def cmd_grant(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = context_of(args)
    grant = pipeline.grant(
        settings, args.collection, principal=principal, user=args.user, group=args.group, role=args.role
    )
    print(f"{grant.collection}: {grant.subject_kind} {grant.subject} can now {grant.role}.")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings, principal = context_of(args)
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

    settings, principal = context_of(args)
    grants = pipeline.list_grants(settings, principal=principal)
    counts: dict[str, int] = {}
    for record in pipeline.list_documents(settings, principal=principal):
        counts[record.collection] = counts.get(record.collection, 0) + 1
    names = sorted(set(pipeline.manageable_collections(settings, principal=principal)) | {g.collection for g in grants})
    shown: list[dict[str, Any]] = [
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

    settings, principal = context_of(args)
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


def add_access_commands(sub, add) -> None:
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
