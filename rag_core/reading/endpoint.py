"""The endpoint reader: the configured chat endpoint judges (log-probabilities where the server gives them,
else its one-token reply) and copies (`rag_core.llm.judging`)."""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.config import Settings
from rag_core.errors import BackendUnavailable
from rag_core.llm import llm_configured
from rag_core.llm.judging import short_reply, yes_no
from rag_core.reading.base import ASK, COPY, messages, register, yes_share

COPY_TOKENS = 48


class EndpointReader:
    name = "endpoint"

    def __init__(self, settings: Settings) -> None:
        if not llm_configured(settings):
            raise BackendUnavailable.of("backend.reader_endpoint")
        self.settings = settings
        self.model = settings.llm.model

    def judge(self, question: str, passages: Sequence[str], language: str) -> list[float]:
        timeout = self.settings.reader.timeout_s
        return [
            yes_share(yes_no(self.settings, messages(ASK, question, p, language), timeout, language)) for p in passages
        ]

    def copy(self, question: str, passage: str, language: str) -> str:
        return short_reply(
            self.settings,
            messages(COPY, question, passage, language),
            self.settings.reader.timeout_s,
            COPY_TOKENS,
            language,
        )


register("endpoint", EndpointReader)
