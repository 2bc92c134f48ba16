"""Which refusal decision separates answerable from unanswerable questions, fitted and cross-validated.

    python -m benchmarks.refusal_fit signals_A.json signals_dev.json [--show]
    python -m benchmarks.refusal_fit --halves R_A.json R_dev.json

`--halves` reads `benchmarks.pages_and_refusals --out` files instead and prints the product's false and
true refusals on each set whole and on each half of the split below (a decision with no threshold).

Reads the records of `benchmarks.refusal_signals` (one file per question set) and scores candidate
decisions on every question of all the files together: the product's decision as recorded, and graded
coverage (the IDF-weighted share of the question's terms that the best context passage, or the best
two, mention), alone or combined with the recorded decision. Each candidate's one threshold is fitted
on the questions (the highest true-refusal rate whose false-refusal rate stays within 5 %, ties to
the lower false-refusal rate), then checked by two-fold cross-validation: the questions of each set
split in two halves by their id's hash, fitted on one half of every set, measured on the other, both
ways. Prints false and true refusals with counts and 95 % bootstrap intervals.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rag_core.evaluation import metrics

MAX_FALSE = 0.05
Row = dict[str, Any]


def weight(term: Row, scope: int) -> float:
    """The term's IDF over the scope's passages (a term no passage mentions weighs most)."""
    return math.log((scope + 1) / (term["library"] + 0.5))


def graded(sub: Row, best: int) -> float:
    """The weighted share of the question's terms that the best `best` context passages mention together."""
    terms = sub["terms"]
    if not terms:
        return 1.0
    scope = max(sub["scope_passages"], 1)
    weights = [max(weight(t, scope), 0.0) for t in terms]
    total = sum(weights) or 1.0
    passages = len(terms[0]["held"])
    shares = [sum(w for w, t in zip(weights, terms) if t["held"][i]) / total for i in range(passages)]
    shares.sort(reverse=True)
    if best == 1 or passages < 2:
        return shares[0] if shares else 0.0
    pairs = [(i, j) for i in range(passages) for j in range(i + 1, passages)]
    return max(sum(w for w, t in zip(weights, terms) if t["held"][i] or t["held"][j]) / total for i, j in pairs)


def features(record: Row) -> dict[str, float]:
    sub = record["subs"][0] if record["subs"] else {"terms": [], "scope_passages": 1, "parents": []}
    return {"graded1": graded(sub, 1), "graded2": graded(sub, 2), "refused": float(record["refused"])}


Decision = Callable[[dict[str, float], float], bool]
CANDIDATES: dict[str, Decision] = {
    "recorded decision": lambda f, t: bool(f["refused"]),
    "graded1 < t": lambda f, t: f["graded1"] < t,
    "graded2 < t": lambda f, t: f["graded2"] < t,
    "recorded and graded1 < t": lambda f, t: bool(f["refused"]) and f["graded1"] < t,
    "recorded or graded1 < t": lambda f, t: bool(f["refused"]) or f["graded1"] < t,
    "recorded and graded2 < t": lambda f, t: bool(f["refused"]) and f["graded2"] < t,
}
THRESHOLDS = [i / 100 for i in range(0, 101)]


def rates(rows: Sequence[tuple[bool, dict[str, float]]], decide: Decision, t: float) -> tuple[list[float], list[float]]:
    false = [float(decide(f, t)) for answerable, f in rows if answerable]
    true = [float(decide(f, t)) for answerable, f in rows if not answerable]
    return false, true


def fit(rows: Sequence[tuple[bool, dict[str, float]]], decide: Decision) -> float:
    best: tuple[float, float, float] | None = None
    for t in THRESHOLDS:
        false, true = rates(rows, decide, t)
        fr, tr = sum(false) / max(len(false), 1), sum(true) / max(len(true), 1)
        if fr > MAX_FALSE:
            continue
        key = (tr, -fr, -t)
        if best is None or key > (best[0], -best[1], -best[2]):
            best = (tr, fr, t)
    return best[2] if best is not None else 0.0


def _say(values: list[float]) -> str:
    ci = metrics.bootstrap_ci(values)
    if ci["mean"] is None:
        return "n/a"
    return f"{int(sum(values))}/{len(values)} = {ci['mean']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]"


def half(identifier: str) -> int:
    return hashlib.sha1(identifier.encode()).digest()[0] % 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("signals", type=Path, nargs="+")
    parser.add_argument("--show", action="store_true", help="each question's features and decision")
    parser.add_argument("--halves", action="store_true", help="the files are pages_and_refusals results")
    args = parser.parse_args()
    if args.halves:
        for path in args.signals:
            found = json.loads(path.read_text(encoding="utf-8"))["refusals"]
            for part, name in ((None, "whole"), (0, "half 0"), (1, "half 1")):
                group = [f for f in found if part is None or half(f["id"]) == part]
                false = [float(f["refused"]) for f in group if f["answerable"]]
                true = [float(f["refused"]) for f in group if not f["answerable"]]
                print(f"{path.stem} {name}: false refusals {_say(false)}; true refusals {_say(true)}")
        return 0
    sets = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in args.signals}
    rows = {name: [(r["answerable"], features(r), r["id"]) for r in records] for name, records in sets.items()}
    everything = [(a, f) for found in rows.values() for a, f, _ in found]
    for name, decide in CANDIDATES.items():
        t = fit(everything, decide)
        print(f"{name}: threshold fitted on all sets {t:.2f}")
        for set_name, found in rows.items():
            false, true = rates([(a, f) for a, f, _ in found], decide, t)
            print(f"  {set_name}: false refusals {_say(false)}; true refusals {_say(true)}")
        for held_out in (0, 1):
            train = [(a, f) for found in rows.values() for a, f, i in found if half(i) != held_out]
            tt = fit(train, decide)
            for set_name, found in rows.items():
                test = [(a, f) for a, f, i in found if half(i) == held_out]
                false, true = rates(test, decide, tt)
                print(f"  fold {held_out} (t {tt:.2f}) {set_name}: false {_say(false)}; true {_say(true)}")
    if args.show:
        for set_name, found in rows.items():
            for a, f, i in found:
                print(set_name, i, "answerable" if a else "UNANSWERABLE", {k: round(v, 3) for k, v in f.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
