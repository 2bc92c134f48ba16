"""Principals from OIDC claims and proxy headers; grants, roles and scopes on a grants file."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from rag_core.access import AccessTable, GrantStore, Principal, Scope, principal_from_claims, principal_from_headers
from rag_core.access.audit import scrub
from rag_core.config import Settings
from rag_core.errors import AccessDenied, InputError


def test_principal_from_claims_groups_and_administrators() -> None:
    settings = Settings(auth={"admin_users": ["Root@Example.org"], "admin_groups": ["it-admins"]})
    alice = principal_from_claims({"email": "alice@example.org", "groups": ["actuaries", " pricing "]}, settings)
    assert alice == Principal("alice@example.org", frozenset({"actuaries", "pricing"}), False)
    assert principal_from_claims({"email": "root@example.org"}, settings).is_admin
    assert principal_from_claims({"email": "x@example.org", "groups": "a, it-admins"}, settings).is_admin
    custom = Settings(auth={"user_claim": "preferred_username", "groups_claim": "roles"})
    assert principal_from_claims({"preferred_username": "bob", "roles": "r1"}, custom).groups == {"r1"}
    with pytest.raises(AccessDenied, match="email"):
        principal_from_claims({"sub": "123"}, settings)


def test_principal_from_headers_only_behind_a_declared_proxy() -> None:
    headers = {"X-Forwarded-Email": "alice@example.org", "X-Forwarded-Groups": "actuaries,board"}
    with pytest.raises(AccessDenied, match="TRUST_PROXY_HEADERS"):
        principal_from_headers(headers, Settings())
    trusted = Settings(auth={"mode": "header", "trust_proxy_headers": True})
    alice = principal_from_headers({k.lower(): v for k, v in headers.items()}, trusted)
    assert alice.user == "alice@example.org" and alice.groups == {"actuaries", "board"}
    with pytest.raises(AccessDenied):
        principal_from_headers({"X-Forwarded-Groups": "board"}, trusted)


def test_roles_scopes_and_administrators(tmp_path: Path) -> None:
    store = GrantStore(tmp_path)
    assert store.load() == AccessTable()
    store.grant("guides", "group", "actuaries", "read", "admin")
    store.grant("board", "user", "Alice@Example.org", "write", "admin")
    store.grant("board", "user", "alice@example.org", "manage", "admin")  # replaces the earlier role
    table = store.load()
    alice = Principal("alice@example.org", frozenset({"actuaries"}))
    assert len(table.grants) == 2 and table.role_of(alice, "board") == "manage"
    assert table.role_of(alice, "guides") == "read" and table.role_of(alice, "claims") is None
    assert Scope.of(table, alice, "read").collections == {"board", "guides"}
    assert Scope.of(table, alice, "write").collections == {"board"}
    assert Scope.of(table, Principal.local_operator()).collections is None
    assert Scope.of(table, Principal("bob@example.org"), "read").collections == frozenset()
    assert store.revoke("board", "user", "ALICE@example.org") is not None
    assert store.load().role_of(alice, "board") is None
    with pytest.raises(InputError):
        store.grant("guides", "user", "bob", "admin", "x")  # type: ignore[arg-type]  # an invalid role on purpose
    with pytest.raises(InputError):
        store.grant("guides", "user", "  ", "read", "x")


def test_registration_gives_the_creator_manage_once(tmp_path: Path) -> None:
    store = GrantStore(tmp_path)
    grant = store.register("notes", "bob@example.org")
    assert grant is not None and grant.role == "manage"
    assert store.register("notes", "eve@example.org") is None
    store.grant("shared", "group", "g", "read", "admin")
    assert store.register("shared", "eve@example.org") is None  # granted already: not a new collection


def test_concurrent_grants_are_all_kept_and_the_file_stays_whole(tmp_path: Path) -> None:
    store = GrantStore(tmp_path)

    def give(n: int) -> None:
        GrantStore(tmp_path).grant("c", "user", f"user{n}@example.org", "read", "admin")

    threads = [threading.Thread(target=give, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(json.loads(store.path.read_text())["grants"]) == 20
    assert not list(store.path.parent.glob("*.tmp"))


def test_scrub_drops_secret_fields_and_token_shaped_values() -> None:
    cleaned = scrub(
        {
            "question": "why? Bearer abcdefghijklmnop",
            "cookie": "c",
            "nested": {"id_token": "t"},
            "note": "key sk-abcdefghijklmnopqrstuv and value K3Y",
        },
        secrets=["K3Y"],
    )
    assert cleaned == {"question": "why? [redacted]", "nested": {}, "note": "key [redacted] and value [redacted]"}


def test_reported_citations_belong_to_their_user(tmp_path: Path) -> None:
    from rag_core.evaluation.citation_reports import read_reports, report_citation

    for user, question in (("alice@example.org", "q alice"), ("bob@example.org", "q bob"), (None, "q before users")):
        report_citation(tmp_path, question=question, language="en", source_id="s", pdf="a.pdf", pages=[1], user=user)
    mine = [json.loads(line)["question"] for line in read_reports(tmp_path, user="Alice@example.org").splitlines()]
    assert mine == ["q alice"]
    assert len(read_reports(tmp_path).splitlines()) == 3  # the evaluation reads them all


def test_a_message_leaving_the_library_another_way_has_its_secrets_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`permissions.scrubbed`: what the worker stores of a failed job's error, masked as the audit trail is."""
    from rag_core.services.permissions import scrubbed

    monkeypatch.setenv("RAG_LLM__API_KEY", "sk-worker-secret-42")
    settings = Settings(data_dir=tmp_path)
    text = scrubbed(settings, "ConnectionError: POST https://llm/v1 with key sk-worker-secret-42 refused")
    assert "sk-worker-secret-42" not in text and text.startswith("ConnectionError: POST https://llm/v1")
    monkeypatch.delenv("RAG_LLM__API_KEY")
    assert scrubbed(Settings(data_dir=tmp_path), "no key configured") == "no key configured"
