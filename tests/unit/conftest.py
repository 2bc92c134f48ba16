"""The unit folder is the fast loop (`make check`): no test here analyses a PDF's pages or starts a server.
A test that needs either belongs in tests/integration (or tests/ui for a page); the guard below says so
at once instead of letting the loop grow slow."""

from __future__ import annotations

from typing import Any

import pytest
from pymupdf4llm.helpers import document_layout

ELSEWHERE = "tests/unit runs no {what}: move this test to tests/integration (the fast loop stays fast)"


def _refuse(what: str):
    def refuse(*args: Any, **kwargs: Any) -> Any:
        # pytest.fail raises a BaseException: the parser's fallbacks (`except Exception`) cannot hide it
        pytest.fail(ELSEWHERE.format(what=what))

    return refuse


@pytest.fixture(autouse=True)
def _fast_loop_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_layout, "parse_document", _refuse("PDF layout analysis"))
