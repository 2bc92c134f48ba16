"""What runs now: where the library lives (checked usable) and each concern's backend, as the pages show them."""

from __future__ import annotations

from rag_core import parsing, reranking, storage
from rag_core.config import Settings
from rag_core.embedding import resolve_backend
from rag_core.llm import known_dialect, llm_configured
from rag_core.messages import message


def library_location(settings: Settings) -> str:
    """Where the library lives, once checked usable (`StorageError` with what to fix otherwise:
    an object store that cannot be reached, or that ignores conditional writes)."""
    storage.require_available(settings)
    return str(settings.library_uri) if settings.library_is_remote else str(settings.data_dir.resolve())


def backends(settings: Settings) -> dict[str, str]:
    """What runs now for each concern, and how to enable the production backend."""
    pdf = parsing.resolve_pdf_backend(settings)
    emb = resolve_backend(settings)
    llm = llm_configured(settings)
    return {
        "parser": pdf if pdf == "docling" else message("engines.parser_hint", name=pdf),
        "embedder": emb if emb == "bge-m3" else message("engines.embedder_hint", name=emb),
        "reranker": reranking.reranker_status(settings),
        "answers": answers_backend(settings) if llm else message("engines.extractive"),
    }


def answers_backend(settings: Settings) -> str:
    """The answer backend as the home page's backends table says it: endpoint, model, dialect, streaming."""
    where = "Azure OpenAI" if settings.llm.provider == "azure" else "LLM"
    dialect = known_dialect(settings)
    key = f"engines.llm_{'' if dialect else 'probe_'}{'' if settings.llm.stream else 'not_'}streamed"
    return message(key, where=where, model=settings.llm.model, dialect=dialect)
