"""The package's own search channels, one module each, registered here in a fixed order.

The order of `BUILT_IN` is the registration order (`retrieval.registry`): it fixes the order of the
votes in each fusion (a float sum) and of the columns, so it is written out here rather than left to
the order of the imports (which the import sorter may change). A new channel is a module here added
at the end of `BUILT_IN` (or a module anywhere that calls `register`); it names its weight setting
(an existing `RetrievalSettings` float field, or None for 1.0) and its UI string (`label_key`, in
ui/strings/search.py), both checked: the setting when it registers, the string by a unit test.
Nothing else names a channel.
"""

from rag_core.retrieval.builtin import dense, dense_other, lexical, page, translated
from rag_core.retrieval.registry import register

BUILT_IN = (lexical.CHANNEL, dense.CHANNEL, page.CHANNEL, dense_other.CHANNEL, *translated.CHANNELS)
for _channel in BUILT_IN:
    register(_channel)
