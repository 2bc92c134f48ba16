"""The API server for the integration tests: the access library (tests/access_support.py) plus
one short real corpus PDF in "guides", personal tokens, and `python -m rag_core api` started as
a real process on a free port of 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from tests.access_support import ADMIN, ALICE, BOB, IngestedCollections, copy_library, share_guides
from tests.conftest import CORPUS
from tests.jobs_support import REPO, wait_until
from tests.ui.browser_support import answers, free_port

CORPUS_PDF = CORPUS / "en_actuar_coverage_modifications.pdf"
RATE_LIMIT = 40  # per token and minute on the test server


@dataclass
class Served:
    lib: IngestedCollections
    url: str
    proc: subprocess.Popen
    tokens: dict[str, str]  # name -> token
    coverage_id: str  # the corpus PDF's document id

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: object = None,
        raw: bytes | None = None,
        content_type: str | None = "application/json",
    ):
        """(status, headers, body bytes) of one request; never raises for an HTTP error."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if data is not None and content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=120) as resp:
                return resp.status, dict(resp.headers), resp.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()


def token_of(lib: IngestedCollections, who: Principal, name: str = "tests") -> str:
    return pipeline.create_api_token(lib.settings, name, principal=who)[0]


def start_api(lib: IngestedCollections, **env: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag_core", "api", "--data-dir", str(lib.settings.data_dir), "--port", str(port)],
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        return answers(f"{url}/health")

    wait_until(up, 120)
    return proc, url


def guides_with_corpus_pdf(template: IngestedCollections) -> tuple[IngestedCollections, str]:
    """`template` with "guides" shared and CORPUS_PDF ingested into it, and that document's id: made once
    beside `template` (the API modules each made it again), never written to afterwards (served copies)."""
    from filelock import FileLock

    root = template.settings.data_dir.parent / "guides-with-corpus-pdf"
    with FileLock(str(root) + ".lock"):
        if not (root / "doc_id").is_file():
            shutil.rmtree(root, ignore_errors=True)
            lib = copy_library(template, root)
            share_guides(lib)
            (result,) = pipeline.ingest([CORPUS_PDF], lib.settings, collection="guides", principal=ADMIN)
            assert result.status == "ingested", result.message
            (root / "doc_id").write_text(str(result.doc_id), encoding="utf-8")
    made = IngestedCollections(Settings(data_dir=root / "data"), template.pdfs, template.doc_ids)
    return made, (root / "doc_id").read_text(encoding="utf-8")


def serve_library(template: IngestedCollections, root: Path, **env: str) -> Served:
    """The API on a copy of `template` whose "guides" are shared and hold CORPUS_PDF."""
    with_pdf, doc_id = guides_with_corpus_pdf(template)
    lib = copy_library(with_pdf, root)
    tokens = {"alice": token_of(lib, ALICE), "bob": token_of(lib, BOB), "admin": token_of(lib, ADMIN)}
    tokens["limited"] = token_of(lib, BOB, "rate")
    proc, url = start_api(lib, **{"RAG_API__RATE_LIMIT_PER_MINUTE": str(RATE_LIMIT), **env})
    return Served(lib, url, proc, tokens, doc_id)


@contextmanager
def served_library(template: IngestedCollections, root: Path, **env: str) -> Iterator[Served]:
    """`serve_library` for the length of a block (a module's fixture): the server is stopped at its end."""
    server = serve_library(template, root, **env)
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=30)


def openai_client(served: Served, who: str) -> Any:
    """The official OpenAI client on the served `/v1`, with `who`'s token, no retries."""
    import openai

    return openai.OpenAI(base_url=served.url + "/v1", api_key=served.tokens[who], max_retries=0)
