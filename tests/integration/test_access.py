"""The leak suite below the UI: a document of a collection the user cannot read is never returned,
counted, cited, shown or exported by any pipeline entry point, even when it is the best match;
forged ids get "not found" exactly like missing ones; grants and revocations take effect at once.

IngestedCollections (tests/access_support.py): "board" (the confidential PDF, best match for SECRET_QUERY,
with a table and a figure), "guides" (shared with the group "actuaries" of ALICE), "claims"
(administrators only). BOB has no grant at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.embedding import select_embedder
from rag_core.errors import AccessDenied, InputError, NotFoundError
from rag_core.models import Answer, SearchResult
from rag_core.services.connection import open_store
from rag_core.services.conversations import conversation_history
from rag_core.services.documents import readable_document_ids
from rag_core.services.permissions import can
from tests.access_support import (
    ADMIN,
    ALICE,
    BOB,
    SECRET_QUERY,
    SECRET_WORD,
    IngestedCollections,
    copy_library,
    share_guides,
)


@pytest.fixture
def library(access_template: IngestedCollections, tmp_path: Path) -> IngestedCollections:
    lib = copy_library(access_template, tmp_path)
    share_guides(lib)
    return lib


def _board_items(lib: IngestedCollections) -> tuple[str, str]:
    """(table ref, figure path) of the board PDF, read as an administrator."""
    chunked = pipeline.load_chunks(lib.doc_ids["board"], lib.settings, principal=ADMIN)
    items = [it for p in chunked.parents for it in p.items]
    table = next(it.ref for it in items if it.kind == "table")
    figure = next(it.image_path for it in items if it.kind == "picture" and it.image_path)
    return table, figure


def _shown(value: SearchResult | Answer) -> str:
    """Everything a result shows of the library (the question the user typed left out: a refusal
    may name a word of the question that no readable document mentions, which tells nothing of the
    others)."""
    if isinstance(value, SearchResult):
        return json.dumps([h.model_dump(mode="json") for h in value.parents])
    shown = value.model_dump_json(include={"paragraphs", "sources", "uncited", "parent_ids", "missing_information"})
    for term in value.missing_terms:
        assert term.lower() in value.question.lower(), term  # only the question's own words are echoed
        shown = shown.replace(term, "")
    return shown


def test_the_board_pdf_is_the_best_match_for_an_administrator(library: IngestedCollections) -> None:
    # the control that makes the leak checks below mean something
    result = pipeline.search(SECRET_QUERY, library.settings, principal=ADMIN)
    assert result.parents[0].document.doc_id == library.doc_ids["board"]
    assert {"lexical", "dense", "page"} <= result.parents[0].ranks.keys()
    answer = pipeline.ask(SECRET_QUERY, library.settings, principal=ADMIN)
    assert any(s.doc_id == library.doc_ids["board"] for s in answer.sources)
    assert len(pipeline.list_documents(library.settings, principal=ADMIN)) == 3


def test_a_library_written_before_grants_is_visible_to_administrators_only(
    access_template: IngestedCollections, tmp_path: Path
) -> None:
    lib = copy_library(access_template, tmp_path)  # no grant at all
    assert pipeline.list_collections(lib.settings, principal=ADMIN) == ["board", "claims", "guides"]
    for user in (ALICE, BOB):
        assert pipeline.list_documents(lib.settings, principal=user) == []
        assert pipeline.list_collections(lib.settings, principal=user) == []
        assert pipeline.search("Quokka reserving guide", lib.settings, principal=user).parents == []


def test_listings_count_only_readable_documents(library: IngestedCollections) -> None:
    docs = pipeline.list_documents(library.settings, principal=ALICE)
    assert [d.collection for d in docs] == ["guides"]
    assert pipeline.list_documents(library.settings, "board", principal=ALICE) == []
    assert pipeline.list_collections(library.settings, principal=ALICE) == ["guides"]
    assert pipeline.list_documents(library.settings, principal=BOB) == []


def test_search_never_returns_an_unreadable_document_in_any_channel(library: IngestedCollections) -> None:
    board = library.doc_ids["board"]
    for kwargs in (
        {},
        {"collections": ["board"]},
        {"doc_ids": [board]},
        {"collections": ["board", "guides"]},
        {"k": 50, "candidate_k": 200},
    ):
        for user in (ALICE, BOB):
            result = pipeline.search(SECRET_QUERY, library.settings, principal=user, **kwargs)
            assert all(h.document.collection == "guides" for h in result.parents), kwargs
            assert SECRET_WORD not in _shown(result)
    # the channels below the façade: the readable scope is their prefilter
    store = open_store(library.settings)
    scope = readable_document_ids(library.settings, principal=ALICE)
    assert scope == [library.doc_ids["guides"]]
    vector = select_embedder(library.settings).embed_query(SECRET_QUERY)
    assert {h.doc_id for h in store.lexical(SECRET_QUERY, "en", scope, 50)} <= set(scope)
    assert {h.doc_id for h in store.dense(vector, scope, 50)} == set(scope)
    assert {h.doc_id for h in store.page_lexical(SECRET_QUERY, "en", scope, 50)} <= set(scope)
    assert {h.doc_id for h in store.hybrid(SECRET_QUERY, vector, "en", scope, 50)} == set(scope)


def test_ask_never_cites_or_gives_an_unreadable_document(library: IngestedCollections) -> None:
    answer = pipeline.ask(SECRET_QUERY, library.settings, principal=ALICE, conversation_id="a1")
    assert all(s.doc_id == library.doc_ids["guides"] for s in answer.sources + answer.uncited)
    assert SECRET_WORD not in _shown(answer)
    answer = pipeline.ask(
        SECRET_QUERY, library.settings, principal=BOB, collections=["board"], doc_ids=[library.doc_ids["board"]]
    )
    assert answer.sources == [] and answer.uncited == [] and answer.paragraphs == []


@pytest.mark.parametrize("forged", ["board", "missing", "not-an-id", "traversal"])
def test_unreadable_and_forged_ids_get_the_same_not_found(library: IngestedCollections, forged: str) -> None:
    doc_id = {
        "board": library.doc_ids["board"],
        "missing": "0" * 64,
        "not-an-id": "abc",
        "traversal": "../../access/grants.json",
    }[forged]
    table, figure = _board_items(library)
    messages = set()
    calls = [
        lambda: pipeline.get_document(doc_id, library.settings, principal=ALICE),
        lambda: pipeline.inspect(doc_id, library.settings, principal=ALICE),
        lambda: pipeline.load_chunks(doc_id, library.settings, principal=ALICE),
        lambda: pipeline.source_path(doc_id, library.settings, principal=ALICE),
        lambda: pipeline.page_pdf(doc_id, [1], library.settings, principal=ALICE),
        lambda: pipeline.artifact_path(doc_id, figure, library.settings, principal=ALICE),
        lambda: pipeline.export_table(doc_id, table, library.settings, principal=ALICE),
        lambda: pipeline.delete(doc_id, library.settings, principal=ALICE),
    ]
    for call in calls:
        with pytest.raises(NotFoundError) as err:
            call()
        messages.add(str(err.value))
    assert messages == {"This document is not in the library."}
    assert len(pipeline.list_documents(library.settings, principal=ADMIN)) == 3  # nothing was deleted


def test_viewer_exports_and_crops_check_the_scope_again(library: IngestedCollections) -> None:
    board = library.doc_ids["board"]
    table, figure = _board_items(library)
    pipeline.grant(library.settings, "board", principal=ADMIN, user=ALICE.user, role="read")
    pdf, mapping = pipeline.page_pdf(board, [1], library.settings, principal=ALICE)
    assert pdf.startswith(b"%PDF") and mapping == {1: 1}
    assert pipeline.artifact_path(board, figure, library.settings, principal=ALICE).is_file()
    csv_bytes = pipeline.export_table(board, table, library.settings, principal=ALICE)
    assert b"2022,1310,2900" in csv_bytes and pipeline.export_table(  # figures exported as numbers
        board, table, library.settings, "xlsx", principal=ALICE
    ).startswith(b"PK")
    # revoked between two clicks: the next bytes are refused, whatever the page still holds
    pipeline.revoke(library.settings, "board", principal=ADMIN, user=ALICE.user)
    for call in (
        lambda: pipeline.page_pdf(board, [1], library.settings, principal=ALICE),
        lambda: pipeline.artifact_path(board, figure, library.settings, principal=ALICE),
        lambda: pipeline.export_table(board, table, library.settings, principal=ALICE),
    ):
        with pytest.raises(NotFoundError):
            call()
    with pytest.raises(NotFoundError):
        pipeline.export_table(library.doc_ids["guides"], "#/tables/9", library.settings, principal=ALICE)


def test_grant_and_revoke_take_effect_on_the_next_question(library: IngestedCollections) -> None:
    settings, board = library.settings, library.doc_ids["board"]
    pipeline.grant(settings, "board", principal=ADMIN, group="actuaries", role="read")
    assert pipeline.search(SECRET_QUERY, settings, principal=ALICE).parents[0].document.doc_id == board
    assert can(settings, "board", "read", principal=ALICE)
    assert not can(settings, "board", "write", principal=ALICE)
    assert not can(settings, "board", "read", principal=BOB)
    pipeline.revoke(settings, "board", principal=ADMIN, group="actuaries")
    assert all(h.document.doc_id != board for h in pipeline.search(SECRET_QUERY, settings, principal=ALICE).parents)
    assert pipeline.revoke(settings, "board", principal=ADMIN, group="actuaries") is None


def test_roles_read_write_manage(library: IngestedCollections, tmp_path: Path) -> None:
    settings = library.settings
    new_pdf = library.pdfs["claims"].with_name("copy.pdf")
    with pytest.raises(AccessDenied):  # read only: no upload, no delete, no grant
        pipeline.ingest([tmp_path / "x.pdf"], settings, collection="guides", principal=ALICE)
    with pytest.raises(AccessDenied):
        pipeline.delete(library.doc_ids["guides"], settings, principal=ALICE)
    with pytest.raises(AccessDenied):
        pipeline.grant(settings, "guides", principal=ALICE, user=BOB.user, role="read")
    pipeline.grant(settings, "guides", principal=ADMIN, user=ALICE.user, role="write")
    assert pipeline.writable_collections(settings, principal=ALICE) == ["guides"]
    assert pipeline.manageable_collections(settings, principal=ALICE) == []
    from tests.access_support import make_pdf

    (result,) = pipeline.ingest(
        [make_pdf(new_pdf, "Numbat pricing note")], settings, collection="guides", principal=ALICE
    )
    assert result.status == "ingested", result.message
    with pytest.raises(AccessDenied):
        pipeline.delete(result.doc_id, settings, principal=ALICE)
    pipeline.grant(settings, "guides", principal=ADMIN, user=ALICE.user, role="manage")
    pipeline.grant(settings, "guides", principal=ALICE, user=BOB.user, role="read")  # a manager grants
    assert [g.subject for g in pipeline.list_grants(settings, principal=ALICE)] == ["actuaries", ALICE.user, BOB.user]
    assert [d.collection for d in pipeline.list_documents(settings, principal=BOB)] == ["guides", "guides"]
    pipeline.delete(result.doc_id, settings, principal=ALICE)
    assert len(pipeline.list_documents(settings, principal=ADMIN)) == 3
    assert pipeline.list_grants(settings, principal=BOB) == []  # manages nothing, sees no grant
    with pytest.raises(AccessDenied):
        pipeline.reindex(settings, principal=BOB)
    with pytest.raises(InputError):
        pipeline.grant(settings, "no such collection", principal=ADMIN, user=BOB.user, role="read")
    with pytest.raises(InputError):
        pipeline.grant(settings, "guides", principal=ADMIN, user=BOB.user, group="x", role="read")


def test_a_new_collection_is_visible_to_its_creator_and_administrators(
    library: IngestedCollections, tmp_path: Path
) -> None:
    from tests.access_support import make_pdf

    settings = library.settings
    pdf = make_pdf(tmp_path / "bob.pdf", "Bandicoot mortality table")
    (result,) = pipeline.ingest([pdf], settings, collection="bob notes", principal=BOB)
    assert result.status == "ingested", result.message
    assert pipeline.list_collections(settings, principal=BOB) == ["bob notes"]
    assert pipeline.manageable_collections(settings, principal=BOB) == ["bob notes"]
    assert "bob notes" in pipeline.list_collections(settings, principal=ADMIN)
    assert "bob notes" not in pipeline.list_collections(settings, principal=ALICE)
    assert {
        h.document.collection for h in pipeline.search("Bandicoot mortality", settings, principal=ALICE).parents
    } == {"guides"}
    assert {h.document.collection for h in pipeline.search("Bandicoot mortality", settings, principal=BOB).parents} == {
        "bob notes"
    }
    # an empty collection, created and shared before its first upload
    assert pipeline.create_collection(settings, "  Reserving 2027 ", principal=ALICE) == "Reserving 2027"
    assert "Reserving 2027" in pipeline.manageable_collections(settings, principal=ALICE)
    with pytest.raises(AccessDenied):  # the name is taken: its managers decide
        pipeline.create_collection(settings, "Reserving 2027", principal=BOB)
    with pytest.raises(AccessDenied):
        pipeline.ingest([pdf], settings, collection="board", principal=BOB)


def test_uploading_a_copy_of_an_unreadable_document_neither_moves_nor_reveals_it(library: IngestedCollections) -> None:
    settings = library.settings
    pipeline.grant(settings, "guides", principal=ADMIN, group="actuaries", role="write")
    (result,) = pipeline.ingest([library.pdfs["board"]], settings, collection="guides", principal=ALICE)
    assert result.status == "refused" and "board" not in result.message and SECRET_WORD not in result.message
    assert pipeline.get_document(library.doc_ids["board"], settings, principal=ADMIN).collection == "board"


def test_conversations_belong_to_their_user(library: IngestedCollections) -> None:
    settings = library.settings
    pipeline.grant(settings, "board", principal=ADMIN, user=BOB.user, role="read")
    pipeline.ask(SECRET_QUERY, settings, principal=BOB, conversation_id="shared-id")
    assert conversation_history(settings, "shared-id", principal=BOB)
    assert conversation_history(settings, "shared-id", principal=ALICE) == []
    # a follow-up by another user under the same id does not inherit the first user's question
    answer = pipeline.ask("and its limits?", settings, principal=ALICE, conversation_id="shared-id")
    assert SECRET_WORD not in answer.standalone_question
    stored = sorted((settings.data_dir / "conversations").rglob("*.jsonl"))
    assert len(stored) == 2 and sum(SECRET_WORD in p.read_text() for p in stored) == 1


def test_principal_argument_is_required() -> None:
    with pytest.raises(TypeError):
        pipeline.list_documents(None)  # type: ignore[call-arg]  # the missing principal is the point
    assert Principal.local_operator().is_admin
