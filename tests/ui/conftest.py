"""Fixtures shared by the browser tests (Playwright driving Debian's Chromium)."""

from __future__ import annotations

import pytest

from tests.ui.browser_support import launch


@pytest.fixture
def page():
    """A fresh headless Chromium page, 1500 x 1000."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        context = browser.new_context(viewport={"width": 1500, "height": 1000})
        yield context.new_page()
        browser.close()
