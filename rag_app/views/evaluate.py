"""Evaluate: run a question set against the library and show metrics with 95 % intervals.

Thin: reads widgets, asks the façade what this principal may use (`evaluating.evaluation_options`:
the reported citations and the choice of a folder of PDFs on the server are for administrators; by
default the set runs on the library's own documents, so that it works on a fresh install)
and runs the evaluation through it as the signed-in principal (so the search space is the part of
the library that principal can read), then renders its results.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import altair as alt
import streamlit as st

from rag_app.ui.auth import page_context
from rag_app.ui.downloads import download
from rag_app.ui.i18n import STRINGS, t, user_message
from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import call
from rag_core.errors import RagError
from rag_core.pipeline import evaluating

RESULTS_KEY = "evaluate_results"
MATCH_GROUPS = {"same language": "same_language", "cross-lingual": "cross_lingual", "mixed": "mixed"}


def _match_words(text: str) -> str:
    """rag_core's language-match groups ("same language"...) in a text, in the page's language."""
    for group, key in MATCH_GROUPS.items():
        text = re.sub(rf"(?<![\w-]){re.escape(group)}(?![\w-])", t(f"evaluate.match.{key}"), text)
    return text


def _column(name: str) -> str:
    """A results column named by rag_core (in English, as its CLI report) in the page's language;
    metric names (ndcg@10, hit@1...) are kept as they are."""
    if f"evaluate.col.{name}" in STRINGS:
        return t(f"evaluate.col.{name}")
    if name.endswith(" 95% CI"):
        return f"{name.removesuffix(' 95% CI')} {t('evaluate.col.95% CI')}"
    return name


def _table(rows: list[dict]) -> list[dict]:
    """`rows` with their columns, and the unanswerable marker, in the page's language."""
    unanswerable = t("evaluate.unanswerable")
    return [{_column(k): (unanswerable if v == "(unanswerable)" else v) for k, v in row.items()} for row in rows]


settings, principal = page_context()
st.title(t("evaluate.title"))

options = evaluating.evaluation_options(settings, principal=principal)
source = st.radio(
    t("evaluate.set"),
    options.sources,
    horizontal=True,
    key="evaluate_source",
    format_func=lambda s: t(f"evaluate.source.{s}"),
)
lines: list[str] = []
set_name = ""
if source == "shared":
    if not options.sets:
        st.info(t("evaluate.no_set", path=str(options.sets_dir)))
    else:
        chosen = st.selectbox(t("evaluate.file"), options.sets, key="evaluate_file")
        _, got = call(evaluating.shared_set, settings, chosen, principal=principal)
        lines, set_name = got or ([], "")
elif source == "upload":
    upload = st.file_uploader(t("evaluate.upload"), type=["jsonl"], key="evaluate_upload", help=t("evaluate.format"))
    if upload is not None:
        lines, set_name = upload.getvalue().decode("utf-8", errors="replace").splitlines(), Path(upload.name).stem
else:
    _, got = call(evaluating.reported_set, settings, principal=principal)
    lines, set_name = got or ([], "")
    if not lines:
        st.info(t("evaluate.no_reports"))

st.caption(t("evaluate.on_library"))
pdf_dir = ""
if options.choose_pdf_dir:  # administrators only: a folder of PDFs on the server, ingested first
    with st.expander(t("evaluate.folder_option")):
        pdf_dir = st.text_input(t("evaluate.pdf_dir"), "", key="evaluate_pdf_dir", placeholder=str(options.pdf_dir))
engine_names = evaluating.evaluation_engines()
engines = st.multiselect(t("evaluate.engines"), engine_names, engine_names, key="evaluate_engines")

if st.button(t("evaluate.run"), type="primary", disabled=not lines or not engines, key="evaluate_run"):
    bar = st.progress(0.0, text=t("evaluate.starting"))

    def progress(phase: str, done: int, total: int) -> None:
        bar.progress(min(done / total, 1.0) if total else 1.0, text=f"{phase}: {done}/{total}")

    try:
        st.session_state[RESULTS_KEY] = evaluating.evaluate(
            lines, settings, engines, set_name, progress, pdf_dir, principal=principal
        )
        bar.progress(1.0, text=t("evaluate.done"))
    except RagError as err:
        st.error(escape_md(user_message(err)))

results: dict[str, Any] | None = st.session_state.get(RESULTS_KEY)
if results:
    st.subheader(t("evaluate.summary", set=results["set"], n=results["n_answerable"], total=results["n_questions"]))
    st.caption(t("evaluate.caption", engine=results["default_engine"]))
    st.dataframe(_table(evaluating.summary_rows(results)), hide_index=True, width="stretch")
    comp = results.get("baseline_comparison")
    if comp:
        (st.success if comp["beats_all"] else st.warning)(
            t("evaluate.beats" if comp["beats_all"] else "evaluate.not_beats")
        )
    for name, why in results["absent_engines"].items():
        st.caption(t("evaluate.absent", name=name, why=why))
    metric = st.selectbox(
        t("evaluate.metric"),
        ["ndcg@10", "hit@1", "hit@3", "hit@5", "mrr", "recall@10", "recall@100", "doc@3"],
        key="evaluate_metric",
    )
    matches = evaluating.language_match_lines(results)
    if matches:
        st.markdown("**" + t("evaluate.by_language_match") + "** " + t("evaluate.language_match_help"))
        for line in matches:
            st.caption(_match_words(line))
    for field in ("type", "language", "language_match"):
        data = evaluating.breakdown_rows(results, field, metric)
        if field == "language_match":  # rag_core names the groups in English (its report is the CLI's too)
            data = [{**row, field: _match_words(str(row[field]))} for row in data]
        if not data:
            continue
        base = alt.Chart(alt.Data(values=data)).encode(x=alt.X("engine:N", title=None))
        bars = base.mark_bar().encode(
            y=alt.Y("mean:Q", title=metric, scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("engine:N", title=t("evaluate.col.engine")),
            tooltip=[
                alt.Tooltip(f"{field}:N", title=_column(field)),
                alt.Tooltip("engine:N", title=t("evaluate.col.engine")),
                "mean:Q",
                "n:Q",
            ],
        )
        errs = base.mark_errorbar().encode(y=alt.Y("low:Q", title=metric), y2="high:Q")
        st.markdown("**" + t(f"evaluate.by_{field}") + "**")
        st.altair_chart(alt.layer(bars, errs).facet(column=alt.Column(f"{field}:N", title=None)))
    engine = st.selectbox(
        t("evaluate.per_question"),
        results["engines"],
        index=results["engines"].index(results["default_engine"])
        if results["default_engine"] in results["engines"]
        else 0,
        key="evaluate_engine",
    )
    st.dataframe(_table(evaluating.question_rows(results, engine)), hide_index=True, width="stretch")
    shown = results  # the results on the page now, for the deferred download
    download(
        t("evaluate.download"),
        lambda who: evaluating.evaluation_results_file(shown, settings, principal=who),
        f"results_{results['set'] or 'evaluation'}.json",
        "application/json",
        key="evaluate_download",
        settings=settings,
        principal=principal,
    )
