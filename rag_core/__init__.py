"""Document question answering for actuaries: parse, chunk, index, retrieve, answer with checked citations.

This package never imports Streamlit; the UI lives in `app.py`, `views/` and `ui/`.
"""

__version__ = "0.1.0"
