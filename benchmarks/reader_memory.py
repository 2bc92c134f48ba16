"""Memory and speed of the embedded reader in one process: resident memory before and after loading the model and
judging candidates, and the seconds per judged candidate.

    HF_HUB_OFFLINE=1 python -m benchmarks.reader_memory [--gguf FILE] [--sha256 HEX|none] [--threads 2]

Judges the same eight passages (about 60 to 110 tokens each, French and English) against two questions; prints
the resident set size (VmRSS) before loading, after loading, after judging, and its peak (VmHWM), in MB.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rag_core.config import Settings
from rag_core.config.reader_section import DEFAULT_GGUF, DEFAULT_SHA256
from rag_core.reading import reader_for

PASSAGES = [
    "Between 2005 and 2014, 2,755 claims were notified more than one year after the accident date.",
    "Claims reported late between 2005 and 2014 are included in the incurred claims tables of this report.",
    "The liabilities are discounted with the risk-free curve published by EIOPA for the euro.",
    "Parmi les formules de crédibilité, on retient celle de Whitney :\nz = n / (n + K)\noù n est le nombre d'années.",
    "Le modèle de Mack donne l'erreur quadratique moyenne de prédiction (MSEP) des réserves.",
    "The chain ladder method assumes that development factors are the same for all accident years.",
    "La prime de crédibilité de Bühlmann pondère l'expérience propre et la prime collective.",
    "Method 3: a simplification based on the proportion of the best estimate at each future year.",
]
QUESTIONS = [
    ("How many claims were reported late between 2005 and 2014?", "en"),
    ("Quelle est la formule de Whitney ?", "fr"),
]


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", type=Path, default=DEFAULT_GGUF)
    parser.add_argument("--sha256", default=DEFAULT_SHA256)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    sha = None if args.sha256 == "none" else args.sha256
    settings = Settings(reader={"backend": "embedded", "gguf": args.gguf, "sha256": sha, "threads": args.threads})
    before = rss_mb()
    started = time.perf_counter()
    reader = reader_for(settings)
    assert reader is not None
    loaded_s = time.perf_counter() - started
    loaded = rss_mb()
    started = time.perf_counter()
    for question, language in QUESTIONS:
        scores = reader.judge(question, PASSAGES, language)
        print(f"{question[:50]:50s} " + " ".join(f"{s:.2f}" for s in scores))
    per = (time.perf_counter() - started) / (len(QUESTIONS) * len(PASSAGES))
    print(f"model: {args.gguf.name}, threads {args.threads}")
    print(f"load (checksum included): {loaded_s:.1f} s; seconds per judged candidate: {per:.2f}")
    print(
        f"resident MB: before {before:.0f}, loaded {loaded:.0f}, after judging {rss_mb():.0f}, "
        f"peak {rss_mb('VmHWM'):.0f}; added by the reader {rss_mb() - before:.0f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
