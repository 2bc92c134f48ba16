"""The sign-in gate through streamlit.testing.v1.AppTest: what renders in each mode before anyone is
signed in, the local mode's loopback rule, the sign-in record, and the page layout that keeps
every page behind app.py's navigation. The browser tests (test_browser_access.py) do the real
sign-ins; these are the fast checks of the same rules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from rag_core import pipeline
from rag_core.access import Principal
from tests.fakes import replace

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "rag_app" / "app.py")


@pytest.fixture
def sign_ins(monkeypatch: pytest.MonkeyPatch) -> list:
    seen: list = []
    replace(monkeypatch, pipeline, "record_sign_in", lambda settings, *, principal: seen.append(principal))
    replace(monkeypatch, pipeline, "backends", lambda settings: {"parser": "pymupdf"})
    return seen


def _texts(at: AppTest) -> str:
    return " ".join(str(e.value) for kind in ("title", "markdown", "error", "caption") for e in getattr(at, kind))


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"RAG_AUTH__MODE": "header"}, "les en-têtes d'identité sont ignorés"),
        (
            {"RAG_AUTH__MODE": "header", "RAG_AUTH__TRUST_PROXY_HEADERS": "true"},
            "Le proxy n'a pas indiqué qui vous êtes",
        ),
        ({"RAG_AUTH__MODE": "oidc"}, "La connexion OpenID Connect n'est pas configurée"),
    ],
)
def test_nobody_signed_in_sees_only_why(
    env: dict, expected: str, monkeypatch: pytest.MonkeyPatch, sign_ins: list
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    replace(
        monkeypatch,
        pipeline,
        "list_documents",
        lambda settings, collection=None, *, principal: pytest.fail("a page read the library"),
    )
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Connexion"
    assert expected in _texts(at).replace("\\", "")
    assert "Moteurs utilisés" not in _texts(at) and not at.table  # the home page did not render
    assert sign_ins == []


def test_local_mode_refuses_a_non_loopback_address(monkeypatch: pytest.MonkeyPatch, sign_ins: list) -> None:
    previous = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    try:
        at = AppTest.from_file(APP, default_timeout=60).run()
    finally:
        st_config.set_option("server.address", previous)
    assert "Le mode local montre tous les documents" in _texts(at)
    assert not at.dataframe and sign_ins == []


def test_local_operator_is_recorded_once_per_session(sign_ins: list) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, at.exception
    assert "mode local : vous voyez tous les documents" in " ".join(c.value for c in at.sidebar.caption)
    at.radio(key="lang").set_value("en").run()
    assert "local mode: you see every document" in " ".join(c.value for c in at.sidebar.caption)
    assert sign_ins == [Principal.local_operator()]


def test_no_pages_folder_and_every_view_checks_sign_in_first() -> None:
    # Streamlit serves a `pages/` folder beside app.py by itself: a page opened by its address on a
    # fresh server would then run without app.py (no gate, no language switch).
    assert not (REPO / "pages").exists() and not (REPO / "rag_app" / "pages").exists()
    views = sorted(
        p for p in (REPO / "rag_app" / "views").glob("*.py") if p.name != "__init__.py"
    )  # the package's docstring
    assert len(views) >= 7
    for view in views:
        tree = ast.parse(view.read_text(encoding="utf-8"))
        first = next(ast.unparse(n) for n in tree.body if not _inert(n))
        assert first.startswith("settings, principal = page_context()"), (view.name, first)


def _inert(node: ast.stmt) -> bool:
    """Imports, definitions, the docstring, constants and the logger: nothing that reads data."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        calls = [c for c in ast.walk(node.value) if isinstance(c, ast.Call)]
        return all(ast.unparse(c.func) == "logging.getLogger" for c in calls)
    return False


