"""Patch a real function with a test's fake, refusing a fake that no longer matches it.

`monkeypatch.setattr(..., raising=False)` would quietly add a function the code no longer
calls after a rename; this fails instead, and also when the real parameters changed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest


def replace(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, fake: Callable[..., Any]) -> None:
    real = getattr(owner, name)  # AttributeError when the real function was renamed or removed
    expected = list(inspect.signature(real).parameters)
    assert list(inspect.signature(fake).parameters) == expected, f"the fake of {name} must take {expected}"
    monkeypatch.setattr(owner, name, fake)
