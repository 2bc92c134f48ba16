"""Fixtures shared by the integration tests of access control (tests/access_support.py)."""

from __future__ import annotations

import pytest

from tests.access_support import IngestedCollections, build_template


@pytest.fixture(scope="session")
def access_template(tmp_path_factory: pytest.TempPathFactory) -> IngestedCollections:
    """Three collections ingested once per session; tests copy it before changing it."""
    return build_template(tmp_path_factory.mktemp("access-template"))
