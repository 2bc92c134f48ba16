"""No test restates the development set: tests write their own examples, the dev set only measures.

Fails when any 8-word window of a dev question, quote, evidence quote or answer
(../shared/eval/*.jsonl) appears in a file under tests/ or benchmarks/. Words are compared
case- and accent-folded, punctuation and line breaks ignored, so a copy split over Python
string literals is found too. Benchmarks may read the dev set; they may not copy from it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from tests.conftest import EVAL_DIR, REPO, shared

WINDOW = 8
SCANNED = ("tests", "benchmarks")
TEXT_SUFFIXES = {".py", ".md", ".txt", ".json", ".jsonl", ".toml", ".cfg", ".html", ".csv"}


def words(text: str) -> list[str]:
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))
    return re.findall(r"\w+", folded)


def windows(text: str) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i : i + WINDOW]) for i in range(len(w) - WINDOW + 1)}


def dev_windows(eval_dir: Path) -> dict[tuple[str, ...], str]:
    """Every 8-word window of the dev items -> the id of one item that holds it."""
    out: dict[tuple[str, ...], str] = {}
    for path in sorted(eval_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            texts = [row.get("question"), row.get("quote"), row.get("answer")]
            texts += [e.get("quote") for e in row.get("evidence") or []]
            for text in filter(None, texts):
                for window in windows(text):
                    out.setdefault(window, row.get("id", path.name))
    return out


def copies(root: Path, dev: dict[tuple[str, ...], str]) -> list[str]:
    found = []
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in TEXT_SUFFIXES or not path.is_file() or "__pycache__" in path.parts:
                continue
            for window in sorted(windows(path.read_text(encoding="utf-8", errors="replace")) & dev.keys()):
                found.append(f"{path.relative_to(root)}: '{' '.join(window)}' ({dev[window]})")
    return found


def test_no_file_of_the_tests_or_benchmarks_copies_a_dev_item() -> None:
    dev = dev_windows(shared(EVAL_DIR, "the dev sets"))
    assert len(dev) > 1000  # the sets were read
    assert copies(REPO, dev) == []


def test_the_check_finds_a_copy_across_lines_case_and_accents(tmp_path: Path) -> None:
    (tmp_path / "eval").mkdir()
    row = {"id": "dev-x", "question": "Quelle est la provision pour sinistres à payer en fin d'année ?"}
    (tmp_path / "eval" / "dev.jsonl").write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_copy.py").write_text(
        'Q = ("QUELLE est la provision "\n     "pour SINISTRES a payer en")\n'
    )
    (tmp_path / "tests" / "test_own.py").write_text('Q = "Quelle est la provision pour primes non acquises ?"\n')
    found = copies(tmp_path, dev_windows(tmp_path / "eval"))
    assert found == [
        "tests/test_copy.py: 'est la provision pour sinistres a payer en' (dev-x)",
        "tests/test_copy.py: 'quelle est la provision pour sinistres a payer' (dev-x)",
    ]
