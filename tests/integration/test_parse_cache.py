"""The tests' shared parse cache (tests/parse_cache.py): a parse read back equals the parse, the
second call reads the first one's parse and crops, and other options, another file name or an
edited parser are other entries."""

from __future__ import annotations

import shutil
from pathlib import Path

import pymupdf
import pytest

from rag_core.config import Settings
from rag_core.parsing import parse
from tests import parse_cache as cache_module
from tests.parse_cache import ParseCache, from_json, to_json
from tests.parsing_support import with_parsing

SOURCE = "en_actuar_coverage_modifications.pdf"


@pytest.fixture
def pdf(corpus_dir: Path, tmp_path: Path) -> Path:
    """A page of a corpus PDF with a vector figure (a picture crop) and formulas."""
    target = tmp_path / "coverage_p2.pdf"
    with pymupdf.open(corpus_dir / SOURCE) as doc:
        doc.select([1])
        doc.save(target)
    return target


def test_a_parse_read_back_from_json_equals_the_parse(pdf: Path, tmp_path: Path, settings: Settings) -> None:
    parsed = parse(pdf, settings, tmp_path / "artifacts")
    assert parsed.document.texts and parsed.document.pictures
    loaded = from_json(to_json(parsed))
    assert loaded == parsed
    assert loaded.document.export_to_dict() == parsed.document.export_to_dict()
    assert (loaded.title, loaded.options, loaded.versions, loaded.warnings) == (
        parsed.title,
        parsed.options,
        parsed.versions,
        parsed.warnings,
    )


def test_the_second_call_reads_the_first_parse_and_its_crops(pdf: Path, tmp_path: Path, settings: Settings) -> None:
    cache = ParseCache(tmp_path / "cache")
    first = cache.parse(pdf, settings, tmp_path / "a" / "artifacts")
    assert cache.parsed == 1
    again = cache.parse(pdf, settings, tmp_path / "b" / "artifacts")
    other_process = ParseCache(tmp_path / "cache")
    third = other_process.parse(pdf, settings, tmp_path / "c" / "artifacts")
    assert (cache.parsed, other_process.parsed) == (1, 0)
    assert first == again == third
    assert first == parse(pdf, settings, tmp_path / "direct" / "artifacts")
    crops = sorted(p.name for p in (tmp_path / "a" / "artifacts").iterdir())
    assert crops, "the page's figure gave no crop"
    for where in ("b", "c", "direct"):
        folder = tmp_path / where / "artifacts"
        assert sorted(p.name for p in folder.iterdir()) == crops
        assert all((folder / n).read_bytes() == (tmp_path / "a" / "artifacts" / n).read_bytes() for n in crops)
    # the picture URIs name the artifacts folder, which exists beside the caller's document
    for picture in again.document.pictures:
        assert picture.image is not None
        assert (tmp_path / "b" / str(picture.image.uri)).is_file()


def test_options_file_name_and_parser_code_are_in_the_key(
    pdf: Path, tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ParseCache(tmp_path / "cache")
    key = cache.key(pdf, settings, tmp_path / "artifacts")
    assert cache.key(pdf, settings, tmp_path / "elsewhere" / "artifacts") == key
    assert cache.key(pdf, with_parsing(settings, ocr=False), tmp_path / "artifacts") != key
    assert cache.key(pdf, settings, tmp_path / "crops") != key
    renamed = shutil.copy(pdf, tmp_path / "renamed.pdf")
    assert cache.key(Path(renamed), settings, tmp_path / "artifacts") != key
    # an edited module of rag_core/parsing is another key
    sources = tmp_path / "parsing"
    shutil.copytree(cache_module.PARSING_SOURCES, sources)
    monkeypatch.setattr(cache_module, "PARSING_SOURCES", sources)
    assert ParseCache(tmp_path / "cache").key(pdf, settings, tmp_path / "artifacts") == key
    module = next(sources.rglob("*.py"))
    module.write_text(module.read_text() + "\n# edited\n")
    assert ParseCache(tmp_path / "cache").key(pdf, settings, tmp_path / "artifacts") != key


def test_settings_that_leave_the_parse_as_it_is_share_an_entry(pdf: Path, tmp_path: Path, settings: Settings) -> None:
    """The helper processes and `auto` read as the backend it resolves to leave the parse as it is
    (test_parsing_workers.py): one entry; what changes the parse or refuses the file is another."""
    from rag_core.parsing import resolve_pdf_backend

    cache = ParseCache(tmp_path / "cache")
    key = cache.key(pdf, settings, tmp_path / "artifacts")
    resolved = resolve_pdf_backend(settings)
    for same in (with_parsing(settings, workers=1), with_parsing(settings, workers=2, backend=resolved)):
        assert cache.key(pdf, same, tmp_path / "artifacts") == key
    other = "docling" if resolved == "pymupdf" else "pymupdf"
    for changed in (with_parsing(settings, backend=other), with_parsing(settings, table_images=False)):
        assert cache.key(pdf, changed, tmp_path / "artifacts") != key
    assert cache.key(pdf, with_parsing(settings, max_pages=1), tmp_path / "artifacts") != key


def test_a_generated_file_is_built_once_for_every_process(tmp_path: Path) -> None:
    built: list[Path] = []

    def build(path: Path) -> None:
        built.append(path)
        with pymupdf.open() as doc:
            doc.new_page().insert_text((72, 72), "Bornhuetter")
            doc.save(path)

    first = ParseCache(tmp_path / "cache").file("note.pdf", build)
    again = ParseCache(tmp_path / "cache").file("note.pdf", build)
    assert first == again and first.name == "note.pdf" and len(built) == 1 and built[0].name == "note.pdf"
    with pymupdf.open(first) as doc:
        assert "Bornhuetter" in doc[0].get_text()
