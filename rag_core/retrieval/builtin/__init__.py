"""The package's own search channels; each module registers its channel(s) when imported.

The import order is the registration order (`retrieval.registry`): it fixes the order of the
votes in each fusion and of the columns. A new channel is a module here, imported below (or a
module anywhere that calls `register`), a `RetrievalSettings` weight and its `search.channel.<name>`
string (ui/strings/search.py).
"""

from rag_core.retrieval.builtin import dense, dense_other, lexical, page, translated  # noqa: F401
