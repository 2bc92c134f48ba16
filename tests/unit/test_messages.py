"""rag_core's messages for the user: English where raised or stored, the page's language in the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app.ui.strings.errors import FRENCH_MESSAGES
from rag_core import messages
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.parsing.validation import validate_file


def _in(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import rag_app.ui.i18n

    monkeypatch.setattr(rag_app.ui.i18n, "lang", lambda: lang)


def test_every_message_has_french_with_the_same_values() -> None:
    import string

    assert set(FRENCH_MESSAGES) == set(messages.ENGLISH)
    for key, english in messages.ENGLISH.items():
        fields = {f for _, f, _, _ in string.Formatter().parse(english) if f}
        french = {f for _, f, _, _ in string.Formatter().parse(FRENCH_MESSAGES[key]) if f}
        assert french <= fields, key


def test_a_refused_file_is_refused_in_english_and_shown_in_french(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag_app.ui.i18n import user_message

    empty = tmp_path / "zero.pdf"
    empty.write_bytes(b"")
    with pytest.raises(InputError) as refused:
        validate_file(empty, Settings(data_dir=tmp_path))
    assert str(refused.value) == "The file zero.pdf is empty (0 bytes); upload it again."  # the CLI's text
    assert refused.value.key == "file.empty"
    _in("fr", monkeypatch)
    assert user_message(refused.value) == "Le fichier zero.pdf est vide (0 octet) ; déposez-le à nouveau."
    _in("en", monkeypatch)
    assert user_message(refused.value) == str(refused.value)


def test_a_stored_job_result_is_recognised_and_shown_in_french(monkeypatch: pytest.MonkeyPatch) -> None:
    from rag_app.ui.i18n import user_message

    stored = messages.message(
        "ingest.done", verb="Ingested", pages=22, parents=40, children=100, seconds="3.2", parser="pymupdf"
    )
    assert messages.recognise(stored) == (
        "ingest.done",
        {"verb": "Ingested", "pages": "22", "parents": "40", "children": "100", "seconds": "3.2", "parser": "pymupdf"},
    )
    _in("fr", monkeypatch)
    assert user_message(stored) == "Importé : 22 pages, 40 sections, 100 passages, 3.2 s, analyseur pymupdf."
    _in("en", monkeypatch)  # the English page says sections and passages too (the record keeps parents, children)
    assert user_message(stored) == "Ingested: 22 pages, 40 sections, 100 passages, 3.2 s, parser pymupdf."
    _in("fr", monkeypatch)
    assert user_message("A message written without a key.") == "A message written without a key."


def test_every_message_can_be_raised_with_its_values() -> None:
    """A value may be named like the key argument itself ({key} of a stored object)."""
    import string

    for key, english in messages.ENGLISH.items():
        fields = {f for _, f, _, _ in string.Formatter().parse(english) if f}
        err = InputError.of(key, **dict.fromkeys(fields, "x"))
        assert err.key == key and str(err) == english.format(**dict.fromkeys(fields, "x"))


def test_every_message_is_recognised_as_its_own_key() -> None:
    """A stored English text (a job's result) is read back under its own key, never under a looser one
    listed before it (a probed dialect is not a dialect named 'probed ...')."""
    import string

    for key, english in messages.ENGLISH.items():
        fields = sorted({f for _, f, _, _ in string.Formatter().parse(english) if f})
        text = english.format(**{f: f"value{i}" for i, f in enumerate(fields)})
        assert messages.recognise(text) == (key, {f: f"value{i}" for i, f in enumerate(fields)}), key


# Modules whose messages only the command line or the API prints (operators and scripts read them);
# every other raise of a RagError for the user goes through a message key.
_ENGLISH_ONLY = {
    "cli/documents.py",
    "cli/jobs.py",
    "cli/serve.py",
    "cli/library.py",
    "storage/migrate.py",
    "api/mcp_server.py",
}
_ENGLISH_ONLY |= {"api/rest.py"}
_ENGLISH_ONLY |= {"api/citations.py"}  # the REST routes that open citations
_ENGLISH_ONLY |= {"api/openai_compat.py", "api/security.py", "llm/__init__.py"}  # the LLM's: by question language
_ENGLISH_ONLY |= {"llm/judging.py"}  # the LLM's failure texts (`llm.failures`), in the question's language


def _unkeyed_raises() -> list[str]:
    """`raise SomeError(...)` of a RagError class with a text but no key, in rag_core's modules."""
    import ast

    from rag_core import errors

    root = Path(messages.__file__).parent
    user_errors = {name for name, value in vars(errors).items() if isinstance(value, type)}
    user_errors |= {"StorageError", "ReservedUser", "DuplicateIdentityHeader"}
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).as_posix() in _ENGLISH_ONLY:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            func = node.exc.func
            if isinstance(func, ast.Name) and func.id in user_errors and node.exc.args:
                found.append(f"{path.relative_to(root)}:{node.lineno} {func.id}")
    return found


