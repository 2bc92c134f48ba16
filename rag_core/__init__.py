"""Document question answering for actuaries: parse, chunk, index, retrieve, answer with checked citations.

This package never imports Streamlit; the UI lives in `app.py`, `views/` and `ui/`.
"""

from rag_core.deferred_import import defer_lancedb_clients

__version__ = "0.1.0"

defer_lancedb_clients()  # before any module imports lancedb: about 1 CPU-s less per process (deferred_import.py)
