"""Entry page: language switch, sign-in gate, navigation between the pages, and the backends in use.

The pages live in `rag_app/views/`, a folder Streamlit does not discover by itself: a page opened by its
address (`/ask`, a bookmark, a refresh) on a freshly started server is therefore always run
through this file's `st.navigation`, with the language switch and the sign-in gate, never as a
bare script. Each page also checks sign-in and scope itself (`ui.auth.page_context`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
import streamlit as st

from rag_app.ui import auth
from rag_app.ui import jobs as jobs_ui
from rag_app.ui.i18n import DEFAULT_LANG, LANG_KEY, t, user_message
from rag_app.ui.markdown import escape_md
from rag_app.ui.resources import get_settings
from rag_app.ui.widgets import call, load_css, uploader_texts
from rag_core import pipeline

LOGO = str(Path(__file__).resolve().parent / "assets" / "logo.svg")  # found from any working directory

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

st.set_page_config(page_title="RAG actuariat", page_icon=LOGO, layout="wide")
load_css()

# (file in views/, url path, icon); the Access page is added only for those who may use it.
VIEWS = [
    ("library", ":material/library_books:"),
    ("inspect", ":material/plagiarism:"),
    ("ask", ":material/forum:"),
    ("search", ":material/manage_search:"),
    ("evaluate", ":material/analytics:"),
]


def home() -> None:
    settings, _ = auth.page_context()
    st.title(t("app.title"))
    st.markdown(t("app.intro"))
    st.subheader(t("backends.title"))
    ok, backends = call(pipeline.backends, settings)
    if ok and backends:
        frame = pd.DataFrame(
            {
                t("backends.component"): [t(f"backends.{name}") for name in backends],
                t("backends.value"): [user_message(str(v)) for v in backends.values()],
            }
        )
        st.table(frame, hide_index=True)  # the hints are long: a table wraps them, a data grid cuts them
    st.info(t("backends.help"))
    st.caption(escape_md(t("data_dir", path=pipeline.library_location(settings))))


def sign_in() -> None:
    settings = get_settings()
    auth.sign_in_screen(settings, auth.resolve(settings)[1] if settings is not None else "auth.sign_in_needed")


with st.sidebar:
    st.image(LOGO, width=48)
    st.session_state.setdefault(LANG_KEY, DEFAULT_LANG)
    st.radio(
        t("lang.label"),
        ["fr", "en"],
        key=LANG_KEY,
        horizontal=True,
        format_func=lambda code: {"fr": "Français", "en": "English"}[code],
    )
uploader_texts()  # Streamlit's own uploader texts in the page's language

settings = get_settings()
principal, _reason = auth.resolve(settings) if settings is not None else (None, "")
auth.bind_session(principal, frozenset({LANG_KEY}))  # another principal than before: nothing of the last one stays
if settings is None or principal is None:
    # Nobody signed in: every address (the home page's and each page's) shows the sign-in screen.
    st.navigation(
        [
            st.Page(sign_in, title=t("auth.title"), icon=":material/login:", url_path=path, default=not path)
            for path in ["", *(name for name, _ in VIEWS), "access", "tokens"]
        ],
        position="hidden",
    ).run()
    st.stop()

with st.sidebar:
    auth.identity_sidebar(settings, principal)
    jobs_ui.notices(settings, principal)  # on every page: the user's imports running, a toast when one ends

views = [st.Page(f"views/{name}.py", title=t(f"nav.{name}"), icon=icon, url_path=name) for name, icon in VIEWS]
if auth.may_manage_access(settings, principal):
    views.append(
        st.Page("views/access.py", title=t("nav.access"), icon=":material/admin_panel_settings:", url_path="access")
    )
views.append(st.Page("views/tokens.py", title=t("nav.tokens"), icon=":material/key:", url_path="tokens"))
st.navigation([st.Page(home, title=t("nav.home"), icon=":material/home:", url_path="home", default=True)] + views).run()
