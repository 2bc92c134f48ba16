"""Document question answering for actuaries: parse, chunk, index, retrieve, answer with checked citations.

This package never imports Streamlit; the UI lives in `app.py`, `views/` and `ui/`.
"""

from rag_core.deferred_import import defer_lancedb_clients, defer_pymupdf_layout

__version__ = "0.1.0"

# before any module imports lancedb or PyMuPDF: about 1.5 CPU-s and 50 MB less per process (deferred_import.py)
defer_lancedb_clients()
defer_pymupdf_layout()