def test_access_page_grants_revokes_and_filters_the_audit(monkeypatch: pytest.MonkeyPatch, sign_ins: list) -> None:
    from rag_core.access import Grant

    calls: dict = {"grant": [], "revoke": [], "audit": []}
    grants = [
        Grant(
            collection="solvency",
            subject_kind="user",
            subject="bob@example.com",
            role="manage",
            granted_by="local",
            granted_at="2026-12-01T10:00:00",
        )
    ]

    def who(user: str | None, group: str | None) -> dict:
        return {k: v for k, v in (("user", user), ("group", group)) if v is not None}

    def grant(settings, collection, *, principal, user=None, group=None, role):
        calls["grant"].append((collection, role, who(user, group)))

    def revoke(settings, collection, *, principal, user=None, group=None):
        calls["revoke"].append((collection, who(user, group)))

    def audit_events(settings, *, principal, user=None, since=None, document=None):
        calls["audit"].append((user, since, document))
        return [{"time": "2026-12-01T10:00:00", "user": "bob@example.com", "event": "sign_in"}]

    replace(monkeypatch, pipeline, "manageable_collections", lambda settings, *, principal: ["reserving", "solvency"])
    replace(monkeypatch, pipeline, "list_grants", lambda settings, *, principal: grants)
    replace(monkeypatch, pipeline, "grant", grant)
    replace(monkeypatch, pipeline, "revoke", revoke)
    replace(monkeypatch, pipeline, "audit_events", audit_events)
    # signed in through a proxy: in local mode the page explains instead of offering grant forms
    monkeypatch.setenv("RAG_AUTH__MODE", "header")
    monkeypatch.setenv("RAG_AUTH__TRUST_PROXY_HEADERS", "true")
    from rag_app.ui import auth

    admin = Principal("ann@example.com", frozenset({"x"}), is_admin=True)
    monkeypatch.setattr(auth, "resolve", lambda settings: (admin, ""))
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("views/access.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Accès"
    at.selectbox(key="access_collection").set_value("solvency").run()
    assert list(at.dataframe[0].value["bénéficiaire"]) == ["bob@example.com"]
    at.radio(key="access_kind").set_value("group")
    at.text_input(key="access_subject").input("reserving")
    at.selectbox(key="access_role").set_value("read")
    at.button[0].click().run()  # the form's submit button
    assert calls["grant"] == [("solvency", "read", {"group": "reserving"})]
    at.button(key="access_revoke").click().run()
    assert calls["revoke"] == [("solvency", {"user": "bob@example.com"})]
    at.text_input(key="audit_user").input("bob@example.com").run()
    assert calls["audit"][-1] == ("bob@example.com", None, None)
    assert at.get("download_button")


def test_access_page_refuses_who_manages_nothing(monkeypatch: pytest.MonkeyPatch, sign_ins: list) -> None:
    monkeypatch.setenv("RAG_AUTH__MODE", "header")
    monkeypatch.setenv("RAG_AUTH__TRUST_PROXY_HEADERS", "true")
    replace(monkeypatch, pipeline, "manageable_collections", lambda settings, *, principal: [])
    replace(monkeypatch, pipeline, "list_grants", lambda settings, *, principal: pytest.fail("grants read"))
    from rag_app.ui import auth

    monkeypatch.setattr(auth, "resolve", lambda settings: (Principal("carol@example.com", frozenset({"x"})), ""))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, at.exception
    with pytest.raises(ValueError, match="Could not find a navigation page"):  # not in the navigation
        at.switch_page("views/access.py")
    page = AppTest.from_file(
        str(REPO / "rag_app" / "views" / "access.py"), default_timeout=60
    ).run()  # and refuses by itself
    assert "réservée aux administrateurs" in _texts(page)


class _FakeProxyRequest:
    """A fake of the request Streamlit read its headers from: AppTest has no HTTP request, so this
    stands in for what a proxy in front of the app sent (repeated headers included)."""

    def __init__(self, headers: list[tuple[str, str]]) -> None:
        self.headers = headers


def _as_if_sent(monkeypatch: pytest.MonkeyPatch, headers: list[tuple[str, str]]) -> None:
    from streamlit.runtime import context

    monkeypatch.setattr(context, "_get_client_context", lambda: _FakeProxyRequest(headers))


HEADER_MODE = {"RAG_AUTH__MODE": "header", "RAG_AUTH__TRUST_PROXY_HEADERS": "true"}


def _header_app(monkeypatch: pytest.MonkeyPatch, headers: list[tuple[str, str]], **env: str) -> AppTest:
    for key, value in {**HEADER_MODE, **env}.items():
        monkeypatch.setenv(key, value)
    _as_if_sent(monkeypatch, headers)
    replace(
        monkeypatch,
        pipeline,
        "list_documents",
        lambda settings, collection=None, *, principal: pytest.fail("a page read the library"),
    )
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def test_header_mode_signs_in_the_one_user_the_proxy_names(monkeypatch: pytest.MonkeyPatch, sign_ins: list) -> None:
    # the control for the refusals below: the same fake request, each header once
    at = _header_app(
        monkeypatch,
        [("X-Forwarded-Email", "alice@example.org"), ("X-Forwarded-Groups", "Finance, board")],
        RAG_AUTH__GROUPS_SEPARATOR="|",
    )
    assert at.title[0].value != "Connexion"
    assert sign_ins == [Principal("alice@example.org", frozenset({"Finance, board"}))]


def test_a_repeated_identity_header_shows_the_sign_in_screen(
    monkeypatch: pytest.MonkeyPatch, sign_ins: list, caplog: pytest.LogCaptureFixture
) -> None:
    at = _header_app(
        monkeypatch, [("X-Forwarded-Email", "mallory@example.org"), ("X-Forwarded-Email", "alice@example.org")]
    )
    assert at.title[0].value == "Connexion" and sign_ins == []
    assert "plusieurs fois un en-tête d'identité" in _texts(at).replace("\\", "")
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "X-Forwarded-Email" in logged and "mallory" not in logged and "alice" not in logged


def test_nobody_signs_in_under_the_local_operators_name(monkeypatch: pytest.MonkeyPatch, sign_ins: list) -> None:
    at = _header_app(monkeypatch, [("X-Forwarded-Email", "local")])
    assert at.title[0].value == "Connexion" and sign_ins == []
    assert "réservé à l'opérateur local" in _texts(at).replace("\\", "")


def test_header_mode_beyond_loopback_needs_the_explicit_setting(
    monkeypatch: pytest.MonkeyPatch, sign_ins: list, caplog: pytest.LogCaptureFixture
) -> None:
    previous = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    try:
        headers = [("X-Forwarded-Email", "alice@example.org")]
        at = _header_app(monkeypatch, headers)
        assert "l'application écoute au-delà de 127.0.0.1" in _texts(at).replace("\\", "") and sign_ins == []
        at = _header_app(monkeypatch, headers, RAG_AUTH__HEADER_BEYOND_LOOPBACK="true")
        assert at.title[0].value != "Connexion" and [p.user for p in sign_ins] == ["alice@example.org"]
        assert any("BEYOND LOOPBACK" in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)
    finally:
        st_config.set_option("server.address", previous)
