"""The reader against today's extractive default, paired, from two `answers_dev --out` runs of the same questions.

    RAG_READER__BACKEND=none nice python -m benchmarks.answers_dev --data-dir LIB --questions Q.jsonl --out base.json
    RAG_READER__THRESHOLD=0 nice python -m benchmarks.answers_dev --data-dir LIB --questions Q.jsonl --out reader.json
    python -m benchmarks.reader_eval base.json reader.json [--threshold 0.5] [--grid]

The reader run is made with threshold 0 (it never refuses), so that one run gives every threshold: a question is
refused at threshold t when the default refused it (the term check) or its best judged passage scores under t.
Printed per set: true refusals (unanswerable refused) and false refusals (answerable refused); answers whose lead
states the gold fact (`answers_dev`'s `lead_states`: the expected answer or quote in the first paragraph, with the
paragraph after it when the first is the reader's short answer), the reader's minus the default's, with a 95 %
paired bootstrap interval; the lead's cited page among the expected ones (hit@1 of the cited page), paired the same
way; and the reader's seconds per question (p50, p95). `--grid` prints the refusal rates over thresholds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path


def paired(a: list[float], b: list[float], rounds: int = 4000, seed: int = 11) -> tuple[float, float, float]:
    """mean(b - a) and its 95 % bootstrap interval."""
    diffs = [y - x for x, y in zip(a, b)]
    if not diffs:
        return 0.0, 0.0, 0.0
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(rounds))
    return sum(diffs) / len(diffs), means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def refused(row: dict, threshold: float) -> bool:
    best = row.get("reading_best")
    return bool(row["refused"]) or (best is not None and best < threshold)


def rates(rows: list[dict], threshold: float) -> tuple[int, int, int, int]:
    unans = [r for r in rows if r["type"] == "unanswerable"]
    answerable = [r for r in rows if r["type"] != "unanswerable"]
    return (
        sum(refused(r, threshold) for r in unans),
        len(unans),
        sum(refused(r, threshold) for r in answerable),
        len(answerable),
    )


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def compare(name: str, base: list[dict], reader: list[dict], threshold: float, grid: bool) -> None:
    by_id = {r["id"]: r for r in base}
    pairs = [(by_id[r["id"]], r) for r in reader if r["id"] in by_id]
    b_rows = [b for b, _ in pairs]
    r_rows = [r for _, r in pairs]
    tr, nu, fr, na = rates(b_rows, -1.0)  # the default: its own refusals only
    tr2, _, fr2, _ = rates(r_rows, threshold)
    print(f"\n{name}: {len(pairs)} questions ({na} answerable, {nu} unanswerable); reader threshold {threshold}")
    print(f"  true refusals:  default {tr}/{nu}, reader {tr2}/{nu}")
    print(f"  false refusals: default {fr}/{na}, reader {fr2}/{na}")
    answerable = [(b, r) for b, r in pairs if r["type"] != "unanswerable"]
    states_b = [float(b.get("lead_states", False) and not b["refused"]) for b, _ in answerable]
    states_r = [float(r.get("lead_states", False) and not refused(r, threshold)) for _, r in answerable]
    d, lo, hi = paired(states_b, states_r)
    print(f"  lead states the gold fact: default {sum(states_b):.0f}, reader {sum(states_r):.0f} of {len(answerable)}")
    print(f"    difference {d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    paged_b = [float(b.get("lead_paged", False) and not b["refused"]) for b, _ in answerable]
    paged_r = [float(r.get("lead_paged", False) and not refused(r, threshold)) for _, r in answerable]
    d, lo, hi = paired(paged_b, paged_r)
    print(f"  lead cites an expected page (hit@1): default {sum(paged_b):.0f}, reader {sum(paged_r):.0f}")
    print(f"    difference {d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    seconds = [r["reading_s"] for r in r_rows if r.get("reading_s")]
    if seconds:
        print(f"  reader seconds per question: p50 {percentile(seconds, 0.5):.2f}, p95 {percentile(seconds, 0.95):.2f}")
        print(
            f"  whole answer seconds: default mean {statistics.mean(b['elapsed_s'] for b in b_rows):.2f}, reader "
            f"mean {statistics.mean(r['elapsed_s'] for r in r_rows):.2f}"
        )
    shorts = [r for r in r_rows if r.get("short")]
    print(f"  short answers given: {len(shorts)}")
    if grid:
        for t in [x / 20 for x in range(4, 16)]:
            tr3, _, fr3, _ = rates(r_rows, t)
            print(f"    t={t:.2f}: true refusals {tr3}/{nu}, false refusals {fr3}/{na}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("base")
    parser.add_argument("reader")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--grid", action="store_true")
    args = parser.parse_args()
    base = json.loads(Path(args.base).read_text())
    reader = json.loads(Path(args.reader).read_text())
    for name in base:
        if name in reader:
            compare(name, base[name], reader[name], args.threshold, args.grid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
