"""The audit trail and the command line of access control (`access`, `audit`, `--as-user`).

The CLI runs in this process through `rag_core.cli.main.main` (argument parsing, the
commands and their exit codes; `python -m rag_core` only adds `sys.exit`), on a copy of the
library of tests/access_support.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import LOCAL_USER, principal_from_claims
from rag_core.cli.main import main
from rag_core.config import Settings
from rag_core.errors import AccessDenied
from tests.access_support import (
    ADMIN,
    ALICE,
    BOB,
    SECRET_QUERY,
    SECRET_WORD,
    IngestedCollections,
    copy_library,
    make_pdf,
    share_guides,
)

TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
COOKIE = "streamlit-auth-cookie-4f1e9b77a0c3"


@pytest.fixture
def library(access_template: IngestedCollections, tmp_path: Path) -> IngestedCollections:
    lib = copy_library(access_template, tmp_path)
    share_guides(lib)
    return lib


def cli(capsys: pytest.CaptureFixture[str], lib: IngestedCollections, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--data-dir", str(lib.settings.data_dir)])
    out, err = capsys.readouterr()
    return code, out, err


def test_events_are_recorded_and_read_back_by_administrators(library: IngestedCollections) -> None:
    settings, board = library.settings, library.doc_ids["board"]
    pipeline.record_sign_in(settings, principal=ALICE)
    answer = pipeline.ask("What does the Quokka reserving guide programme protect?", settings, principal=ALICE)
    pipeline.search("Quokka", settings, principal=ALICE)
    pipeline.page_pdf(library.doc_ids["guides"], [1], settings, principal=ALICE)
    pipeline.grant(settings, "board", principal=ADMIN, user=BOB.user, role="manage")
    table = next(
        it.ref
        for p in pipeline.load_chunks(board, settings, principal=BOB).parents
        for it in p.items
        if it.kind == "table"
    )
    pipeline.export_table(board, table, settings, principal=BOB)
    pipeline.delete(board, settings, principal=BOB)
    pipeline.revoke(settings, "board", principal=ADMIN, user=BOB.user)
    events = pipeline.audit_events(settings, principal=ADMIN)
    assert [e["event"] for e in events] == [
        "grant",
        "sign_in",
        "question",
        "search",
        "page_opened",
        "grant",
        "table_exported",
        "deletion",
        "revoke",
    ]
    question = events[2]
    assert question["user"] == ALICE.user and question["question"] == answer.question
    assert question["scope"] == ["guides"]
    assert question["context"] and all(
        c["doc_id"] == library.doc_ids["guides"] and c["pages"] == [1] for c in question["context"]
    )
    assert {c["doc_id"] for c in question["cited"]} <= {c["doc_id"] for c in question["context"]}
    assert [e["event"] for e in pipeline.audit_events(settings, principal=ADMIN, user="BOB@example.org")] == [
        "table_exported",
        "deletion",
    ]
    assert [e["event"] for e in pipeline.audit_events(settings, principal=ADMIN, document=board)] == [
        "table_exported",
        "deletion",
    ]
    assert pipeline.audit_events(settings, principal=ADMIN, since="2999-01-01") == []
    csv_text = pipeline.audit_csv(settings, principal=ADMIN).decode("utf-8-sig")
    assert csv_text.splitlines()[0].startswith("at,event,user") and "page_opened" in csv_text
    for user in (ALICE, BOB):
        with pytest.raises(AccessDenied):
            pipeline.audit_events(settings, principal=user)
        with pytest.raises(AccessDenied):
            pipeline.audit_csv(settings, principal=user)


def test_masked_questions_and_no_secret_in_the_trail(library: IngestedCollections) -> None:
    settings = Settings(data_dir=library.settings.data_dir, audit={"mask_questions": True})
    pipeline.ask(SECRET_QUERY, settings, principal=ADMIN)
    claims = {"email": "carol@example.org", "groups": "actuaries, pricing", "id_token": TOKEN}
    carol = principal_from_claims(claims, settings)
    pipeline.record_sign_in(settings, principal=carol)
    pipeline.record_event(
        settings,
        "sign_out",
        principal=carol,
        cookie=COOKIE,
        access_token=TOKEN,
        note=f"Authorization: Bearer {TOKEN}",
        claims=claims,
    )
    trail = (settings.data_dir / "audit" / "audit.jsonl").read_text()
    assert "carol@example.org" in trail and '"question"' in trail and "[redacted]" in trail  # the search works
    assert SECRET_QUERY not in trail
    assert TOKEN not in trail and COOKIE not in trail and TOKEN[:20] not in trail
    with pytest.raises(ValueError):
        pipeline.record_event(settings, "made-up event", principal=carol)


def test_a_torn_last_record_does_not_hide_the_next_ones(library: IngestedCollections) -> None:
    settings = library.settings
    pipeline.record_sign_in(settings, principal=ALICE)
    path = settings.data_dir / "audit" / "audit.jsonl"
    with path.open("ab") as handle:
        handle.write(b'{"at": "2026-11-03T10:00:00+00:00", "event": "sig')  # a crash mid-write
    pipeline.record_sign_in(settings, principal=BOB)
    events = pipeline.audit_events(settings, principal=ADMIN)
    assert [e["user"] for e in events if e["event"] == "sign_in"] == [ALICE.user, BOB.user]


def test_cli_access_grant_show_revoke_and_audit(
    library: IngestedCollections, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(capsys, library, "access", "grant", "board", "--user", "dana@example.org", "--role", "read")
    assert code == 0 and "dana@example.org" in out
    code, out, _ = cli(capsys, library, "access", "show", "--json")
    shown = {c["collection"]: c for c in json.loads(out)["collections"]}
    assert set(shown) == {"board", "claims", "guides"} and shown["claims"]["grants"] == []
    assert [(g["subject"], g["role"]) for g in shown["board"]["grants"]] == [("dana@example.org", "read")]
    code, out, _ = cli(capsys, library, "documents", "--json", "--as-user", "dana@example.org")
    assert code == 0 and [d["collection"] for d in json.loads(out)] == ["board"]
    code, out, _ = cli(capsys, library, "access", "revoke", "board", "--user", "dana@example.org")
    assert code == 0
    code, out, _ = cli(capsys, library, "documents", "--json", "--as-user", "dana@example.org")
    assert json.loads(out) == []
    code, _, err = cli(
        capsys,
        library,
        "access",
        "grant",
        "board",
        "--group",
        "x",
        "--role",
        "read",
        "--as-user",
        ALICE.user,
        "--groups",
        "actuaries",
    )
    assert code == 2 and "manage" in err
    code, out, _ = cli(capsys, library, "audit", "--json", "--user", LOCAL_USER)
    assert [e["event"] for e in json.loads(out)] == ["grant", "grant", "revoke"]
    code, out, _ = cli(capsys, library, "audit", "--since", "2000-01-01")
    assert code == 0 and "revoke" in out and "dana@example.org" in out
    code, _, err = cli(capsys, library, "audit", "--as-user", ALICE.user)
    assert code == 2 and "administrator" in err


def test_cli_as_user_sees_exactly_what_the_app_would(
    library: IngestedCollections, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    board = library.doc_ids["board"]
    alice = ("--as-user", ALICE.user, "--groups", "actuaries")
    code, out, _ = cli(capsys, library, "documents", *alice)
    assert code == 0 and "guides" in out and "board" not in out
    code, out, _ = cli(capsys, library, "search", SECRET_QUERY, "--json", *alice)
    parents = json.loads(out)["parents"]
    assert code == 0 and parents and SECRET_WORD not in json.dumps(parents)
    code, out, _ = cli(capsys, library, "search", SECRET_QUERY, "--json")  # the local operator: everything
    assert json.loads(out)["parents"][0]["document"]["doc_id"] == board
    code, out, _ = cli(capsys, library, "ask", SECRET_QUERY, "--json", *alice)
    asked = json.loads(out)
    shown = {k: v for k, v in asked.items() if k in ("paragraphs", "sources", "uncited", "parent_ids")}
    assert code == 0 and SECRET_WORD not in json.dumps(shown)
    # the printed answer: a refusal may name a word of the question that no readable document mentions
    # (it says nothing of the others); nothing else of the board paper is printed
    echoed = asked.get("missing_terms", [])
    assert all(term.lower() in SECRET_QUERY.lower() for term in echoed)
    code, out, _ = cli(capsys, library, "ask", SECRET_QUERY, *alice)
    for term in echoed:
        out = out.replace(f"'{term}'", "")
    assert code == 0 and SECRET_WORD not in out
    for command in ("inspect", "delete"):
        code, out, err = cli(capsys, library, command, board[:12], *alice)
        assert code == 1 and "No single document matches" in err and SECRET_WORD not in out + err
    code, _, err = cli(
        capsys, library, "ingest", str(make_pdf(tmp_path / "n.pdf", "Numbat")), "--collection", "board", *alice
    )
    assert code == 2 and "cannot add documents" in err
    code, _, err = cli(capsys, library, "reindex", *alice)
    assert code == 2 and "administrator" in err
    assert len(pipeline.list_documents(library.settings, principal=ADMIN)) == 3


def test_cli_evaluate_as_user_only_measures_readable_documents(
    library: IngestedCollections, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pdf_dir = tmp_path / "pdfs"
    pdf_dir.mkdir()
    for name in ("board", "guides"):
        (pdf_dir / library.pdfs[name].name).write_bytes(library.pdfs[name].read_bytes())
    questions = tmp_path / "q.jsonl"
    rows = [
        {
            "id": "q1",
            "pdf": "board.pdf",
            "question": SECRET_QUERY,
            "language": "en",
            "type": "factual",
            "pages": [1],
            "answer": "",
            "quote": "",
        },
        {
            "id": "q2",
            "pdf": "guides.pdf",
            "question": "What does the Quokka reserving guide protect?",
            "language": "en",
            "type": "factual",
            "pages": [1],
            "answer": "",
            "quote": "",
        },
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out_file = tmp_path / "results.json"
    code, _, _ = cli(
        capsys,
        library,
        "evaluate",
        "--questions",
        str(questions),
        "--pdf-dir",
        str(pdf_dir),
        "--engines",
        "lexical",
        "--out",
        str(out_file),
        "--as-user",
        ALICE.user,
        "--groups",
        "actuaries",
    )
    results = json.loads(out_file.read_text())
    assert code == 0 and results["n_questions"] == 1 and results["skipped"][0]["id"] == "q1"
    refused = json.dumps(results["ingestion"]["refused"])
    assert "board.pdf" in refused and "'board'" not in refused and SECRET_WORD not in refused
    assert pipeline.get_document(library.doc_ids["board"], library.settings, principal=ADMIN).collection == "board"
