"""Settings: one pydantic-settings class, `RAG_` prefix, nested sections with `__`.

Example: `RAG_DATA_DIR=/srv/rag`, `RAG_EMBEDDING__BACKEND=bge-m3`,
`RAG_LLM__MODEL=gpt-4o-mini`. The OpenAI key and base URL are also read from the
conventional `OPENAI_API_KEY` / `OPENAI_BASE_URL` variables. Settings are passed
explicitly to core functions; there is no global instance.

The sections' classes live in `sections.py` and are re-exported here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rag_core.config.api_section import ApiSettings
from rag_core.config.llm_section import LLMSettings
from rag_core.config.reader_section import ReaderSettings
from rag_core.config.sections import (
    AnswerSettings,
    AuditSettings,
    AuthSettings,
    ChunkingSettings,
    EmbeddingSettings,
    IngestSettings,
    JobsSettings,
    ParsingSettings,
    RerankerSettings,
    RetrievalSettings,
    StorageSettings,
    UnderstandingSettings,
)

__all__ = [
    "ApiSettings",
    "AnswerSettings",
    "AuditSettings",
    "AuthSettings",
    "ChunkingSettings",
    "EmbeddingSettings",
    "IngestSettings",
    "JobsSettings",
    "LLMSettings",
    "ParsingSettings",
    "ReaderSettings",
    "RerankerSettings",
    "RetrievalSettings",
    "Settings",
    "StorageSettings",
    "UnderstandingSettings",
]


def is_object_store(uri: str) -> bool:
    """`s3://bucket/prefix` and the like; a plain path or a `file://` URI names a local directory."""
    return "://" in uri and not uri.startswith("file://")


class Settings(BaseSettings):
    """All settings of the product. Pass an instance explicitly; never use a global."""

    model_config = SettingsConfigDict(
        env_prefix="RAG_", env_nested_delimiter="__", extra="forbid", validate_default=True
    )

    data_dir: Path = Field(Path("data"), description="Where documents, parsed files and the index live.")
    library_uri: str | None = Field(
        None,
        description="The whole library (tables, document folders, uploads, grants, audit): a directory, or an "
        "object store such as s3://bucket/prefix (with the usual AWS_* variables: AWS_ENDPOINT, AWS_REGION, keys, "
        "AWS_ALLOW_HTTP=true for a local test server). Default: data_dir.",
    )
    lancedb_uri: str | None = Field(
        None, description="LanceDB URI (a directory, or s3://, gs://, az://); default: <library>/lancedb."
    )
    storage: StorageSettings = Field(
        default_factory=StorageSettings, description="The local cache of a library kept in an object store."
    )
    parsing: ParsingSettings = Field(default_factory=ParsingSettings, description="PDF parsing.")
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings, description="Parents and children.")
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings, description="Dense embeddings.")
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings, description="Hybrid retrieval.")
    reranker: RerankerSettings = Field(default_factory=RerankerSettings, description="Optional reranker.")
    understanding: UnderstandingSettings = Field(
        default_factory=UnderstandingSettings, description="Follow-ups, context budget, sub-questions, thesaurus."
    )
    llm: LLMSettings = Field(default_factory=LLMSettings, description="Chat endpoint for answers.")
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description="Answer policy.")
    reader: ReaderSettings = Field(
        default_factory=ReaderSettings, description="The model that judges which passage states the answer."
    )
    auth: AuthSettings = Field(default_factory=AuthSettings, description="Sign-in mode and administrators.")
    audit: AuditSettings = Field(default_factory=AuditSettings, description="The audit trail.")
    jobs: JobsSettings = Field(default_factory=JobsSettings, description="The upload queue and its workers.")
    api: ApiSettings = Field(default_factory=ApiSettings, description="The REST, OpenAI-compatible and MCP server.")
    ingest: IngestSettings = Field(
        default_factory=IngestSettings, description="Where the workers run the ingestion stages (local or Ray)."
    )
    openai_api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("OPENAI_API_KEY", "RAG_OPENAI_API_KEY"),
        description="Conventional OpenAI key variable; used when llm.api_key is unset.",
    )
    openai_base_url: str | None = Field(
        None,
        validation_alias=AliasChoices("OPENAI_BASE_URL", "RAG_OPENAI_BASE_URL"),
        description="Conventional OpenAI base URL variable; used when llm.base_url is unset.",
    )

    azure_openai_endpoint: str | None = Field(
        None,
        validation_alias=AliasChoices("AZURE_OPENAI_ENDPOINT", "RAG_AZURE_OPENAI_ENDPOINT"),
        description="Conventional Azure OpenAI endpoint variable; used when llm.azure_endpoint is unset.",
    )

    @model_validator(mode="after")
    def _local_library_is_data_dir(self) -> Settings:
        """A library URI that names a directory is the data directory (RAG_DATA_DIR is its older name)."""
        uri = self.library_uri
        if uri and not is_object_store(uri):
            self.data_dir = Path(uri.removeprefix("file://"))
            self.library_uri = None
        return self

    @property
    def library_is_remote(self) -> bool:
        """The library is in an object store (a directory URI was turned into `data_dir` on validation)."""
        return self.library_uri is not None

    @property
    def db_uri(self) -> str:
        if self.lancedb_uri:
            return self.lancedb_uri
        if self.library_is_remote:
            return f"{str(self.library_uri).rstrip('/')}/lancedb"
        return str(self.data_dir / "lancedb")

    @property
    def documents_dir(self) -> Path:
        """The document folders: the library's own, or their cached copies when the library is remote."""
        return (self.storage.cache_dir if self.library_is_remote else self.data_dir) / "documents"

    @property
    def uploads_dir(self) -> Path:
        """Uploaded bytes waiting for their job, named by their SHA-256 (cached copies when remote)."""
        return (self.storage.cache_dir if self.library_is_remote else self.data_dir) / "uploads"

    def llm_key(self) -> SecretStr | None:
        return self.llm.api_key or self.openai_api_key

    def llm_base_url(self) -> str | None:
        return self.llm.base_url or self.openai_base_url

    def azure_endpoint(self) -> str | None:
        return self.llm.azure_endpoint or self.azure_openai_endpoint

    def signature(self, *sections: str) -> str:
        """Short hash of the named sections: anything that changes an output is in its signature."""
        payload = {name: getattr(self, name).model_dump(mode="json") for name in sections}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]
