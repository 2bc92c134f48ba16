"""Model answers against the extractive default, with a real small model, paired question by question.

    .venv/bin/python -m benchmarks.model_answers --set LIBRARY_DIR:QUESTIONS.jsonl:N [--set ...]
        [--gguf models/reader/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf] [--threads 1] [--ctx 4096]
        [--timeout 600] [--seed 7] [--out rows.json] [--resume rows.json]

The model is served by llama.cpp's own HTTP server in this process (`tools/serve_model.py`, the `xllamacpp`
wheel), OpenAI-compatible on 127.0.0.1, and the product talks to it as to any endpoint
(`RAG_LLM__BASE_URL`). Per set, N answerable questions carrying an expected quote or answer are drawn with
the seed (the same draw for both modes); each question is asked alone (no conversation), once without the
model (the extractive default) and once with it (router, answer and support check by the model).

Prints, per mode: answers that state the gold fact (the expected answer's figure or words, or the expected
quote, in the answer's text; in its first paragraph), the paired difference model - extractive with its 95 %
bootstrap interval; then for the model: answers used or fallen back (and why), whether the user's question was
among the searches, sub-questions and set-aside notes, paragraphs marked supported that carry a number the
code found mismatched or unsupported, dialect, tokens (the server's or estimated), seconds to the first
paragraph and in all. The timeout is long on purpose: the figures say what a default should be.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.answers_dev import holds_answer, load
from benchmarks.reader_eval import paired, percentile
from rag_core import pipeline, retrieval
from rag_core.access import Principal
from rag_core.config import LLMSettings, Settings
from rag_core.models import Answer
from rag_core.text import contains_quote

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("serve_model", REPO / "tools" / "serve_model.py")
assert _SPEC is not None and _SPEC.loader is not None
serve_model = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(serve_model)

SEARCHED: list[str] = []


def _recording(search: Any) -> Any:
    def wrapped(query: str, *args: Any, **kwargs: Any) -> Any:
        SEARCHED.append(query)
        return search(query, *args, **kwargs)

    return wrapped


def draw(path: str, n: int, seed: int) -> list[dict]:
    usable = [q for q in load(path) if q.get("type") != "unanswerable" and (q.get("quote") or q.get("answer"))]
    return random.Random(seed).sample(usable, min(n, len(usable)))


def states(text: str, q: dict) -> bool:
    """The gold fact is in `text`: the expected answer when it is short (a figure, a name; without its
    closing period or a note in brackets, as the dev sets write "Three months (Guideline 7)."), else the quote."""
    answer = str(q.get("answer") or "")
    if answer and len(answer) <= 80:
        core = re.sub(r"\s*\([^)]*\)", "", answer).strip().rstrip(".").strip()
        return holds_answer(text, answer) or bool(core) and holds_answer(text, core)
    return bool(q.get("quote")) and contains_quote(text, q["quote"])


def _misleading(answer: Answer) -> int:
    """Paragraphs marked supported although a number of theirs is mismatched or unsupported."""
    return sum(
        p.status == "supported" and any(n.status in ("mismatch", "unsupported") for n in p.numbers)
        for p in answer.paragraphs
    )


def row(q: dict, answer: Answer, searched: list[str], seconds: float) -> dict:
    text = " ".join(p.text for p in answer.paragraphs)
    asked = {q["question"], answer.standalone_question} - {""}
    return {
        "id": q["id"],
        "mode": answer.mode,
        "states": states(text, q),
        "lead_states": bool(answer.paragraphs) and states(answer.paragraphs[0].text, q),
        "question_searched": bool(asked & set(searched)),
        "searched": searched,
        "sub_questions": [s.question for s in answer.sub_questions],
        "notes": [w for w in answer.warnings if "set aside" in w or "écartée" in w],
        "misleading": _misleading(answer),
        "fallback": answer.fallback,
        "dialect": answer.dialect,
        "tokens": [answer.prompt_tokens, answer.completion_tokens, answer.tokens_estimated],
        "first_paragraph_s": answer.first_paragraph_s,
        "seconds": seconds,
        "paragraphs": len(answer.paragraphs),
        "text": text[:4000],
        "lead": answer.paragraphs[0].text if answer.paragraphs else "",
    }


def ask(q: dict, settings: Settings) -> dict:
    SEARCHED.clear()
    started = time.perf_counter()
    answer = pipeline.ask(q["question"], settings, principal=Principal.local_operator())
    return row(q, answer, list(SEARCHED), time.perf_counter() - started)


def rescore(rows: list[dict], sets: list[str]) -> None:
    """The gold-fact columns of stored rows, from their stored text, with `states` as it is now."""
    questions = {q["id"]: q for spec in sets for q in load(spec.rsplit(":", 2)[1])}
    for pair in rows:
        q = questions[pair["id"]]
        for mode in ("extractive", "model"):
            row = pair[mode]
            row["states"] = states(row["text"], q)
            row["lead_states"] = states(row.get("lead") or row["text"][:300], q)


def report(rows: list[dict]) -> None:
    n = len(rows)
    x = [float(r["extractive"]["states"]) for r in rows]
    m = [float(r["model"]["states"]) for r in rows]
    lx = [float(r["extractive"]["lead_states"]) for r in rows]
    lm = [float(r["model"]["lead_states"]) for r in rows]
    print(f"\n{n} questions")
    print(f"  states the gold fact: extractive {sum(x):.0f}/{n}, model {sum(m):.0f}/{n}")
    print("  paired model - extractive: {:+.3f} [{:+.3f}, {:+.3f}]".format(*paired(x, m)))
    print(f"  in the first paragraph: extractive {sum(lx):.0f}/{n}, model {sum(lm):.0f}/{n}")
    print("  paired model - extractive: {:+.3f} [{:+.3f}, {:+.3f}]".format(*paired(lx, lm)))
    model = [r["model"] for r in rows]
    used = [r for r in model if r["mode"] == "llm"]
    print(
        f"  model answers used: {len(used)}/{n}; fallbacks: "
        + "; ".join(r["fallback"][:80] for r in model if r["fallback"])
    )
    print(f"  user's question among the searches: {sum(r['question_searched'] for r in model)}/{n}")
    print(
        f"  with sub-questions: {sum(bool(r['sub_questions']) for r in model)}; replies set aside: "
        f"{sum(bool(r['notes']) for r in model)}"
    )
    print(
        f"  paragraphs marked supported with a mismatched or unsupported number: {sum(r['misleading'] for r in model)}"
    )
    print(
        f"  dialects: {sorted({r['dialect'] for r in model})}; "
        f"tokens estimated: {sum(r['tokens'][2] for r in model)}/{n}"
    )
    firsts = [r["first_paragraph_s"] for r in used if r["first_paragraph_s"]]
    secs = [r["seconds"] for r in model]
    if firsts:
        print(f"  first paragraph: p50 {percentile(firsts, 0.5):.0f} s, max {max(firsts):.0f} s")
    print(
        f"  seconds per question: model p50 {percentile(secs, 0.5):.0f}, max {max(secs):.0f}; extractive p50 "
        f"{percentile([r['extractive']['seconds'] for r in rows], 0.5):.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", required=True, help="LIBRARY_DIR:QUESTIONS.jsonl:N")
    parser.add_argument("--gguf", type=Path, default=serve_model.DEFAULT_GGUF)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--port", type=int, default=18931)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out")
    parser.add_argument("--rescore", help="read the rows of an earlier --out, score them again, report; no model run")
    parser.add_argument(
        "--resume", help="rows of an earlier --out of the same draw: their questions are not asked again, only the rest"
    )
    args = parser.parse_args()
    if args.rescore:
        stored: list[dict] = json.loads(Path(args.rescore).read_text(encoding="utf-8"))
        rescore(stored, args.set)
        report(stored)
        return 0
    server = serve_model.start(args.gguf, args.port, args.ctx, args.threads)
    llm = LLMSettings(
        model=args.gguf.stem,
        base_url=f"http://127.0.0.1:{args.port}/v1",
        timeout_s=args.timeout,
        endpoint_context_tokens=args.ctx,
    )
    retrieval.search = _recording(retrieval.search)
    rows: list[dict] = json.loads(Path(args.resume).read_text(encoding="utf-8")) if args.resume else []
    done = {(r["set"], r["id"]) for r in rows}
    for spec in args.set:
        data_dir, questions, n = spec.rsplit(":", 2)
        plain = Settings(data_dir=Path(data_dir))
        with_model = plain.model_copy(update={"llm": llm})
        for q in draw(questions, int(n), args.seed):
            if (Path(questions).parent.name, q["id"]) in done:
                continue
            pair = {"set": Path(questions).parent.name, "id": q["id"], "question": q["question"]}
            pair["extractive"] = ask(q, plain)
            pair["model"] = ask(q, with_model)
            rows.append(pair)
            print(
                json.dumps(
                    {k: pair[k] for k in ("set", "id")}
                    | {
                        "x": pair["extractive"]["states"],
                        "m": pair["model"]["states"],
                        "mode": pair["model"]["mode"],
                        "s": round(pair["model"]["seconds"]),
                        "fallback": pair["model"]["fallback"][:60],
                    }
                ),
                flush=True,
            )
            if args.out:
                Path(args.out).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    report(rows)
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
