"""The `reader` section of `Settings` (`RAG_READER__<FIELD>`): the model that reads the candidate passages of an
answer and judges which one states the answer (`rag_core.reading`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from rag_core.config.sections import _Section

# The default weights, installed by `make install` (tools/install_reader_model.py) and checked by their SHA-256.
DEFAULT_GGUF = Path(__file__).resolve().parents[2] / "models" / "reader" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
DEFAULT_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


class ReaderSettings(_Section):
    # Off by default: on the dev set the reader (threshold 0.5) refused 53 of 85 answerable questions and its lead
    # cited an expected page less often (36 -> 12); without refusals, +0.024 [-0.059, +0.106] lead states the gold
    # fact, at 25 s a question on two busy cores (docs/measurements.md, "The reader"). Opt in until calibrated.
    backend: Literal["auto", "embedded", "endpoint", "none"] = Field(
        "none",
        description="Who reads: 'embedded' (a GGUF model in the app process, llama.cpp through xllamacpp), "
        "'endpoint' (the configured chat endpoint, log-probabilities or a one-token reply), 'none' (no reader: "
        "the extractive answer as ranked). 'auto': embedded when its weights are on disk, else none.",
    )
    gguf: Path = Field(DEFAULT_GGUF, description="The embedded reader's GGUF file (default: Qwen2.5-Coder-1.5B).")
    sha256: str | None = Field(
        DEFAULT_SHA256,
        description="SHA-256 the GGUF file must have (checked once per process); None: not checked (a file the "
        "deployer names). A file that does not match is refused with a clear message, never used.",
    )
    threads: int = Field(2, ge=1, le=64, description="CPU threads of the embedded reader.")
    context_tokens: int = Field(2048, ge=512, description="The embedded reader's context size (n_ctx).")
    candidates: int = Field(
        5, ge=1, le=20, description="Candidate passages judged per question (the ranking's best first)."
    )
    candidate_chars: int = Field(
        420, ge=100, description="Most characters of one candidate passage (a sentence with its neighbours)."
    )
    threshold: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Judged probability that a candidate states the answer, under which no candidate answers and "
        "the question is refused as a near miss (docs/measurements.md, 'The reader').",
    )
    short_answer: bool = Field(
        True, description="When the question asks for one thing, a first line copied from the chosen passage."
    )
    timeout_s: float = Field(30.0, gt=0, description="Seconds the endpoint reader may take for one judgement.")
