"""Number tracing on the development set's `numeric_table` questions, extractive mode.

    .venv/bin/python -m benchmarks.numbers_dev [--library /tmp/evaldata] [--questions FILE.jsonl ...]

The library (a data dir holding the set's PDFs, e.g. the one `python -m rag_core evaluate`
built) is COPIED to a temporary directory first: asking writes nothing there, but the copy
makes sure of it. No language model is configured, so answers are extractive. Prints, per
set and overall: the share of answers whose numbers are all traced (quoted or computed and
checked), how the quoted numbers are located (table cell or sentence), the share of answers
that contain a figure of the expected answer (and whether its trace points at an expected
evidence page), and every untraced number. As a harder check of the format tolerance, the
reference answer of each question (written by a person, in its own number formats) is also
traced against the same retrieved context; its misses mix retrieval misses and lookup misses
and are listed with the prefix "[reference answer]". (question id,
number, why). Timing is not measured here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.answering import answer as answer_from
from rag_core.answering.number_trace import trace_numbers
from rag_core.answering.numbers import extract_numbers, same_value
from rag_core.citations import build_sources
from rag_core.config import Settings
from rag_core.models import Paragraph

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_LLM__API_KEY", "RAG_LLM__BASE_URL"):
    os.environ.pop(_var, None)  # extractive mode, whatever the shell says
REPO = Path(__file__).resolve().parents[1]
EVAL = REPO.parent / "shared" / "eval"
TRACED = {"quoted", "computed"}


def expected_hits(q: dict, answer_numbers: list) -> list:
    """The answer's traced numbers equal to a figure of the expected answer (years and small counts aside)."""
    wanted = [
        n
        for n in extract_numbers(q["answer"], q["language"])
        if not (n.bare_integer and (n.value <= 10 or 1900 <= n.value <= 2100))
    ]
    return [
        t
        for t in answer_numbers
        if any(
            same_value(v, t.value) or w.text.replace(" ", "") == t.text.replace(" ", "")
            for w in wanted
            for v in w.values()
        )
    ]


def run(
    questions: list[dict], settings: Settings
) -> tuple[int, int, int, int, Counter, list[tuple[str, str, str, str]]]:
    """Counts per set; `kinds` also counts expected figures located on an expected page ('on_page')."""
    all_traced = with_numbers = expected = 0
    kinds: Counter = Counter()
    failures: list[tuple[str, str, str, str]] = []
    ref_failures: list[tuple[str, str, str, str]] = []
    for q in questions:
        result = pipeline.search(q["question"], settings, principal=Principal.local_operator())
        a = answer_from(q["question"], result, settings)  # what pipeline.ask does, keeping the search result
        # The reference answer (written by a person, its own number formats) traced against the same context.
        sources = build_sources(result, settings.retrieval.context_k)
        context = result.parents[: settings.retrieval.context_k]
        if sources:
            (ref,) = trace_numbers(
                [Paragraph(text=q["answer"], source_ids=[s.id for s in sources])],
                sources,
                context,
                q["language"],
                reading=q["language"],
            )
            ref_numbers = ref.numbers
            kinds["ref_answers"] += 1
            kinds["ref_all_traced"] += all(n.status in TRACED for n in ref_numbers)
            for n in ref_numbers:
                if n.status not in TRACED:
                    ref_failures.append((q["id"], n.text, n.status, n.reason))
        numbers = [n for p in a.paragraphs for n in p.numbers]
        with_numbers += bool(numbers)
        untraced = [n for n in numbers if n.status not in TRACED]
        all_traced += not untraced
        hits = expected_hits(q, numbers)
        expected += bool(hits)
        located = [n for n in hits if n.location is not None and n.location.boxes]
        kinds["on_page"] += any(b.page in q.get("pages", []) for n in located for b in n.location.boxes)
        for n in numbers:
            if n.status == "quoted" and n.location is not None:
                kinds[n.location.kind] += 1
        if a.mode == "refused":
            failures.append((q["id"], "-", "refused", "no answer (search too weak)"))
        for n in untraced:
            failures.append((q["id"], n.text, n.status, n.reason))
    failures += [(qid, n, st, f"[reference answer] {why}") for qid, n, st, why in ref_failures]
    return len(questions), all_traced, with_numbers, expected, kinds, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=Path("/tmp/evaldata"), help="data dir to copy (never written)")
    parser.add_argument(
        "--questions", nargs="+", default=[str(EVAL / "dev_questions.jsonl"), str(EVAL / "dev_hard_questions.jsonl")]
    )
    args = parser.parse_args()
    if not (args.library / "lancedb").exists():
        raise SystemExit(f"{args.library} holds no library (lancedb/ missing)")
    with tempfile.TemporaryDirectory(prefix="numbers-dev-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(args.library, data)
        settings = Settings(data_dir=data)
        print(f"library: copy of {args.library} in {data}; answers: {pipeline.backends(settings)['answers']}")
        total: Counter[str] = Counter()
        all_failures = []
        for qfile in args.questions:
            questions = [json.loads(line) for line in Path(qfile).read_text().splitlines() if line.strip()]
            questions = [q for q in questions if q["type"] == "numeric_table"]
            n, ok, with_numbers, expected, kinds, failures = run(questions, settings)
            total.update({"n": n, "ok": ok, "with_numbers": with_numbers, "expected": expected, **kinds})
            all_failures += failures
            print(f"\n{Path(qfile).name}: {n} numeric_table questions")
            print(
                f"  answers whose numbers are all traced: {ok}/{n} = {ok / max(n, 1):.2f} "
                f"({with_numbers} answers hold at least one number)"
            )
            print(f"  quoted numbers located in a table cell: {kinds['cell']}, in a sentence: {kinds['sentence']}")
            print(
                f"  answers holding a figure of the expected answer: {expected}/{n} = {expected / max(n, 1):.2f}, "
                f"located on an expected page: {kinds['on_page']}/{expected}"
            )
            print(
                f"  reference answers whose numbers are all found in the retrieved context: "
                f"{kinds['ref_all_traced']}/{kinds['ref_answers']}"
            )
        n = total["n"]
        print(
            f"\nall sets: {total['ok']}/{n} = {total['ok'] / max(n, 1):.2f} answers with every number traced; "
            f"{total['cell']} quoted numbers in cells, {total['sentence']} in sentences; "
            f"expected figure present in {total['expected']}/{n}, located on an expected page in {total['on_page']}; "
            f"reference answers fully found in the context: {total['ref_all_traced']}/{total['ref_answers']}"
        )
        print(f"\nfailures ({len(all_failures)}):" if all_failures else "\nfailures: none")
        for qid, number, status, reason in all_failures:
            print(f"  {qid}\t{number}\t{status}\t{reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
