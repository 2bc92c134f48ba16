"""The `llm` section of `Settings` (`RAG_LLM__<FIELD>`): the OpenAI-compatible chat endpoint, how replies are
sized to it, and how its instructions and concurrency are adapted to the server."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from rag_core.config.sections import _Section


class LLMSettings(_Section):
    model: str = Field("gpt-4o-mini", description="Chat model name at the OpenAI-compatible endpoint.")
    api_key: SecretStr | None = Field(None, description="API key of the chat endpoint (also read from OPENAI_API_KEY).")
    base_url: str | None = Field(None, description="OpenAI-compatible base URL (also read from OPENAI_BASE_URL).")
    temperature: float = Field(0.0, description="Sampling temperature; low for faithful answers.")
    timeout_s: float = Field(
        300.0,
        description="Seconds without a byte from the endpoint (before the first token, or between two) before a chat "
        "request is abandoned. A small model on a CPU reads a prompt of 1,500-3,000 tokens in one to five minutes "
        "before its first token (measured: docs/measurements.md).",
    )
    accepts_images: bool = Field(False, description="Send the context's pictures to the model as images.")
    max_tokens: int | None = Field(
        2048,
        ge=1,
        description="Most tokens the model may write per call (an unbounded small local model can write "
        "until its context is full); sent as max_tokens. None: the endpoint's own limit (OpenAI's reasoning models "
        "refuse max_tokens: set None for them).",
    )
    stream: bool = Field(
        True, description="Stream answers as the model writes them (server-sent events); off: one reply per call."
    )
    dialect: Literal["auto", "json_schema", "json_object", "tools", "text"] = Field(
        "auto",
        description="Structured output to ask for: 'auto' probes once per endpoint and model (strict JSON "
        "schema, then JSON object with the schema in the prompt, then tool calling, then plain text) and remembers "
        "what the endpoint accepts; any other value forces that one.",
    )
    context_tokens: int = Field(
        0,
        ge=0,
        description="Most tokens the sources given to the model may take (estimated at 4 characters a "
        "token); parents beyond it are left out, the first is always kept. 0: only the parent budget applies. Set it "
        "for small-context local models.",
    )
    provider: Literal["openai", "azure"] = Field(
        "openai",
        description="'openai': any OpenAI-compatible endpoint (base_url); 'azure': Azure OpenAI at "
        "azure_endpoint, in its /openai/v1/ form, or in its deployment form when azure_api_version is set.",
    )
    azure_endpoint: str | None = Field(
        None,
        description="Azure OpenAI resource address, e.g. https://my-resource.openai.azure.com "
        "(also read from AZURE_OPENAI_ENDPOINT).",
    )
    azure_api_version: str | None = Field(
        None,
        description="Azure api-version (e.g. 2024-10-21): selects the deployment form "
        "/openai/deployments/<deployment>/chat/completions?api-version=...; unset: the /openai/v1/ form.",
    )
    azure_deployment: str | None = Field(None, description="Azure deployment name (deployment form); default: model.")
    system_role: Literal["auto", "system", "fold"] = Field(
        "auto",
        description="Instructions in one leading system message ('system'), folded into the first user message "
        "('fold': templates without a system role), or 'auto': folded for servers known to drop them and after a "
        "rejection.",
    )
    endpoint_context_tokens: int = Field(
        0, ge=0, description="The endpoint's context size (llama.cpp: n_ctx); the reply's budget derives from it."
    )
    max_paragraphs: int = Field(4, ge=1, le=20, description="Most paragraphs an answer may have (in the schema).")
    paragraph_chars: int = Field(700, ge=100, description="Most characters of one answer paragraph (in the schema).")
    quote_chars: int = Field(240, ge=40, description="Most characters of a paragraph's quote (in the schema).")
    concurrency: int = Field(
        0, ge=0, description="Most generations at once per endpoint, others queue; 0: 1 for servers that cancel."
    )
    optional_max_latency_s: float = Field(
        20.0, ge=0, description="Skip the optional calls when the first token took longer (0: never skip)."
    )
