"""`LibraryClient(settings, principal)`: one library used as one principal, on a real library (LanceDB in a
temporary folder, the PDFs of tests/access_support.py). Its verbs act as its principal and no other,
they are the façade's module-level verbs (same checks, same audit trail), and every verb of the façade
that takes a principal is one of its methods."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.config import Settings
from rag_core.errors import AccessDenied, NotFoundError
from rag_core.pipeline import LibraryClient
from tests.access_support import ADMIN, ALICE, BOB, SECRET_QUERY, IngestedCollections, copy_library, share_guides


@pytest.fixture
def library(access_template: IngestedCollections, tmp_path: Path) -> IngestedCollections:
    lib = copy_library(access_template, tmp_path)
    share_guides(lib)
    return lib


def test_every_verb_of_the_facade_that_takes_a_principal_is_a_method() -> None:
    verbs = [
        name
        for name in pipeline.__all__
        if inspect.isfunction(getattr(pipeline, name))
        and "principal" in inspect.signature(getattr(pipeline, name)).parameters
    ]
    assert {"ask_stream", "ingest", "delete", "grant", "export_table", "submit_upload"} <= set(verbs)
    assert [name for name in verbs if not callable(getattr(LibraryClient, name, None))] == []
    for name in verbs:  # the method takes what the function takes, less the settings and the principal
        function = set(inspect.signature(getattr(pipeline, name)).parameters) - {"settings", "principal"}
        method = set(inspect.signature(getattr(LibraryClient, name)).parameters) - {"self"}
        assert method == function, name


def test_the_client_reads_as_its_principal(library: IngestedCollections) -> None:
    alice, bob, admin = (LibraryClient(library.settings, who) for who in (ALICE, BOB, ADMIN))
    board = library.doc_ids["board"]
    assert {r.collection for r in alice.list_documents()} == {"guides"}
    assert alice.list_documents() == pipeline.list_documents(library.settings, principal=ALICE)
    assert bob.list_documents() == [] and bob.list_collections() == []
    assert board in {r.doc_id for r in admin.list_documents()}
    with pytest.raises(NotFoundError):
        alice.get_document(board)
    with pytest.raises(NotFoundError):
        alice.source_path(board)
    assert admin.get_document(board).collection == "board"
    assert board not in {h.document.doc_id for h in alice.search(SECRET_QUERY).parents}
    assert admin.search(SECRET_QUERY).parents[0].document.doc_id == board  # the best match, for who may read it


def test_the_client_writes_as_its_principal_and_the_trail_says_who(library: IngestedCollections) -> None:
    alice, admin = LibraryClient(library.settings, ALICE), LibraryClient(library.settings, ADMIN)
    assert not alice.can("board", "read")
    with pytest.raises(AccessDenied):
        alice.grant("board", "read", user=ALICE.user)  # no one grants themselves what they may not manage
    admin.grant("board", "read", user=ALICE.user)
    assert alice.can("board", "read") and library.doc_ids["board"] in alice.readable_document_ids()
    grants = [e for e in admin.audit_events() if e["event"] == "grant" and e.get("collection") == "board"]
    assert [(e["user"], e["subject"], e["role"]) for e in grants] == [(ADMIN.user, ALICE.user, "read")]
    with pytest.raises(AccessDenied):
        alice.audit_events()  # the trail is for administrators


def test_the_client_shows_its_user_and_no_secret(library: IngestedCollections, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client in a log line or a traceback names who acts, never the settings it holds (the model's key)."""
    monkeypatch.setenv("RAG_LLM__API_KEY", "sk-client-secret-123")
    settings = Settings(data_dir=library.settings.data_dir)
    assert settings.llm_key() is not None
    shown = repr(LibraryClient(settings, ALICE))
    assert ALICE.user in shown and "sk-client-secret-123" not in shown
