"""`search` (ranked parents for a question) and `ask` (an answer with checked citations), printed
for a person or as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rag_core.cli.common import page_span, principal_of, settings_of
from rag_core.models import Answer

LANGUAGE_NAMES = {"fr": "French", "en": "English"}


def cmd_search(args: argparse.Namespace) -> int:
    from rag_core import pipeline, retrieval

    settings = settings_of(args)
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
            f" · {hit.parent.section} · p. {page_span(hit.parent.pages)}"
        )
    if not result.parents:
        print("No passage found.")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = settings_of(args)
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
                print(f"   [{src.file_name} · {src.section} · p. {page_span(src.pages)}]")
        for n in para.numbers:
            if n.status != "quoted":  # quoted numbers are the rule; say only what needs a look
                print(f"   {n.text}: {n.status} ({n.reason})")
    if answer.missing_information:
        print(f"\n{answer.missing_information}")
    if answer.mode == "refused" and answer.uncited:
        print("\nclosest, not an answer:")
        for src in answer.uncited:
            print(f"   [{src.file_name} · {src.section} · p. {page_span(src.pages)}]")
    for reason in answer.dropped:
        print(f"(dropped: {reason})")
    print("\n" + answer_figures(answer))
    return 0


def answer_figures(answer: Answer) -> str:
    """The line under every answer: seconds, and for a model's answer its dialect and tokens (the server's
    count, or the local estimate, said so)."""
    parts = [f"{answer.elapsed_s:.1f} s"]
    if answer.first_paragraph_s:
        parts.append(f"first paragraph {answer.first_paragraph_s:.1f} s")
    if answer.mode == "llm" or answer.prompt_tokens or answer.dialect:
        counted = "estimated" if answer.tokens_estimated else "counted by the server"
        parts.append(f"dialect {answer.dialect or 'none'}")
        parts.append(f"tokens {answer.prompt_tokens} in, {answer.completion_tokens} out ({counted})")
    if answer.fallback:
        parts.append(f"model answer not used: {answer.fallback}")
    return "(" + " · ".join(parts) + ")"


def add_question_commands(add: Any) -> None:
    """Register `search` and `ask` (`add` gives the common options, `rag_core.cli.common.add_command`)."""
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
    p.add_argument(
        "--conversation",
        default=None,
        help="carry on this conversation (follow-ups are read against its last questions); "
        "without it every question stands alone",
    )
    p.add_argument("--json", action="store_true")
