"""Cached resources: the Settings read from the environment.

The cache key is the relevant environment itself, so a changed `RAG_DATA_DIR` (each test has
its own) yields fresh settings instead of a stale shared instance.
"""

from __future__ import annotations

import logging
import os

import streamlit as st
from pydantic import ValidationError

from rag_app.ui.i18n import t, user_message
from rag_app.ui.markdown import escape_md
from rag_core import pipeline
from rag_core.errors import RagError
from rag_core.pipeline import Settings

log = logging.getLogger(__name__)

_ENV_PREFIXES = ("RAG_", "OPENAI_")


@st.cache_resource(show_spinner=False)
def _settings_for(env: tuple[tuple[str, str], ...]) -> Settings:
    # `env` only keys the cache; pydantic-settings reads os.environ itself.
    return Settings()


def get_settings() -> Settings | None:
    """Settings from the environment, or None after showing the user what is wrong."""
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES)))
    try:
        settings = _settings_for(env)
    except ValidationError as err:
        fields = ", ".join(".".join(str(p) for p in e["loc"]) for e in err.errors()) or "?"
        log.exception("invalid settings")
        st.error(t("error.settings", fields=fields))
        return None
    try:
        pipeline.library_location(settings)  # checked once per process and library
    except RagError as err:
        log.error("library unusable: %s", err)
        st.error(t("error.library", message=escape_md(user_message(err))))
        return None
    return settings
