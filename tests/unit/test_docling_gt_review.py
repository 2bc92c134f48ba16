"""benchmarks/docling_gt_review.py: each correction of Docling's ground truth applies to the item it
names and changes only what its reason says (the closing note's corrected figures rest on them)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import docling_gt_review


def _load(directory: Path, stem: str) -> dict:
    return json.loads((directory / f"{stem}.docling.json").read_text(encoding="utf-8"))


def test_corrections_apply_to_the_items_they_name(docling_fixtures_dir: Path, tmp_path: Path) -> None:
    review = docling_gt_review
    applied = review.corrected_copy(docling_fixtures_dir, tmp_path)
    # every one found its item holding the expected text
    assert sorted(applied, key=repr) == sorted(review.CORRECTIONS, key=repr)
    assert all(c.why for c in applied)
    redp, redp0 = _load(tmp_path, "redp5110_sampled"), _load(docling_fixtures_dir, "redp5110_sampled")
    toc = {
        (c["start_row_offset_idx"], c["start_col_offset_idx"]): c["text"]
        for c in redp["tables"][0]["data"]["table_cells"]
    }
    assert toc[(0, 0)] == "Notices" and toc[(0, 1)] == "vii" and toc[(1, 1)] == "viii"
    assert toc[(8, 0)] == "Chapter 1. Securing and protecting IBM DB2 data"  # a single dot is not a leader
    assert not any("SM590000" in c["text"] for c in redp["tables"][1]["data"]["table_cells"])
    assert any("SM590000" in c["text"] for c in redp0["tables"][1]["data"]["table_cells"])
    assert redp["tables"][2]["label"] == "code" and redp0["tables"][2]["label"] == "table"
    assert redp["texts"][42]["label"] == "text" and redp["texts"][43]["label"] == "section_header"
    korean, korean0 = _load(tmp_path, "normal_4pages"), _load(docling_fixtures_dir, "normal_4pages")
    assert korean["texts"][36]["text"] == "(3) 「약관의 규제에 관한 법률」상 약관해석의 원칙"
    assert korean["texts"][73]["text"] == "5 맺으며" and korean["texts"][74]["text"] == ""
    # nothing else changed: the other items and fixtures are as Docling wrote them
    assert len(korean["texts"]) == len(korean0["texts"])
    changed = [i for i, (a, b) in enumerate(zip(korean["texts"], korean0["texts"], strict=True)) if a != b]
    assert changed == [36, 73, 74]
    for stem in ("multi_page", "code_and_formula", "2305.03393v1-pg9"):
        assert _load(tmp_path, stem) == _load(docling_fixtures_dir, stem)
