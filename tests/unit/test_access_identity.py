"""Identities that must not be taken or forged: duplicated proxy headers, the group separator,
the local operator's reserved name and the migration of grants files that named it `local`,
header mode beyond loopback, collection names and their look-alikes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import migrations
from rag_core.access import (
    LOCAL_USER,
    AmbiguousGroupsHeader,
    DuplicateIdentityHeader,
    GrantStore,
    Principal,
    ReservedUser,
    Scope,
    exposure_refusal,
    make_principal,
    names,
    principal_from_claims,
    principal_from_headers,
)
from rag_core.config import Settings
from rag_core.errors import InputError, SchemaError
from rag_core.services.conversations import conversation_history
from rag_core.understanding import conversation_path

TRUSTED = Settings(auth={"mode": "header", "trust_proxy_headers": True})


def test_an_identity_header_sent_twice_is_refused() -> None:
    # a proxy that appends its own value after the browser's: the first one must not win
    with pytest.raises(DuplicateIdentityHeader, match="X-Forwarded-Email") as err:
        principal_from_headers({"X-Forwarded-Email": ["mallory@example.org", "alice@example.org"]}, TRUSTED)
    assert "mallory" not in str(err.value) and "alice" not in str(err.value)  # logged as is: no value in it
    with pytest.raises(DuplicateIdentityHeader, match="X-Forwarded-Groups"):
        principal_from_headers(
            {"X-Forwarded-Email": ["alice@example.org"], "X-Forwarded-Groups": ["board", "staff"]}, TRUSTED
        )
    with pytest.raises(DuplicateIdentityHeader):  # the same header under two spellings
        principal_from_headers(
            {"x-forwarded-email": "mallory@example.org", "X-Forwarded-Email": "alice@example.org"}, TRUSTED
        )
    one = principal_from_headers(
        {"X-Forwarded-Email": ["alice@example.org"], "X-Forwarded-Groups": ["staff"], "Accept": ["a", "b"]}, TRUSTED
    )  # other headers may repeat
    assert one == Principal("alice@example.org", frozenset({"staff"}))


def test_the_group_separator_is_a_setting() -> None:
    headers = {"X-Forwarded-Email": "alice@example.org", "X-Forwarded-Groups": "Finance, board|staff"}
    piped = Settings(auth={"mode": "header", "trust_proxy_headers": True, "groups_separator": "|"})
    assert principal_from_headers(headers, piped).groups == {"Finance, board", "staff"}
    claims = {"email": "alice@example.org", "groups": "Finance, board|staff"}
    assert principal_from_claims(claims, piped).groups == {"Finance, board", "staff"}
    assert principal_from_claims({**claims, "groups": ["Finance, board"]}, Settings()).groups == {"Finance, board"}
    with pytest.raises(ValueError):
        Settings(auth={"groups_separator": ""})


@pytest.mark.parametrize("user", ["local", "LOCAL", " local ", LOCAL_USER])
def test_nobody_signs_in_as_the_local_operator(user: str) -> None:
    with pytest.raises(ReservedUser):
        make_principal(user, [], Settings())
    with pytest.raises(ReservedUser):
        principal_from_headers({"X-Forwarded-Email": user}, TRUSTED)
    with pytest.raises(ReservedUser):
        principal_from_claims({"email": user}, Settings())
    assert Principal.local_operator().user == LOCAL_USER


def test_a_grants_file_that_named_the_operator_local_is_refused_until_migrated(tmp_path: Path) -> None:
    path = tmp_path / "access" / "grants.json"
    path.parent.mkdir()
    old = {
        "version": 1,
        "collections": {
            "board": {"by": "local", "at": "2026-11-01T10:00:00+00:00"},
            "bob notes": {"by": "bob@example.org", "at": "2026-11-01T10:00:00+00:00"},
        },
        "grants": [
            {
                "collection": "board",
                "subject_kind": "user",
                "subject": "local",
                "role": "manage",
                "granted_by": "local",
                "granted_at": "2026-11-01T10:00:00+00:00",
            },
            {
                "collection": "board",
                "subject_kind": "group",
                "subject": "local",
                "role": "read",
                "granted_by": "Local",
                "granted_at": "2026-11-01T10:00:00+00:00",
            },
            {
                "collection": "bob notes",
                "subject_kind": "user",
                "subject": "bob@example.org",
                "role": "manage",
                "granted_by": "bob@example.org",
                "granted_at": "2026-11-01T10:00:00+00:00",
            },
        ],
    }
    path.write_text(json.dumps(old))
    with pytest.raises(SchemaError) as refused:  # never half-read: the operator's entries would be lost
        GrantStore(tmp_path).load()
    assert refused.value.key == "library.schema_older" and "python -m rag_core migrate" in str(refused.value)
    assert json.loads(path.read_text()) == old
    assert migrations.migrate(Settings(data_dir=tmp_path), say=lambda _: None) == ["versioned-data"]
    table = GrantStore(tmp_path).load()
    stored = json.loads(path.read_text())
    assert stored["version"] == 2
    assert table.created["board"]["by"] == LOCAL_USER and table.created["bob notes"]["by"] == "bob@example.org"
    by_subject = {(g.subject_kind, g.subject): g for g in table.grants}
    assert (
        by_subject[("user", LOCAL_USER)].role == "manage" and by_subject[("user", LOCAL_USER)].granted_by == LOCAL_USER
    )
    assert ("group", "local") in by_subject  # a group called "local" is a group, not the operator
    assert by_subject[("group", "local")].granted_by == LOCAL_USER
    # a user who signs in as "local" (a header or a claim could say so) inherits nothing
    header_local = Principal("local")
    assert table.role_of(header_local, "board") is None
    assert Scope.of(table, header_local).collections == frozenset()
    # after the migration, a grant to a real user "local" is kept as it is: version 2 is not re-read as old
    GrantStore(tmp_path).grant("bob notes", "user", "local", "read", "bob@example.org")
    assert GrantStore(tmp_path).load().role_of(Principal("local"), "bob notes") == "read"
    assert GrantStore(tmp_path).load().role_of(Principal(LOCAL_USER), "bob notes") is None


def test_a_grant_on_an_old_or_newer_file_is_refused_under_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "access" / "grants.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "collections": {},
                "grants": [
                    {
                        "collection": "c",
                        "subject_kind": "user",
                        "subject": "local",
                        "role": "manage",
                        "granted_by": "local",
                        "granted_at": "2026-11-01T10:00:00+00:00",
                    }
                ],
            }
        )
    )
    before = path.read_text()
    store = GrantStore(tmp_path)
    with pytest.raises(SchemaError, match="grants 1"):
        store.register("d", "alice@example.org")  # refused under the lock: no deadlock, nothing written
    assert path.read_text() == before
    path.write_text(json.dumps({"version": 3, "collections": {}, "grants": []}))
    with pytest.raises(SchemaError) as newer:
        store.load()
    assert newer.value.key == "library.schema_newer"


def test_the_operator_keeps_its_conversations_through_the_migration(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert conversation_path(settings, "c1", LOCAL_USER) != conversation_path(settings, "c1", "alice@example.org")
    # the previous release kept them in the folder of the user "local" (the operator's former name)
    old = conversation_path(settings, "c1", "local")
    old.parent.mkdir(parents=True)
    old.write_text('{"question": "q1", "paragraphs": [{"text": "a1"}]}\n')
    (tmp_path / "access").mkdir()
    (tmp_path / "access" / "grants.json").write_text(json.dumps({"version": 1, "collections": {}, "grants": []}))
    assert migrations.migrate(settings, say=lambda _: None) == ["versioned-data"]
    assert not old.parent.exists() or not any(old.parent.iterdir())
    operator = Principal.local_operator()
    assert conversation_history(settings, "c1", principal=operator) == [("user", "q1"), ("assistant", "a1")]


@pytest.mark.parametrize(
    ("mode", "extra", "address", "refusal"),
    [
        ("local", {}, "127.0.0.1", None),
        ("local", {}, "0.0.0.0", "local"),
        ("header", {}, "127.0.0.1", None),
        ("header", {}, "::1", None),
        ("header", {}, "0.0.0.0", "header"),
        ("header", {}, "10.1.2.3", "header"),
        ("header", {"header_beyond_loopback": True}, "0.0.0.0", None),
        ("oidc", {}, "0.0.0.0", None),
    ],
)
def test_header_mode_beyond_loopback_needs_an_explicit_setting(
    mode: str, extra: dict, address: str, refusal: str | None
) -> None:
    settings = Settings(auth={"mode": mode, "trust_proxy_headers": True, **extra})
    assert exposure_refusal(settings, address) == refusal


def test_collection_names_are_normalised_and_look_alikes_found() -> None:
    assert names.clean("  ｂｏａｒｄ\u200b  2027 ") == "board 2027"
    assert names.same("BOARD", {"board", "public"}) == "board"
    assert names.same("ｂｏａｒｄ", {"board"}) == "board"
    assert names.same("bоard", {"board"}) is None  # Cyrillic о: another name...
    assert names.lookalike("bоard", {"board", "public"}) == "board"  # ...that looks like an existing one
    assert names.lookalike("βοαrd", {"Board"}) == "Board"  # Greek
    assert names.lookalike("ΒΟΑRD", {"board"}) == "board"  # Greek capitals fold to look-alikes too
    assert names.lookalike("boards", {"board"}) is None and names.lookalike("board", {"board"}) is None
    assert names.is_reserved("Default") and names.is_reserved("ｄｅｆａｕｌｔ") and names.is_reserved("dеfault")
    assert not names.is_reserved("defaults")
    with pytest.raises(InputError, match="mixes Latin"):
        names.check_new("bоard")
    assert names.check_new("Борд") == "Борд"  # one alphabet: a name like any other
    with pytest.raises(InputError):
        names.check_new(" \u200b ")


@pytest.mark.parametrize("typed", ["../../etc", "a/b", "x:y", "board\\2027", "x" * 65])
def test_a_typed_name_the_rule_would_change_is_refused_not_changed(typed: str) -> None:
    with pytest.raises(InputError) as refused:
        names.check_typed(typed)
    assert refused.value.key == "access.name_characters"
    # the control: names the rule keeps as typed pass, width and spacing normalised as the app does
    assert names.check_typed("Board 2027_v1.final") == "Board 2027_v1.final"
    assert names.check_typed("  ｂｏａｒｄ   2027 ") == "board 2027"


@pytest.mark.parametrize(
    "value, groups",
    [
        ('["Finance, board", "staff"]', {"Finance, board", "staff"}),  # a JSON array
        ('"Finance, board", "staff"', {"Finance, board", "staff"}),  # quoted items
        ('"Finance, board"', {"Finance, board"}),
        (r'"say \"hi\", board"', {'say "hi", board'}),  # an escaped quote inside a name
        ("staff,actuaries", {"staff", "actuaries"}),  # a plain list with nothing around the separator
        ("", set()),
    ],
)
def test_a_group_list_that_cannot_be_confused_is_read(value: str, groups: set[str]) -> None:
    headers = {"X-Forwarded-Email": "alice@example.org", "X-Forwarded-Groups": value}
    assert principal_from_headers(headers, TRUSTED).groups == groups


@pytest.mark.parametrize(
    "value",
    [
        "Finance, board",  # one group named "Finance, board", or "Finance" and "board"?
        "Finance, board|staff",
        '["Finance, board", 3]',
        "[Finance, board",
        '"Finance, board',
        '"Finance, board" staff',
        'staff, "Finance, board"',
    ],
)
def test_an_ambiguous_groups_header_signs_nobody_in(value: str) -> None:
    # a single group whose name holds a comma must never grant "board" (nor "Finance")
    headers = {"X-Forwarded-Email": "alice@example.org", "X-Forwarded-Groups": value}
    with pytest.raises(AmbiguousGroupsHeader, match="X-Forwarded-Groups"):
        principal_from_headers(headers, TRUSTED)


def test_the_channel_is_recorded_but_is_not_part_of_who_acts() -> None:
    api = Principal("alice@example.org", frozenset({"staff"}), channel="api")
    assert api == Principal("alice@example.org", frozenset({"staff"})) and api.channel == "api"


def test_the_command_lines_groups_are_read_as_header_mode_reads_its_header(tmp_path: Path) -> None:
    """`--groups "Finance, board"` is refused rather than split into "Finance" and "board" (or read whole);
    a JSON array or quoted names keep a comma inside a name; the separator setting is followed; the
    principal's channel is `cli`."""
    from rag_core.access import AmbiguousGroupsHeader
    from rag_core.access.principal import cli_principal

    settings = Settings(data_dir=tmp_path)
    with pytest.raises(AmbiguousGroupsHeader, match="--groups cannot be read without guessing"):
        cli_principal("carol@example.com", "Finance, board", settings)
    for given in ('["Finance, board", "staff"]', '"Finance, board", "staff"'):
        assert cli_principal("carol@example.com", given, settings).groups == {"Finance, board", "staff"}
    assert cli_principal("carol@example.com", "staff,actuaries", settings).groups == {"staff", "actuaries"}
    semicolon = settings.model_copy(update={"auth": settings.auth.model_copy(update={"groups_separator": ";"})})
    assert cli_principal("carol@example.com", "Finance, board;staff", semicolon).groups == {"Finance, board", "staff"}
    assert cli_principal("carol@example.com", None, settings).channel == "cli"
    assert cli_principal(None, None, settings).channel == "cli" and cli_principal(None, None, settings).is_admin
