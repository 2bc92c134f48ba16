"""Streamlit helpers shared by the pages: session-state keys, cached resources, widgets, strings.

Nothing here holds state in module globals: per-user state lives in `st.session_state`.
"""
