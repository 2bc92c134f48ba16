"""The Library's list of documents: a table (nothing cut) whose first column is each document's
title, its full file name shown on hover and in the next column (the name an analyst uploaded and
searches the list for), with the author and the date its metadata gives.

`st.table` draws a pandas Styler's tooltips (`st.dataframe` does not). The tooltip is a CSS
string: its text is escaped, so a file name cannot end the string or the style sheet.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from rag_app.ui.i18n import t
from rag_core.models import DocumentRecord

COLUMNS = ["title", "file_name", "author", "date", "collection", "language", "pages", "tables", "ingested_at", "status"]
# How each document was cut and indexed: the method's words, in a folded table of their own
METHOD_COLUMNS = ["file_name", "parents", "children", "parser", "embedder", "elapsed_s"]


def css_string(text: str) -> str:
    """`text` as the inside of a double-quoted CSS string: quotes, backslashes, angle brackets
    and control characters written as hexadecimal escapes."""
    return "".join(f"\\{ord(ch):x} " if ch in '"\\<>' or not ch.isprintable() else ch for ch in text)


def documents_frame(documents: Sequence[DocumentRecord], columns: Sequence[str] = COLUMNS) -> pd.DataFrame:
    """One row per document, the columns named in the page's language."""
    rows = [d.model_dump(mode="json", include=set(columns)) for d in documents]
    frame = pd.DataFrame(rows, columns=list(columns))
    if "title" in columns:
        frame["title"] = [d.title or d.file_name for d in documents]
    frame.columns = [t(f"col.{c}") for c in columns]
    return frame


def show_documents(documents: Sequence[DocumentRecord]) -> None:
    """The documents in the user's words; how each was cut and indexed (parents, children, parser,
    embedder) folded below, for those who tune the method."""
    frame = documents_frame(documents)
    tips = pd.DataFrame("", index=frame.index, columns=frame.columns)
    tips.iloc[:, 0] = [css_string(d.file_name) for d in documents]
    st.table(frame.style.set_tooltips(tips).format(precision=1), hide_index=True)
    with st.expander(t("library.method_table")):
        st.dataframe(documents_frame(documents, METHOD_COLUMNS), hide_index=True, width="stretch")
