"""Evaluate: run a question set against the library and show metrics with 95 % intervals.

Thin: reads widgets, calls `rag_core.evaluation.run_evaluation`, renders its results.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import altair as alt
import streamlit as st

from rag_core.config import Settings
from rag_core.errors import RagError
from rag_core.evaluation import ALL_ENGINES, read_question_lines, report, run_evaluation

RESULTS_KEY = "evaluate_results"

st.title("Evaluate retrieval")
try:
    settings = Settings()
except Exception as err:  # invalid RAG_ variables: say so, never a traceback
    st.error(f"The settings are invalid: {err}")
    st.stop()

shared = Path(os.environ.get("RAG_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
reported = settings.data_dir / "reported_citations.jsonl"
sets = sorted((shared / "eval").glob("*.jsonl")) if (shared / "eval").is_dir() else []

source = st.radio("Question set", ["Shared set", "Upload", "Reported citations"], horizontal=True,
                  key="evaluate_source")
lines: list[str] = []
set_name = ""
if source == "Shared set":
    if not sets:
        st.info(f"No question set found in {shared / 'eval'} (set RAG_SHARED_DIR).")
    else:
        chosen = st.selectbox("File", sets, format_func=lambda p: p.name, key="evaluate_file")
        lines, set_name = chosen.read_text(encoding="utf-8").splitlines(), chosen.stem
elif source == "Upload":
    upload = st.file_uploader("Questions (JSON lines)", type=["jsonl"], key="evaluate_upload")
    if upload is not None:
        lines, set_name = upload.getvalue().decode("utf-8").splitlines(), Path(upload.name).stem
elif reported.is_file():
    lines, set_name = reported.read_text(encoding="utf-8").splitlines(), "reported_citations"
else:
    st.info("No citation has been reported yet.")

pdf_dir = st.text_input("Folder of the set's PDFs (the whole folder is the search space)",
                        str(shared / "corpus" / "pdfs"), key="evaluate_pdf_dir")
engines = st.multiselect("Engines", list(ALL_ENGINES), list(ALL_ENGINES), key="evaluate_engines")

if st.button("Run", type="primary", disabled=not lines or not engines, key="evaluate_run"):
    bar = st.progress(0.0, text="Starting…")

    def progress(phase: str, done: int, total: int) -> None:
        bar.progress(min(done / total, 1.0) if total else 1.0, text=f"{phase}: {done}/{total}")

    try:
        rows = read_question_lines(lines)
        st.session_state[RESULTS_KEY] = run_evaluation(rows, Path(pdf_dir), settings, engines, set_name, progress)
        bar.progress(1.0, text="Done")
    except RagError as err:
        st.error(str(err))

results = st.session_state.get(RESULTS_KEY)
if results:
    st.subheader(f"{results['set']}: {results['n_answerable']} answerable of {results['n_questions']} questions")
    st.caption(f"Default engine: {results['default_engine']}. Page level: a page takes the rank of its best "
               "child; means with 95 % bootstrap intervals.")
    st.dataframe(report.summary_rows(results), hide_index=True, width="stretch")
    comp = results.get("baseline_comparison")
    if comp:
        (st.success if comp["beats_all"] else st.warning)(
            "The default engine " + ("beats" if comp["beats_all"] else "does not beat")
            + " the best METHOD.md §6 baseline on every column.")
    for name, why in results["absent_engines"].items():
        st.caption(f"{name}: absent ({why})")
    metric = st.selectbox("Metric for the charts", ["ndcg@10", "hit@1", "hit@3", "hit@5", "mrr", "recall@10",
                                                    "recall@100", "doc@3"], key="evaluate_metric")
    matches = report.language_match_lines(results)
    if matches:
        st.markdown("**Same language / cross-lingual** (question language vs the relevant PDFs' language; "
                    "doc@3: a relevant PDF among the first three documents)")
        for line in matches:
            st.caption(line)
    for field, title in (("type", "By type"), ("language", "By language"),
                         ("language_match", "Same language / cross-lingual")):
        data = report.breakdown_rows(results, field, metric)
        if not data:
            continue
        base = alt.Chart(alt.Data(values=data)).encode(x=alt.X("engine:N", title=None))
        bars = base.mark_bar().encode(y=alt.Y("mean:Q", title=metric, scale=alt.Scale(domain=[0, 1])),
                                      color="engine:N", tooltip=[f"{field}:N", "engine:N", "mean:Q", "n:Q"])
        errs = base.mark_errorbar().encode(y="low:Q", y2="high:Q")
        st.markdown(f"**{title}**")
        st.altair_chart(alt.layer(bars, errs).facet(column=alt.Column(f"{field}:N", title=None)))
    engine = st.selectbox("Per question, engine", results["engines"],
                          index=results["engines"].index(results["default_engine"])
                          if results["default_engine"] in results["engines"] else 0, key="evaluate_engine")
    st.dataframe(report.question_rows(results, engine), hide_index=True, width="stretch")
    st.download_button("Download results.json", json.dumps(results, ensure_ascii=False, indent=1),
                       f"results_{results['set'] or 'evaluation'}.json", "application/json", key="evaluate_download")
