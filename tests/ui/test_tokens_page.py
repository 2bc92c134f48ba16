"""The API tokens page (AppTest, a real library in a temp dir, local mode): a token created on the
page is shown once and acts as its user; revoked on the page (once confirmed), it is refused at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import AccessDenied
from tests.ui.apptest_support import run_app


def test_a_token_is_created_shown_once_and_revoked_on_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "lib"))
    settings = Settings(data_dir=tmp_path / "lib")
    at = run_app("views/tokens.py")
    at.text_input[0].input("notebook")
    at.button[0].click().run()
    assert not at.exception, at.exception
    (shown,) = [c.value for c in at.code]
    principal, _ = pipeline.principal_of_token(settings, shown, "api")
    assert principal == Principal.local_operator()
    assert [r["name"] for r in pipeline.list_api_tokens(settings, principal=principal)] == ["notebook"]
    assert "notebook" in "".join(m.value for m in at.markdown)
    at.run()  # the next run no longer shows the token
    assert not at.code
    revoke = next(b for b in at.button if b.key and b.key.startswith("revoke-"))
    revoke.click().run()
    assert not at.exception, at.exception
    # asked first: the token still works until the revocation is confirmed; a cancel leaves it be
    assert any("Révoquer le jeton" in w.value for w in at.warning)
    assert pipeline.principal_of_token(settings, shown, "api")[0] == principal
    next(b for b in at.button if b.key and b.key.startswith("cancel-revoke-")).click().run()
    assert not at.warning and pipeline.principal_of_token(settings, shown, "api")[0] == principal
    next(b for b in at.button if b.key and b.key.startswith("revoke-")).click().run()
    next(b for b in at.button if b.key and b.key.startswith("confirm-revoke-")).click().run()
    assert not at.exception, at.exception
    with pytest.raises(AccessDenied):
        pipeline.principal_of_token(settings, shown, "api")


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({"RAG_API__PORT": "8613"}, "http://127.0.0.1:8613"),
        ({"RAG_API__PUBLIC_URL": "https://library.example.com/"}, "https://library.example.com"),
    ],
)
def test_the_page_says_where_the_api_listens_and_how_a_citation_link_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], url: str
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "lib"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    at = run_app("views/tokens.py")
    assert not at.exception, at.exception
    shown = "\n".join(m.value for m in at.markdown)
    assert f"**{url}**" in shown and f"`{url}/api`" in shown and f"`{url}/v1`" in shown and f"`{url}/mcp`" in shown
    assert "`links.image`" in shown and "`links.pdf`" in shown and "Authorization: Bearer" in shown
