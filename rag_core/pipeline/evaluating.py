"""Who may evaluate what, and the reported citations: the façade's side of the Evaluate and Ask pages.

The decisions the pages used to take themselves live here. Anyone signed in may run a question set
(the shared sets or an uploaded one) against the part of the library they can read; the reported
citations of everyone, as a question set, and the choice of a folder of PDFs on the server are for
administrators (anyone else asking for them gets `AccessDenied`). A user reports a wrong citation
under their own name and sees (and downloads) their own reports; an administrator sees everyone's.
This module is the evaluation's façade: it imports the evaluation (`rag_core.evaluation`, which reads
the library through `rag_core.services` as the principal) only inside its functions, so that the core
façade re-exports `reported_citations` without loading the evaluation; pages import the rest as
`from rag_core.pipeline import evaluating`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rag_core import storage
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import NotFoundError
from rag_core.models import Source
from rag_core.services.permissions import audit, require_admin

SetSource = Literal["shared", "upload", "reported"]
REPORTED_SET = "reported_citations"


def shared_dir() -> Path:
    """The shared material (question sets, corpus): `RAG_SHARED_DIR`, else `shared/` beside the repository."""
    return Path(os.environ.get("RAG_SHARED_DIR", Path(__file__).resolve().parents[3] / "shared"))


@dataclass(frozen=True)
class EvaluationOptions:
    """What the Evaluate page offers this principal."""

    sources: tuple[SetSource, ...]  # where the question set may come from
    sets_dir: Path  # the shared question sets' folder
    sets: tuple[str, ...]  # names of the shared question sets (file names)
    pdf_dir: Path  # the folder of the set's PDFs, by default
    choose_pdf_dir: bool  # whether another folder of the server may be chosen (administrators)


def evaluation_options(settings: Settings, *, principal: Principal) -> EvaluationOptions:
    """The question-set sources and the PDF folder the principal may use (see the module docstring)."""
    shared = shared_dir()
    sets_dir = shared / "eval"
    sets = tuple(p.name for p in sorted(sets_dir.glob("*.jsonl"))) if sets_dir.is_dir() else ()
    sources: tuple[SetSource, ...] = ("upload", "reported") if principal.is_admin else ("upload",)
    if sets:  # a fresh install has no shared sets: the choice is not offered
        sources = ("shared", *sources)
    return EvaluationOptions(sources, sets_dir, sets, shared / "corpus" / "pdfs", principal.is_admin)


def shared_set(settings: Settings, name: str, *, principal: Principal) -> tuple[list[str], str]:
    """The lines of a shared question set and its name (only a set the options list)."""
    options = evaluation_options(settings, principal=principal)
    if name not in options.sets:
        raise NotFoundError.of("eval.no_shared_set", name=name)
    path = options.sets_dir / name
    return path.read_text(encoding="utf-8").splitlines(), path.stem


def reported_set(settings: Settings, *, principal: Principal) -> tuple[list[str], str]:
    """Everyone's reported citations as a question set (administrators only); no lines when none."""
    from rag_core.evaluation.citation_reports import read_reports

    require_admin(principal, "citations")
    return read_reports(storage.open_library(settings)).decode("utf-8").splitlines(), REPORTED_SET


def evaluation_engines() -> list[str]:
    from rag_core.evaluation import ALL_ENGINES

    return list(ALL_ENGINES)


def evaluate(
    lines: Sequence[str],
    settings: Settings,
    engines: Sequence[str],
    set_name: str = "",
    progress: Callable[[str, int, int], None] | None = None,
    pdf_dir: Path | str | None = None,
    *,
    principal: Principal,
) -> dict:
    """Run a question set (JSON lines) on the part of the library the principal can read; results.json
    as a dict. Without `pdf_dir`, on the library's documents as they are; a folder of PDFs on the server
    (its missing files ingested first) is for administrators. A bad line is an InputError."""
    from rag_core.evaluation import read_question_lines, run_evaluation

    folder = Path(pdf_dir) if pdf_dir not in (None, "") else None
    if folder is not None:
        require_admin(principal, "pdf_folder")
    rows = read_question_lines(lines)
    return run_evaluation(rows, folder, settings, engines, set_name, progress, principal=principal)


def evaluation_results_file(results: dict, settings: Settings, *, principal: Principal) -> bytes:
    """An evaluation's results as the JSON file the Evaluate page offers; the export is recorded under
    the principal who receives it (its questions may be other users' reported ones)."""
    audit(
        settings,
        "evaluation_exported",
        principal,
        set=results.get("set") or "",
        questions=len(results.get("questions", ())),
    )
    return json.dumps(results, ensure_ascii=False, indent=1).encode()


def report_citation(
    settings: Settings,
    *,
    principal: Principal,
    question: str,
    language: str,
    source: Source,
    quote: str = "",
    comment: str = "",
) -> dict[str, object]:
    """Record that `source` was wrongly cited for `question`, under the principal's name."""
    from rag_core.evaluation.citation_reports import report_citation as append_report

    return append_report(
        storage.open_library(settings),
        question=question,
        language=language,
        source_id=source.id,
        pdf=source.file_name,
        pages=source.pages,
        quote=quote,
        comment=comment,
        user=principal.user,
    )


def has_reports(settings: Settings, *, principal: Principal) -> bool:
    """Whether there are reports the principal may download: their own, or anyone's for an administrator."""
    from rag_core.evaluation.citation_reports import read_reports

    return bool(read_reports(storage.open_library(settings), None if principal.is_admin else principal.user))


# ---- the evaluation's results as the page shows them (rag_core.evaluation.report)
def summary_rows(results: dict) -> list[dict]:
    from rag_core.evaluation import report

    return report.summary_rows(results)


def breakdown_rows(results: dict, field: str, metric: str) -> list[dict]:
    from rag_core.evaluation import report

    return report.breakdown_rows(results, field, metric)


def language_match_lines(results: dict) -> list[str]:
    from rag_core.evaluation import report

    return report.language_match_lines(results)


def question_rows(results: dict, engine: str) -> list[dict]:
    from rag_core.evaluation import report

    return report.question_rows(results, engine)


def reported_citations(settings: Settings, *, principal: Principal) -> bytes:
    """The reported citations for a download: the principal's own, everyone's for an administrator;
    the export is recorded."""
    from rag_core.evaluation.citation_reports import read_reports

    data = read_reports(storage.open_library(settings), None if principal.is_admin else principal.user)
    audit(settings, "reports_exported", principal, everyone=principal.is_admin)
    return data
