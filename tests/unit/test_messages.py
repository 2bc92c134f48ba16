"""rag_core's messages for the user: English where raised or stored, the page's language in the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core import messages
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.parsing.validation import validate_file
from ui.strings.errors import FRENCH_MESSAGES


def _in(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "lang", lambda: lang)


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
    from ui.i18n import user_message

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
    from ui.i18n import user_message

    stored = messages.message(
        "ingest.done", verb="Ingested", pages=22, parents=40, children=100, seconds="3.2", parser="pymupdf"
    )
    assert messages.recognise(stored) == (
        "ingest.done",
        {"verb": "Ingested", "pages": "22", "parents": "40", "children": "100", "seconds": "3.2", "parser": "pymupdf"},
    )
    _in("fr", monkeypatch)
    assert user_message(stored) == "Importé : 22 pages, 40 parents, 100 enfants, 3.2 s, analyseur pymupdf."
    assert user_message("A message written without a key.") == "A message written without a key."
