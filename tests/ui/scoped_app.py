"""The app in header mode over a small library with one confidential collection, for the tests of
what Streamlit's own routes (deferred downloads, `/media`, session resumption) give away.

- "board" (a PDF with a table and a figure; `SECRET_WORD` occurs only there): group "board".
- "guides": group "staff".
ANN is in group "board", BOB in "staff", ROOT an administrator; the proxy's headers say who is who,
and no header at all is nobody (the sign-in screen). The library comes from tests/access_support.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rag_core import pipeline
from rag_core.config import Settings
from tests.access_support import ADMIN, SECRET_QUERY, SECRET_WORD, IngestedCollections, build_template, copy_library  # noqa: F401
from tests.ui.browser_support import start_app, stop_app

ANN = {"X-Forwarded-Email": "ann@example.org", "X-Forwarded-Groups": "board"}
BOB = {"X-Forwarded-Email": "bob@example.org", "X-Forwarded-Groups": "staff"}
ROOT = {"X-Forwarded-Email": "root@example.org"}  # an administrator (RAG_AUTH__ADMIN_USERS)
EXPORT_URL_LIFETIME_S = 5  # short, so that a test sees an export's address die without waiting long
HEADER_MODE = {
    "RAG_AUTH__MODE": "header",
    "RAG_AUTH__TRUST_PROXY_HEADERS": "true",
    "RAG_AUTH__ADMIN_USERS": '["root@example.org"]',
    "RAG_AUDIT__EXPORT_URL_LIFETIME_S": str(EXPORT_URL_LIFETIME_S),
}


@dataclass
class ScopedApp:
    url: str
    proc: subprocess.Popen
    library: IngestedCollections

    @property
    def settings(self) -> Settings:
        return self.library.settings

    def events(self, event: str) -> list[dict]:
        """The audit trail's records of `event`, read as an administrator."""
        return [e for e in pipeline.audit_events(self.settings, principal=ADMIN) if e.get("event") == event]


def grant_groups(library: IngestedCollections) -> None:
    pipeline.grant(library.settings, "board", principal=ADMIN, group="board", role="read")
    pipeline.grant(library.settings, "guides", principal=ADMIN, group="staff", role="read")


@contextmanager
def scoped_app(root: Path, log_path: Path, template: IngestedCollections) -> Iterator[ScopedApp]:
    """The app in header mode on a copy of `template` (the `access_template` fixture) with the groups' grants."""
    library = copy_library(template, root)
    grant_groups(library)
    proc, url = start_app(library.settings.data_dir, log_path, env=HEADER_MODE)
    try:
        yield ScopedApp(url, proc, library)
    finally:
        stop_app(proc)
