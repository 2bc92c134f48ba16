"""Collections nobody can squat or imitate, and the façade verbs that change what everyone shares.

On the access library (tests/access_support.py: "board", "guides" shared with ALICE's group
"actuaries", "claims"; BOB has no grant): the reserved default collection, uploads into a
collection another user created, look-alike names, grants to a group one is not in, the answer
for a copy of an unreadable document, the thesaurus and glossary uploads, and the audit record
of an inspection. Through the façade and the CLI (`python -m rag_core` in-process).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import LOCAL_USER, Principal
from rag_core.cli.main import main
from rag_core.errors import AccessDenied, InputError
from tests.access_support import (
    ADMIN,
    ALICE,
    BOB,
    SECRET_WORD,
    IngestedCollections,
    copy_library,
    make_pdf,
    share_guides,
)

CAROL = Principal("carol@example.org", frozenset({"staff"}))


@pytest.fixture
def library(access_template: IngestedCollections, tmp_path: Path) -> IngestedCollections:
    lib = copy_library(access_template, tmp_path)
    share_guides(lib)
    return lib


def _cli(capsys: pytest.CaptureFixture, library: IngestedCollections, *args: str) -> tuple[int, str, str]:
    code = main([args[0], "--data-dir", str(library.settings.data_dir), *args[1:]])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_nobody_but_an_administrator_creates_the_default_collection(
    library: IngestedCollections, tmp_path: Path
) -> None:
    settings = library.settings
    pdf = make_pdf(tmp_path / "bob.pdf", "Bandicoot mortality table")
    for name in ("default", "Default", "ｄｅｆａｕｌｔ", "dеfault"):  # the name, its case, full-width, Cyrillic е
        with pytest.raises(AccessDenied, match="reserved"):
            pipeline.create_collection(settings, name, principal=BOB)
        with pytest.raises(AccessDenied, match="reserved"):
            pipeline.ingest([pdf], settings, collection=name, principal=BOB)
    with pytest.raises(AccessDenied, match="reserved"):  # no collection named: the default one
        pipeline.ingest([pdf], settings, principal=BOB)
    assert "default" not in pipeline.list_collections(settings, principal=ADMIN)
    assert pipeline.create_collection(settings, "default", principal=ADMIN) == "default"


def test_the_administrators_ingest_never_lands_in_a_squatted_collection(
    library: IngestedCollections, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    settings = library.settings
    # a library where BOB registered "default" before the rule existed (or an administrator let him)
    pipeline.create_collection(settings, "default", principal=ADMIN)
    grants = settings.data_dir / "access" / "grants.json"
    data = json.loads(grants.read_text())
    data["collections"]["default"]["by"] = BOB.user
    for grant in data["grants"]:
        if grant["collection"] == "default":
            grant["subject"] = BOB.user
    grants.write_text(json.dumps(data))
    assert pipeline.manageable_collections(settings, principal=BOB) == ["default"]

    board_minutes = make_pdf(tmp_path / "minutes.pdf", f"{SECRET_WORD} board minutes")
    code, _, err = _cli(capsys, library, "ingest", str(board_minutes))  # the administrator's plain ingest
    assert code == 2 and f"created by {BOB.user}" in err and "--into-existing" in err
    assert pipeline.list_documents(settings, "default", principal=ADMIN) == []
    assert SECRET_WORD not in json.dumps(
        [h.model_dump(mode="json") for h in pipeline.search(SECRET_WORD, settings, principal=BOB).parents]
    )
    with pytest.raises(AccessDenied, match=BOB.user):
        pipeline.ingest([board_minutes], settings, principal=ADMIN)
    # said explicitly: the administrator means it
    code, out, _ = _cli(capsys, library, "ingest", str(board_minutes), "--into-existing")
    assert code == 0 and "ingested" in out
    assert [d.file_name for d in pipeline.list_documents(settings, "default", principal=BOB)] == ["minutes.pdf"]


def test_uploads_into_a_collection_someone_else_created_must_be_meant(
    library: IngestedCollections, tmp_path: Path
) -> None:
    settings = library.settings
    pipeline.create_collection(settings, "Reserving 2027", principal=ALICE)
    pipeline.grant(settings, "Reserving 2027", principal=ALICE, user=BOB.user, role="write")
    pdf = make_pdf(tmp_path / "bob.pdf", "Bandicoot mortality table")
    with pytest.raises(AccessDenied, match=f"created by {ALICE.user}"):
        pipeline.ingest([pdf], settings, collection="Reserving 2027", principal=BOB)
    (result,) = pipeline.ingest([pdf], settings, collection="reserving 2027", principal=BOB, into_existing=True)
    assert result.status == "ingested", result.message
    assert result.record is not None and result.record.collection == "Reserving 2027"  # one collection, any case
    pdf2 = make_pdf(tmp_path / "alice.pdf", "Numbat pricing note")
    (mine,) = pipeline.ingest([pdf2], settings, collection="RESERVING 2027", principal=ALICE)  # its creator
    assert mine.status == "ingested", mine.message


def test_look_alike_collection_names_are_refused(library: IngestedCollections, tmp_path: Path) -> None:
    settings = library.settings
    pdf = make_pdf(tmp_path / "bob.pdf", "Bandicoot mortality table")
    for name in ("bоard", "bοard", "bоаrd"):  # Cyrillic о; Greek ο; Cyrillic о and а
        with pytest.raises(InputError) as err:
            pipeline.create_collection(settings, name, principal=BOB)
        assert "'board'" not in str(err.value)  # BOB cannot read "board": its name is not given
        with pytest.raises(InputError):
            pipeline.ingest([pdf], settings, collection=name, principal=BOB)
    with pytest.raises(InputError, match="'guides'"):  # ALICE reads "guides": told which one
        pipeline.create_collection(settings, "guіdes", principal=ALICE)
    for name in ("ｂｏａｒｄ", "BOARD", "Board"):  # the same name: BOB may not manage it
        with pytest.raises(AccessDenied):
            pipeline.create_collection(settings, name, principal=BOB)
        with pytest.raises(AccessDenied):
            pipeline.ingest([pdf], settings, collection=name, principal=BOB)
    assert sorted(pipeline.list_collections(settings, principal=ADMIN)) == ["board", "claims", "guides"]
    # a whole-Cyrillic name that imitates nothing is an ordinary name
    assert pipeline.create_collection(settings, "Борд", principal=BOB) == "Борд"


def test_only_members_or_administrators_grant_to_a_group(library: IngestedCollections) -> None:
    settings = library.settings
    pipeline.create_collection(settings, "bob notes", principal=BOB)
    with pytest.raises(AccessDenied, match="member of the group 'actuaries'"):
        pipeline.grant(settings, "bob notes", principal=BOB, group="actuaries", role="read")
    assert "bob notes" not in pipeline.list_collections(settings, principal=ALICE)
    pipeline.grant(settings, "bob notes", principal=BOB, user=ALICE.user, role="read")  # a person: allowed
    pipeline.create_collection(settings, "alice notes", principal=ALICE)
    pipeline.grant(settings, "alice notes", principal=ALICE, group="actuaries", role="read")  # her own group
    pipeline.grant(settings, "bob notes", principal=ADMIN, group="actuaries", role="read")  # an administrator
    assert pipeline.revoke(settings, "bob notes", principal=BOB, group="actuaries") is not None  # revoking: any manager
    pipeline.grant(settings, "BOB NOTES", principal=BOB, user=CAROL.user, role="read")  # found by its normal form
    assert "bob notes" in pipeline.list_collections(settings, principal=CAROL)


def test_a_copy_of_an_unreadable_document_gets_the_answer_of_any_file_one_may_not_add(
    library: IngestedCollections,
) -> None:
    settings = library.settings
    pipeline.grant(settings, "guides", principal=ADMIN, group="actuaries", role="write")
    (unreadable,) = pipeline.ingest(
        [library.pdfs["board"]], settings, collection="guides", principal=ALICE, into_existing=True
    )
    pipeline.grant(settings, "claims", principal=ADMIN, user=ALICE.user, role="read")
    (readable,) = pipeline.ingest(
        [library.pdfs["claims"]], settings, collection="guides", principal=ALICE, into_existing=True
    )
    assert unreadable.status == readable.status == "refused"
    assert unreadable.message == readable.message  # nothing tells the unreadable copy from a readable one
    assert "already" not in unreadable.message.lower() and "board" not in unreadable.message
    assert pipeline.get_document(library.doc_ids["board"], settings, principal=ADMIN).collection == "board"


def test_the_thesaurus_and_the_glossary_are_changed_by_administrators_only(library: IngestedCollections) -> None:
    settings = library.settings
    glossary = json.dumps(
        {"name": "mine", "entries": [{"fr": "coefficient de Tartempion", "en": "Tartempion ratio"}]}
    ).encode()
    thesaurus_file = settings.data_dir / "thesaurus.json"
    with pytest.raises(AccessDenied, match="administrator"):
        pipeline.upload_glossary(glossary, settings, principal=ALICE)
    with pytest.raises(AccessDenied, match="administrator"):
        pipeline.upload_thesaurus(b'{"name": "x", "concepts": []}', settings, principal=ALICE)
    assert pipeline.glossary_info(settings)["extension"] is None and not thesaurus_file.exists()
    assert pipeline.upload_glossary(glossary, settings, principal=ADMIN) == 1
    with pytest.raises(TypeError):
        pipeline.upload_glossary(glossary, settings)  # type: ignore[call-arg]  # the missing principal is the point


def test_inspecting_a_document_is_recorded(library: IngestedCollections, capsys: pytest.CaptureFixture) -> None:
    settings = library.settings
    pipeline.inspect(library.doc_ids["guides"], settings, principal=ALICE)
    code, _, _ = _cli(capsys, library, "inspect", library.doc_ids["claims"][:12])
    assert code == 0
    records = [r for r in pipeline.audit_events(settings, principal=ADMIN) if r["event"] == "document_inspected"]
    assert [(r["user"], r["doc_id"], r["collection"]) for r in records] == [
        (ALICE.user, library.doc_ids["guides"], "guides"),
        (LOCAL_USER, library.doc_ids["claims"], "claims"),
    ]
