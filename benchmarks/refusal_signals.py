"""What the product saw when it answered or refused: each question's retrieval signals, for fitting a refusal rule.

    HF_HUB_OFFLINE=1 nice python -m benchmarks.refusal_signals --data-dir LIBRARY --out signals.json Q.jsonl

Each question is asked through `pipeline.ask` (no language model), within its own PDF when the row
names one (`pdf` or `scope_pdf`), as `pages_and_refusals` asks it. The searches of the question path
(`question.flow.retrieve`) are recorded as they ran, and for each (sub-)question this writes: the term
check's terms (kind, words, how many passages of the scope mention each, up to `COUNT_LIMIT`, and which of
the context passages mention it), the first parents' fused score and their place and score in every
channel, the number of passages in scope, and the product's decision (refused, why, the terms named);
with `--texts N`, the best passage (child) of the first N context parents, as indexed (for scoring a reader offline:
`benchmarks/refusal_reader.py`).
`benchmarks/refusal_fit.py` reads these files. A row is answerable when it has `pages` or `evidence`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering.coverage import mentions, passage_text
from rag_core.config import Settings
from rag_core.evaluation import load_rows
from rag_core.question import flow
from rag_core.question.context import QuestionContext
from rag_core.question.retrieving import Retrieved
from rag_core.reranking import Reranker
from rag_core.text import fold

LOCAL = Principal.local_operator()
COUNT_LIMIT = 400  # passages counted per term form (the term check itself stops at a dozen)
PARENTS = 10
TEXT_CHARS = 2000  # a recorded passage's text (the parent's best child, as indexed), for a reader


def _count(ctx: QuestionContext, forms: tuple[tuple[str, ...], ...]) -> int:
    assert ctx.library is not None
    best = 0
    for form in forms:
        texts = ctx.library.lookup(form, COUNT_LIMIT) or []
        best = max(best, len(texts) if len(form) == 1 else mentions(form, texts))
    return best


def signals(ctx: QuestionContext, got: Retrieved, texts: int = 0) -> dict[str, Any]:
    """One (sub-)question's record (see the module docstring); `texts` context passages' text too."""
    share = got.sub.parents
    context = [fold(passage_text(h)) for h in got.result.parents[:share]]
    coverage = got.coverage
    terms = []
    for term in coverage.terms if coverage is not None else ():
        held = [any(mentions(f, [text]) for f in term.forms) for text in context]
        terms.append(
            {
                "text": term.text,
                "kind": term.kind,
                "words": list(term.words),
                "library": _count(ctx, term.forms),
                "held": held,
            }  # fmt: skip
        )
    parents = [
        {
            "fused": h.fused_score,
            "doc": h.document.file_name,
            "placed": h.placed,
            "ranks": {c: [r.rank, r.score] for c, r in h.ranks.items()},
        }  # fmt: skip
        for h in got.result.parents[:PARENTS]
    ]
    return {
        "question": got.sub.question,
        "share": share,
        "scope_passages": ctx.library.passages if ctx.library is not None else 0,
        "terms": terms,
        "missing": list(coverage.missing) if coverage else [],
        "apart": list(coverage.apart) if coverage else [],
        "not_retrieved": list(coverage.not_retrieved) if coverage else [],
        "parents": parents,
        "texts": [h.best_child.context_text[:TEXT_CHARS] for h in got.result.parents[: min(share, texts)]],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--texts", type=int, default=0, help="record the first N context passages' text")
    args = parser.parse_args()
    settings = Settings(data_dir=args.data_dir)
    recorded: list[dict[str, Any]] = []
    original = flow.retrieve

    def spy(ctx: QuestionContext, question: str, share: int, reranker: Reranker | None) -> Retrieved:
        got = original(ctx, question, share, reranker)
        recorded.append(signals(ctx, got, args.texts))
        return got

    flow.retrieve = spy  # the benchmark records the searches as they ran
    ids = {r.file_name: r.doc_id for r in pipeline.list_documents(settings, principal=LOCAL)}
    out = []
    for row in load_rows(args.questions):
        recorded.clear()
        pdf = row.get("pdf") or row.get("scope_pdf")
        scope = [ids[pdf]] if isinstance(pdf, str) and pdf in ids else None
        answer = pipeline.ask(row["question"], settings, doc_ids=scope, principal=LOCAL)
        out.append(
            {
                "id": row.get("id"),
                "answerable": bool(row.get("pages") or row.get("evidence")),
                "refused": answer.mode == "refused",
                "missing_terms": list(answer.missing_terms),
                "message": answer.missing_information if answer.mode == "refused" else "",
                "subs": list(recorded),
            }  # fmt: skip
        )
        print(row.get("id"), out[-1]["refused"], flush=True)
    args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