def test_errors_raised_for_the_user_carry_a_message_key() -> None:
    assert _unkeyed_raises() == []


def test_errors_from_the_pages_are_shown_in_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag_app.ui.i18n import user_message
    from rag_core.access import names
    from rag_core.evaluation.questions import read_question_lines

    _in("fr", monkeypatch)
    with pytest.raises(InputError) as bad_set:
        read_question_lines(['{"question": "ok"}', "{not json"])
    assert str(bad_set.value).startswith("Line 2 of the question set is not valid JSON")  # the CLI's text
    assert user_message(bad_set.value).startswith("La ligne 2 du jeu de questions n'est pas du JSON valide")
    with pytest.raises(InputError) as mixed:
        names.check_new("Solvаbilité")  # a Cyrillic 'а' among Latin letters
    assert user_message(mixed.value) == (
        "Le nom de collection « Solvаbilité » mêle des lettres latines à des lettres cyrilliques ou grecques, ce qui "
        "le fait ressembler à un autre nom ; écrivez-le dans un seul alphabet."
    )


def test_the_engines_table_is_shown_in_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The home page's values: what runs now, and how to turn the production engine on, in the page's language."""
    from rag_app.ui.i18n import user_message
    from rag_core import pipeline

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    settings = Settings(data_dir=tmp_path)
    english = pipeline.backends(settings)
    _in("fr", monkeypatch)
    shown = {name: user_message(value) for name, value in english.items()}
    assert shown["answers"] == "extractif (réglez OPENAI_API_KEY / OPENAI_BASE_URL pour des réponses par LLM)"
    for name, value in english.items():
        if value != shown[name]:  # a bare engine name (bge-m3, docling) is the same in both languages
            assert "(set " not in shown[name] and "search runs" not in shown[name], (name, shown[name])
    assert any(value != shown[name] for name, value in english.items())


def test_a_word_list_error_names_the_list_in_french(monkeypatch: pytest.MonkeyPatch) -> None:
    from rag_app.ui.i18n import user_message
    from rag_core.understanding.glossary import Glossary

    with pytest.raises(InputError) as refused:
        Glossary.from_json(b"{not json")
    _in("fr", monkeypatch)
    assert user_message(refused.value).startswith("Le fichier du glossaire n'est pas du JSON valide (")


def test_a_table_s_label_is_shown_in_french(monkeypatch: pytest.MonkeyPatch) -> None:
    """rag_core names a table without caption 'Table: no caption kept' in its source label; a French page
    says it in French and keeps the document's own words (its title, a caption) as written."""
    from rag_app.ui.i18n import label_text
    from rag_core.citations import NO_CAPTION
    from rag_core.models.documents import NO_HEADING

    _in("fr", monkeypatch)
    assert label_text(f"Mack summary · Table: {NO_CAPTION} · {NO_HEADING} · p. 17") == (
        "Mack summary · Tableau : sans légende conservée · (sans titre de section) · p. 17"
    )
    assert label_text("Mack summary · Figure: Loss ratios by year · p. 4") == (
        "Mack summary · Figure : Loss ratios by year · p. 4"
    )
    _in("en", monkeypatch)
    assert label_text(f"Mack summary · Table: {NO_CAPTION} · p. 17") == f"Mack summary · Table: {NO_CAPTION} · p. 17"
