"""A small library for the access tests: three collections of generated one-page PDFs, built once.

- "board": the confidential one. Its PDF is the best match for `SECRET_QUERY` and holds a
  table and a figure (for the export and crop checks); `SECRET_WORD` occurs nowhere else.
- "guides": readable by the group "actuaries" once `share_guides` ran.
- "claims": a third collection, readable by nobody but administrators.
The template is written as the local operator and its grants file is then removed: a library
written before access control existed. Each test module copies it (`copy_library`).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings

SECRET_WORD = "Zephyrine"
SECRET_QUERY = f"How does the {SECRET_WORD} captive reinsurance programme protect the balance sheet?"
ADMIN = Principal.local_operator()
ALICE = Principal("alice@example.org", frozenset({"actuaries"}))
BOB = Principal("bob@example.org")
TOPICS = {
    "board": f"{SECRET_WORD} captive reinsurance",
    "guides": "Quokka reserving guide",
    "claims": "Wombat claims handling",
}


def make_pdf(path: Path, topic: str, table: bool = False, figure: bool = False) -> Path:
    """A one-page report on `topic`, with a ruled table and a drawn figure when asked."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), f"{topic} report", fontsize=20, fontname="hebo")
    page.insert_text((72, 110), f"1 {topic} overview", fontsize=14, fontname="hebo")
    page.insert_textbox(
        pymupdf.Rect(72, 120, 520, 200),
        f"The {topic} programme protects the balance sheet against large losses. " * 2,
        fontsize=10,
    )
    if table:
        page.insert_text((72, 220), f"Table 1: {topic} payments", fontsize=10, fontname="hebo")
        rows = [["Year", "Paid", "Reserve"], ["2021", "1 200", "3 400"], ["2022", "1 310", "2 900"]]
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                rect = pymupdf.Rect(72 + c * 90, 228 + r * 20, 72 + (c + 1) * 90, 228 + (r + 1) * 20)
                page.draw_rect(rect, color=(0, 0, 0), width=0.7)
                page.insert_text((rect.x0 + 5, rect.y1 - 6), text, fontsize=10)
    if figure:
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 120), False)
        pix.set_rect(pix.irect, (200, 30, 30))
        page.insert_image(pymupdf.Rect(72, 420, 372, 600), pixmap=pix)
        page.insert_text((72, 615), f"Figure 1: {topic} chart", fontsize=10)
    doc.save(path)
    doc.close()
    return path


@dataclass(frozen=True)
class IngestedCollections:
    """A data folder holding one ingested PDF per collection of TOPICS, with its settings."""

    settings: Settings
    pdfs: dict[str, Path]  # collection -> its PDF
    doc_ids: dict[str, str]  # collection -> its document id


def build_template(root: Path) -> IngestedCollections:
    pdfs = {
        name: make_pdf(root / f"{name}.pdf", topic, table=name == "board", figure=name == "board")
        for name, topic in TOPICS.items()
    }
    settings = Settings(data_dir=root / "data")
    doc_ids = {}
    for name, pdf in pdfs.items():
        (result,) = pipeline.ingest([pdf], settings, collection=name, principal=ADMIN)
        assert result.status == "ingested", result.message
        doc_ids[name] = result.doc_id
    # as if written before grants existed (an administrator's uploads register nothing anyway)
    assert not (settings.data_dir / "access" / "grants.json").exists()
    shutil.rmtree(settings.data_dir / "audit")
    return IngestedCollections(settings, pdfs, doc_ids)


def shared_template(root: Path) -> IngestedCollections:
    """The template built once in `root` for every process of the run (pytest-xdist workers too), the first
    process that asks building it; the others read what it built. Never written to: tests copy it."""
    from filelock import FileLock

    with FileLock(str(root) + ".lock"):
        built = root / "built.json"
        if not built.is_file():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            library = build_template(root)
            built.write_text(json.dumps(library.doc_ids), encoding="utf-8")
    doc_ids = json.loads(built.read_text(encoding="utf-8"))
    return IngestedCollections(Settings(data_dir=root / "data"), {n: root / f"{n}.pdf" for n in doc_ids}, doc_ids)


def copy_library(template: IngestedCollections, root: Path) -> IngestedCollections:
    shutil.copytree(template.settings.data_dir, root / "data")
    return IngestedCollections(Settings(data_dir=root / "data"), template.pdfs, template.doc_ids)


def share_guides(library: IngestedCollections) -> None:
    pipeline.grant(library.settings, "guides", principal=ADMIN, group="actuaries", role="read")
