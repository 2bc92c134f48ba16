"""The Library page shows each bad file's outcome: st.success, st.info, st.error, and a st.warning per warning.

Real pipeline (no monkeypatching): the files of tests/bad_files.py are uploaded through the page's
file uploader in `streamlit.testing.v1.AppTest`, on the temp data dir of the autouse fixture; a
real worker process ingests what the page queued, and the page shows each job's outcome.
Limits come from the environment, as in production (RAG_PARSING__MAX_PAGES, ..._MAX_FILE_MB).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.library import clean_file_name
from tests import bad_files
from tests.jobs_support import WorkerProcess, wait_until
from tests.ui.apptest_support import hover_texts

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "rag_app" / "app.py")
SHOWN_AS = {"ingested": "success", "already_present": "info", "refused": "error"}
SLOW_OR_LIMITS = {"too many pages (limit set to 2)", "too large (limit set to 0.001 MB)"}


def _english_app(timeout: int) -> AppTest:
    """The app in English: the cases' phrases are rag_core's English messages (the French ones are checked
    in tests/unit/test_messages.py)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.session_state["lang"] = "en"
    return at.run()


def _unescape(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def _alerts(at: AppTest) -> list[tuple[str, str]]:
    found = []
    for kind in ("success", "info", "warning", "error"):
        found += [(kind, _unescape(a.value)) for a in getattr(at, kind)]
    return found


def _upload(at: AppTest, files: list[tuple[str, bytes]]) -> AppTest:
    """Upload through the page, let a real worker ingest what was queued, show the page again."""
    at.file_uploader[0].set_value([(name, data, "application/pdf") for name, data in files]).run()
    assert not at.button(key="library_ingest").disabled
    at.button(key="library_ingest").click().run()
    assert not at.exception, at.exception
    settings = Settings()  # the autouse fixture's data dir, as the page's
    worker = WorkerProcess(settings.data_dir, verbose=False)
    try:
        wait_until(
            lambda: (
                not [
                    j
                    for j in pipeline.list_jobs(settings, principal=Principal.local_operator())
                    if j.state in ("queued", "running")
                ]
            ),
            900,
        )
    finally:
        worker.stop()
    at.run()
    assert not at.exception, at.exception
    return at


def _files(cases: list[bad_files.Case], tmp_path: Path) -> list[tuple[str, bytes]]:
    files = []
    for n, case in enumerate(cases):
        path = tmp_path / f"case{n}.pdf"
        case.make(path)
        data = path.read_bytes()
        if case.twice:
            files.append((case.file_name, data))  # the same file, under the same name, twice
        files.append((case.file_name, data))
    return files


def _check(at: AppTest, cases: list[bad_files.Case]) -> None:
    alerts = _alerts(at)
    assert "Traceback" not in str(at.main)
    for case in cases:
        name = clean_file_name(case.file_name)
        mine = [(kind, text) for kind, text in alerts if text.startswith(f"{name} — ")]
        result = [text for kind, text in mine if kind == SHOWN_AS[case.status]]
        assert len(result) == 1, (case.label, mine)
        assert not re.search(r" — (\w+) : \1\b", result[0], re.IGNORECASE), result  # "ingested : Ingested: …"
        shown = " ".join(text for _, text in mine)
        assert case.phrase in shown, (case.label, shown)
        if case.phrase in ("OCR found no text", "repaired"):  # per-page problems come as warnings
            assert any(kind == "warning" and case.phrase in text for kind, text in mine), (case.label, mine)


def test_library_page_shows_every_bad_file_outcome(tmp_path: Path) -> None:
    cases = [c for c in bad_files.CASES if c.label not in SLOW_OR_LIMITS]
    at = _english_app(900)
    at.switch_page("views/library.py").run()
    assert any("RAG_PARSING__MAX_PAGES" in c.value and "3000" in c.value for c in at.caption)  # the limits are shown
    _upload(at, _files(cases, tmp_path))
    _check(at, cases)
    listed = set(hover_texts(at.table[-1]).values())  # the ingested files are listed, under their cleaned names
    assert {clean_file_name(c.file_name) for c in cases if c.status == "ingested"} <= listed
    assert not {clean_file_name(c.file_name) for c in cases if c.status == "refused"} & listed


def test_library_page_names_the_limit_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    by_label = {c.label: c for c in bad_files.CASES}
    pages, size = by_label["too many pages (limit set to 2)"], by_label["too large (limit set to 0.001 MB)"]
    monkeypatch.setenv("RAG_PARSING__MAX_PAGES", "2")
    at = _english_app(600)
    at.switch_page("views/library.py").run()
    _upload(at, _files([pages], tmp_path))
    _check(at, [pages])
    monkeypatch.delenv("RAG_PARSING__MAX_PAGES")
    monkeypatch.setenv("RAG_PARSING__MAX_FILE_MB", "0.001")
    at = _english_app(600)
    at.switch_page("views/library.py").run()
    assert any("0.001" in c.value for c in at.caption)
    _upload(at, _files([size], tmp_path))
    _check(at, [size])


def test_the_progress_bars_show_the_file_name_literally(tmp_path: Path) -> None:
    # a progress text is Markdown (LaTeX included): an uploaded name must not be rendered as such.
    # No worker runs here, so the job stays queued and its row keeps its progress bar.
    from rag_app.ui.markdown import escape_md
    from tests.access_support import make_pdf

    name = "$x^{2}$ *claims* [link](example.org).pdf"  # no slash or backslash: the base name is kept whole
    data = make_pdf(tmp_path / "p.pdf", "Quokka reserving guide").read_bytes()
    at = AppTest.from_file(APP, default_timeout=600).run()
    at.switch_page("views/library.py").run()
    at.file_uploader[0].set_value([(name, data, "application/pdf")]).run()
    at.button(key="library_ingest").click().run()
    assert not at.exception, at.exception
    texts = [bar.proto.text for bar in at.get("progress")]
    assert clean_file_name(name) == name
    assert len(texts) == 1 and texts[0].startswith(escape_md(name)), texts
    assert "\\$" in texts[0] and "\\*" in texts[0] and "\\[" in texts[0]
