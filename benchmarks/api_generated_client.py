"""A client generated from the API's `/openapi.json` by a third-party generator, used as an integrator
would: search, ask, a chat completion, a citation link followed, and the error shape read as typed
objects. Prints what each call gave (JSON) and says which step failed; asserts nothing else.

    .venv/bin/python -m benchmarks.api_generated_client [--keep]

The generator (`openapi-python-client`, pinned below) is installed from PyPI into a temporary venv,
never into the project's: when it cannot be installed (no network), the script says so and exits
2. The library is the access tests' plus one real corpus PDF (tests/api_support.py), served by
`python -m rag_core api` on a free port. The generator handles binary answers only as
`application/octet-stream`; its `content_type_overrides` setting maps the page image and the PDF
excerpt to that, which is the generator's documented way, not a change to the contract.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from tests.access_support import build_template
from tests.api_support import serve_library

GENERATOR = "openapi-python-client==0.29.1"
QUESTION = "Which insurance coverage modifications does the coverage function of actuar handle?"
CONFIG = "content_type_overrides:\n  image/png: application/octet-stream\n  application/pdf: application/octet-stream\n"

# Run with the generator venv's Python (httpx and attrs come with the generator), the generated
# package `library_client` on its path.
USAGE = r"""
import json, os, urllib.parse
from library_client import AuthenticatedClient
from library_client.api.citations import open_image_api_citations_image_get as open_image
from library_client.api.citations import open_pdf_api_citations_pdf_get as open_pdf
from library_client.api.library import ask_api_ask_post as ask, search_api_search_post as search
from library_client.api.openai_compatible import chat_v1_chat_completions_post as chat
from library_client.models import (AskRequest, AskResponse, ChatCompletion, ChatRequest, ErrorBody, Message,
                                   SearchRequest, SearchResponse)

url, question = os.environ["API_URL"], os.environ["QUESTION"]
alice = AuthenticatedClient(base_url=url, token=os.environ["TOKEN"], timeout=300)
bob = AuthenticatedClient(base_url=url, token=os.environ["OTHER_TOKEN"], timeout=300)
forged = AuthenticatedClient(base_url=url, token="rag_000000000000_" + "x" * 43, timeout=30)
report = {}

found = search.sync(client=alice, body=SearchRequest(query=question))
assert isinstance(found, SearchResponse), found
report["search"] = {"passages": len(found.parents), "first": found.parents[0].document.file_name,
                    "links": found.parents[0].links.to_dict()}

answer = ask.sync(client=alice, body=AskRequest(question=question))
assert isinstance(answer, AskResponse), answer
report["ask"] = {"mode": str(answer.mode), "paragraphs": len(answer.paragraphs), "sources": len(answer.sources)}

reply = chat.sync(client=alice, body=ChatRequest(messages=[Message(role="user", content=question)]))
assert isinstance(reply, ChatCompletion), reply
cite = reply.citations[0]
report["chat"] = {"text": reply.choices[0].message.content[:120], "citation_pages": cite.pages}

ref = urllib.parse.parse_qs(urllib.parse.urlsplit(cite.links.image).query)["ref"][0]
image = open_image.sync_detailed(client=alice, ref=ref)
pdf = open_pdf.sync_detailed(client=alice, ref=ref)
refused = open_image.sync_detailed(client=bob, ref=ref)
report["citation_link"] = {
    "image": [image.status_code, image.headers.get("content-type"), image.content[:4] == b"\x89PNG"],
    "pdf": [pdf.status_code, pdf.headers.get("content-type"), pdf.content[:4] == b"%PDF"],
    "other_user": [refused.status_code, type(refused.parsed).__name__, refused.parsed.error.message],
}

invalid = search.sync_detailed(client=alice, body=SearchRequest(query=""))
no_token = search.sync_detailed(client=forged, body=SearchRequest(query=question))
for name, got in (("invalid_body", invalid), ("bad_token", no_token)):
    assert isinstance(got.parsed, ErrorBody), (name, got.status_code, got.content[:200])
    report[name] = [got.status_code, got.parsed.error.status, got.parsed.error.type_, got.parsed.error.message]
print(json.dumps(report, indent=2, ensure_ascii=False))
"""


def _step(name: str, cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
    run = subprocess.run(cmd, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if run.returncode:
        print(f"{name} failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}", file=sys.stderr)
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (venv, spec, generated client)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="api-client-"))
    venv = root / "venv"
    if _step("venv", [sys.executable, "-m", "venv", str(venv)]).returncode:
        return 2
    python = venv / "bin" / "python"
    if _step("pip install", [str(python), "-m", "pip", "install", "-q", GENERATOR], timeout=900).returncode:
        print(f"the generator {GENERATOR} could not be installed; nothing was measured", file=sys.stderr)
        return 2
    (root / "template").mkdir()
    served = serve_library(build_template(root / "template"), root / "lib")
    try:
        spec, config = root / "openapi.json", root / "generator.yaml"
        with urllib.request.urlopen(served.url + "/openapi.json", timeout=60) as resp:
            spec.write_bytes(resp.read())
        config.write_text(CONFIG)
        out = root / "gen" / "library_client"
        gen = [str(venv / "bin" / "openapi-python-client"), "generate", "--path", str(spec), "--meta", "none"]
        made = _step("generate", [*gen, "--output-path", str(out), "--config", str(config)])
        if made.returncode:
            return 1
        print("generator warnings:", [line for line in made.stdout.splitlines() if "WARNING" in line] or "none")
        env = {
            **os.environ,
            "PYTHONPATH": str(root / "gen"),
            "API_URL": served.url,
            "QUESTION": QUESTION,
            "TOKEN": served.tokens["alice"],
            "OTHER_TOKEN": served.tokens["bob"],
        }
        used = _step("generated client", [str(python), "-c", USAGE], env=env, timeout=900)
        print(used.stdout)
        return used.returncode
    finally:
        served.proc.terminate()
        served.proc.wait(timeout=30)
        if args.keep:
            print(f"kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
