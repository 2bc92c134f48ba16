"""Writes tests/data/prev_release/library (one small corpus PDF ingested) and searches.json (the searches of
QUESTIONS as that code answered them), with the code of the previous release, before stored data had a
schema version. Run from a checkout of that release (commit cc99990), not from this one:

    git worktree add --detach /tmp/prev cc99990
    cd /tmp/prev
    HF_HUB_OFFLINE=1 PYTHONPATH=. python $REPO/tests/data/prev_release/make_library.py $REPO/tests/data/prev_release

It imports `rag_core` from the current directory (the old release's, through PYTHONPATH) and writes nothing else.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings

PDF = Path(__file__).resolve().parent / "deductibles.pdf"  # written for this test (make_pdf below), not a corpus PDF
QUESTIONS = [  # written for this test: about the PDF's subject, and one that matches nothing
    "ordinary deductible",
    "franchise deductible payment per payment",
    "coinsurance and policy limit",
    "effect of inflation on the severity",
    "xyzzy",
]


def searched(settings: Settings, principal: Principal) -> list[dict]:
    out = []
    for question in QUESTIONS:
        result = pipeline.search(question, settings, language="en", principal=principal)
        out.append(
            {
                "question": question,
                "parents": [
                    {
                        "id": p.parent.id,
                        "fused_score": p.fused_score,
                        "best_child": p.best_child.id,
                        "ranks": {name: hit.rank for name, hit in p.ranks.items()},
                    }
                    for p in result.parents
                ],
            }
        )
    return out


PAGES = [
    ("Ordinary deductible", "Under an ordinary deductible d the insurer pays the loss minus d when the loss exceeds d, "
     "and nothing otherwise. The expected payment per loss is the limited expected value subtracted from the mean."),
    ("Franchise deductible", "Under a franchise deductible the insurer pays the whole loss once it exceeds d. "
     "The payment per payment is the conditional loss given that it exceeds the deductible."),
    ("Coinsurance and policy limit", "A coinsurance factor alpha scales each payment; a policy limit u caps it. "
     "Both change the expected payment and its variance in a way the reserving actuary must record."),
    ("Inflation", "Uniform inflation r raises every loss by the factor 1 + r, so a fixed deductible removes a "
     "smaller share of the losses and the severity of the payments grows faster than inflation."),
]


def make_pdf(path: Path) -> None:
    """The test's own four-page PDF: a heading and a paragraph a page."""
    import pymupdf

    doc = pymupdf.open()
    for heading, text in PAGES:
        page = doc.new_page()
        page.insert_text((72, 90), heading, fontsize=16)
        page.insert_textbox(pymupdf.Rect(72, 110, 520, 400), text, fontsize=11)
    doc.save(path, garbage=4, deflate=True, no_new_id=True)


def main(target: Path) -> None:
    library = target / "library"
    shutil.rmtree(library, ignore_errors=True)
    settings = Settings(data_dir=library)
    principal = Principal.local_operator()
    (result,) = pipeline.ingest([PDF], settings, collection="prev", principal=principal)
    assert result.status == "ingested", result
    (target / "searches.json").write_text(json.dumps(searched(settings, principal), indent=1) + "\n")


if __name__ == "__main__":
    if not PDF.is_file():
        make_pdf(PDF)
    main(Path(sys.argv[1]))
