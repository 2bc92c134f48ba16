"""Start the test OIDC provider (tests/oidc/provider.py) and write the app's secrets.toml for it."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

from tests.ui.browser_support import REPO, free_port, wait_until_up

CLIENT_ID = "rag-actuariat-tests"


def start_provider(users: dict[str, dict], workdir: Path, timeout_s: float = 30) -> tuple[subprocess.Popen, str, str]:
    """(process, issuer URL, client secret); returns once the discovery document answers."""
    workdir.mkdir(parents=True, exist_ok=True)
    users_file = workdir / "users.json"
    users_file.write_text(json.dumps(users), encoding="utf-8")
    port, client_secret = free_port(), secrets.token_urlsafe(24)
    log = (workdir / "provider.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.oidc.provider",
            "--port",
            str(port),
            "--users",
            str(users_file),
            f"--client-id={CLIENT_ID}",
            f"--client-secret={client_secret}",
        ],
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    issuer = f"http://127.0.0.1:{port}"
    wait_until_up(proc, f"{issuer}/.well-known/openid-configuration", workdir / "provider.log", timeout_s)
    return proc, issuer, client_secret


def write_secrets(path: Path, issuer: str, client_secret: str) -> Path:
    """The `[auth]` block of .streamlit/secrets.toml, as the worked example of docs/deployment.md, for this provider.

    `{port}` is filled in by Streamlit with the port it listens on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        f'client_id = "{CLIENT_ID}"\n'
        f'client_secret = "{client_secret}"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n',
        encoding="utf-8",
    )
    return path


def browser_sign_in(page, url: str, user: str, password: str) -> None:
    """Sign `user` in from the app's sign-in screen through the test provider's form (Playwright)."""
    from tests.ui.browser_support import goto, rerun

    goto(page, url)
    page.get_by_role("button", name="Se connecter").click()  # st.login: off to the provider's own form
    page.locator("#username").wait_for(timeout=30_000)
    page.fill("#username", user)
    page.fill("#password", password)
    with rerun(page):  # back at the app, on a new websocket: the home page's run
        page.click("#submit")
        page.wait_for_url(lambda address: address.startswith(url) and "oauth2callback" not in address, timeout=60_000)
    page.get_by_text(f"Connecté : {user}").wait_for(timeout=10_000)
