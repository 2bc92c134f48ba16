"""The audit trail's table in the page's language (ui.audit_table)."""

from __future__ import annotations

import streamlit as st

from rag_app.ui.audit_table import audit_frame, cell

EVENT = {
    "at": "2026-12-06T07:03:12.123456+00:00",
    "event": "question",
    "user": "alice",
    "groups": [],
    "admin": True,
    "channel": "app",
    "question": "What is IBNR?",
    "scope": {"collections": ["vignettes"]},
    "details": {"kept": 2},
}


def test_the_audit_table_speaks_french_then_english() -> None:
    st.session_state["lang"] = "fr"
    try:
        frame = audit_frame([EVENT])
        assert list(frame.columns[:6]) == [
            "date et heure (UTC)",
            "événement",
            "utilisateur",
            "administrateur",
            "accès par",
            "question",
        ]  # the groups column, empty in every row, is left out
        row = frame.iloc[0].tolist()
        assert row[:5] == ["06/12/2026 07:03:12", "question posée", "alice", "oui", "application"]
        assert not {"True", "[]", "app"} & set(row)
        st.session_state["lang"] = "en"
        english = audit_frame([EVENT | {"admin": False, "groups": ["actuaries", "audit"]}])
        assert list(english.columns[:6]) == [
            "date and time (UTC)",
            "event",
            "user",
            "groups",
            "administrator",
            "reached through",
        ]
        assert english.iloc[0].tolist()[:6] == [
            "2026-12-06 07:03:12",
            "question asked",
            "alice",
            "actuaries, audit",
            "no",
            "app",
        ]
    finally:
        st.session_state.pop("lang", None)


def test_cells_in_words() -> None:
    assert cell([]) == "" and cell(None) == "" and cell(["a", 2]) == "a, 2"
    assert cell({"collections": ["x", "y"], "empty": []}) == "collections: x, y"
