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

PDF = "en_actuar_coverage_modifications.pdf"
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


def main(target: Path) -> None:
    library = target / "library"
    shutil.rmtree(library, ignore_errors=True)
    settings = Settings(data_dir=library)
    principal = Principal.local_operator()
    shared = Path.cwd().parent / "shared" if (Path.cwd().parent / "shared").is_dir() else Path("/work/shared")
    (result,) = pipeline.ingest([shared / "corpus" / "pdfs" / PDF], settings, collection="prev", principal=principal)
    assert result.status == "ingested", result
    (target / "searches.json").write_text(json.dumps(searched(settings, principal), indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
