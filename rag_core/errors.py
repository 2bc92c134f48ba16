"""User-facing errors. Messages are written for an actuary, not a developer.

The CLI prints `RagError` messages; a Streamlit page shows them with `st.error`.
Anything that is not a `RagError` is a bug: it is logged with its traceback, and the
user sees a generic message.
"""

from typing import Self


class RagError(Exception):
    """Base class: `str(err)` is a message that can be shown to the user as is. `key` and `values`, when
    given, name it in `rag_core.messages` so that the app shows it in the page's language."""

    def __init__(self, text: str = "", *, key: str = "", values: dict[str, object] | None = None) -> None:
        super().__init__(text)
        self.key = key
        self.values = dict(values or {})

    @classmethod
    def of(cls, key: str, /, **values: object) -> Self:
        """The error of a message key (`rag_core.messages`), its English text formatted."""
        from rag_core.messages import message

        return cls(message(key, **values), key=key, values=values)


class InputError(RagError):
    """The file given by the user cannot be ingested (corrupt, encrypted, empty, too large...)."""


class BackendUnavailable(RagError):
    """A configured backend (Docling models, BGE-M3 weights, LLM endpoint) cannot be used."""


class StaleStageError(RagError):
    """A stored stage output no longer matches its inputs and must be redone."""


class IndexMismatchError(RagError):
    """The index was built with another embedding model than the one configured."""


class SchemaError(RagError):
    """The library's stored data is of another schema version than this code reads (`rag_core.migrations`)."""


class NotFoundError(RagError):
    """A document, parent or source that does not exist (or is out of scope) was asked for."""


class LLMError(RagError):
    """The chat endpoint failed (timeout, HTTP error, invalid output); `reply`: what the model wrote, if anything."""

    def __init__(self, message: str, reply: str = "") -> None:
        super().__init__(message)
        self.reply = reply


class AccessDenied(RagError):
    """The signed-in user may not do this (read, upload, delete, grant) in this collection."""


class QuotaError(RagError):
    """The user already has as many uploads waiting as one person may (the queue's cap)."""
