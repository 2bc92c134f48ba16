"""The guard-rails' marks, shown the same way whatever the check (`rag_core.answering.guardrails`).

A mark is a badge: its message is `t(mark.key)` (ui/strings/marks.py), its colour and icon come from
its level, its help is the check's detail. Values from documents (collection names, a verdict's
reason) are escaped. This module knows no check by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import streamlit as st

from rag_app.ui.i18n import t
from rag_app.ui.markdown import escape_md
from rag_core.models import Mark, Paragraph

Color = Literal["green", "violet", "orange", "red"]
LEVELS: dict[str, tuple[Color, str]] = {
    "ok": ("green", ":material/verified:"),
    "info": ("violet", ":material/info:"),
    "caution": ("orange", ":material/warning:"),
    "alert": ("red", ":material/report:"),
}
ICONS = {"mark.support.partly": ":material/rule:", "mark.collections.several": ":material/call_split:"}


def show_marks(marks: Sequence[Mark]) -> None:
    """One badge per mark, in the order the checks put them."""
    for mark in marks:
        color, icon = LEVELS[mark.level]
        label = t(mark.key, **{k: escape_md(v) for k, v in mark.params.items()})
        st.badge(label, color=color, icon=ICONS.get(mark.key, icon), help=escape_md(mark.detail) or None)


def show_paragraph_marks(paragraph: Paragraph) -> None:
    """A paragraph's marks, then its note when one of them needs explaining."""
    show_marks(paragraph.marks)
    if paragraph.note and any(m.explains for m in paragraph.marks):
        st.caption(escape_md(paragraph.note))
