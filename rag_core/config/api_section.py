"""The `api` section of `Settings` (`RAG_API__<FIELD>`): the REST, OpenAI-compatible and MCP server."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ApiSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address: str = Field(
        "127.0.0.1",
        description="Address the API listens on. Loopback by default, as the app; beyond it only behind TLS.",
    )
    port: int = Field(8502, gt=0, lt=65536, description="Port of the API (`serve` starts it beside the app).")
    public_url: str = Field(
        "",
        description="Address clients reach the API at (e.g. https://library.example.com behind a TLS proxy), "
        "written in citation links and on the API tokens page; empty: the address a request came to.",
    )
    rate_limit_per_minute: int = Field(
        120, gt=0, description="Requests one token may make per minute; more are answered 429 with Retry-After."
    )
    max_body_kb: int = Field(
        256, gt=0, description="Largest JSON body accepted, in KB (uploads are bounded by parsing.max_file_mb)."
    )
    token_days: int = Field(90, gt=0, description="Lifetime of a new personal API token, in days (the default).")
    token_max_days: int = Field(365, gt=0, description="Longest lifetime a user may give a personal API token.")

    def url(self) -> str:
        """Where clients reach the API: `public_url` when set, else the configured address and port."""
        return self.public_url.rstrip("/") or f"http://{self.address}:{self.port}"
