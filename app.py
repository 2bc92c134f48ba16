"""Entry page: language switch, navigation between the pages, and the backends in use."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pandas as pd
import streamlit as st

from rag_core import pipeline
from ui.i18n import DEFAULT_LANG, LANG_KEY, t
from ui.resources import get_settings
from ui.widgets import call, escape_md, load_css

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

st.set_page_config(page_title="RAG actuariat", page_icon="assets/logo.svg", layout="wide")
load_css()


def home() -> None:
    st.title(t("app.title"))
    st.markdown(t("app.intro"))
    settings = get_settings()
    if settings is None:
        return
    st.subheader(t("backends.title"))
    ok, backends = call(pipeline.backends, settings)
    if ok and backends:
        frame = pd.DataFrame(
            {t("backends.component"): list(backends), t("backends.value"): [str(v) for v in backends.values()]}
        )
        st.dataframe(frame, hide_index=True, width="stretch")
    st.info(t("backends.help"))
    st.caption(escape_md(t("data_dir", path=str(settings.data_dir.resolve()))))


with st.sidebar:
    st.image("assets/logo.svg", width=48)
    st.session_state.setdefault(LANG_KEY, DEFAULT_LANG)
    st.radio(
        t("lang.label"), ["fr", "en"], key=LANG_KEY, horizontal=True,
        format_func=lambda code: {"fr": "Français", "en": "English"}[code],
    )

OWN_PAGES = {"library": ":material/library_books:", "inspect": ":material/plagiarism:",
             "ask": ":material/forum:", "search": ":material/manage_search:"}


def other_pages() -> list:
    """Pages added by other teams in pages/ (e.g. 6_Evaluate.py), listed after ours under their file name."""
    found = []
    for path in sorted(Path(__file__).resolve().parent.joinpath("pages").glob("*.py")):
        if path.stem in OWN_PAGES or path.stem.startswith("_"):
            continue
        title = re.sub(r"^\d+_", "", path.stem).replace("_", " ")
        found.append(st.Page(f"pages/{path.name}", title=title, url_path=re.sub(r"\W+", "_", title.lower())))
    return found


navigation = st.navigation(
    [st.Page(home, title=t("nav.home"), icon=":material/home:", url_path="home", default=True)]
    + [st.Page(f"pages/{name}.py", title=t(f"nav.{name}"), icon=icon, url_path=name) for name, icon in OWN_PAGES.items()]
    + other_pages()
)
navigation.run()
