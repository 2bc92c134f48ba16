"""Cross-lingual retrieval on real corpus pages: a French question finds an English page and the reverse.

The library holds a few pages of four corpus PDFs (two English, two French, on overlapping
subjects, so that each language has same-language distractors), ingested as the product does.
The questions are ours, written from passages that the development sets do not use.
"""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.models import SearchResult
from rag_core.understanding import term_presence

LOCAL = Principal.local_operator()  # these tests are not about access
# (corpus PDF, its 1-based pages kept): the extract's page i is the i-th page listed
EXTRACTS = {
    "en_EIOPA_guidelines_valuation_technical_provisions.pdf": [15, 29],
    "en_ChainLadder_claims_reserving_with_R_vignette.pdf": [17, 19],
    "fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf": [17, 25],
    "fr_notes_ACT2005_mathematiques_actuarielles_IARD1.pdf": [17],
}


def _extract(source: Path, pages: list[int], out: Path) -> Path:
    with pymupdf.open(source) as doc:
        doc.select([p - 1 for p in pages])
        doc.save(out)
    return out


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Settings:
    folder = tmp_path_factory.mktemp("extracts")
    settings = Settings(data_dir=tmp_path_factory.mktemp("lib"))
    settings = settings.model_copy(update={"parsing": settings.parsing.model_copy(update={"workers": 1})})
    files = [_extract(corpus_dir / name, pages, folder / name) for name, pages in EXTRACTS.items()]
    results = pipeline.ingest(files, settings, principal=LOCAL)
    assert [r.status for r in results] == ["ingested"] * len(files), [r.message for r in results]
    assert {r.record.file_name[:2]: r.record.language for r in results} == {"en": "en", "fr": "fr"}
    return settings


def _found(result: SearchResult, file_name: str, page: int, within: int = 5) -> bool:
    return any(hit.document.file_name == file_name and page in hit.parent.pages for hit in result.parents[:within])


def _without_crosslingual(settings: Settings) -> Settings:
    return settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"other_language_rank": 0})})


def test_french_question_finds_the_english_page(library: Settings) -> None:
    question = "Dans quel cas la provision pour primes, hors marge de risque, est-elle négative ?"
    result = pipeline.search(question, library, principal=LOCAL)
    assert result.language == "fr" and result.translated is not None and result.translated.language == "en"
    assert any(term.startswith("provision pour primes → premium provision") for term in result.translated.terms)
    eiopa = "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
    assert _found(result, eiopa, 2), [(h.document.file_name, h.parent.pages) for h in result.parents[:5]]
    hit = next(h for h in result.parents if h.document.file_name == eiopa and 2 in h.parent.pages)
    assert {"translated", "dense_other"} <= hit.ranks.keys()  # the cross-lingual channels found it


def test_english_question_finds_the_french_page(library: Settings) -> None:
    question = (
        "Which reserving method gives a predictive distribution of the reserves by resampling "
        "with Monte Carlo simulations instead of complex statistical calculations?"
    )
    result = pipeline.search(question, library, principal=LOCAL)
    assert result.language == "en" and result.translated is not None and result.translated.language == "fr"
    rapport = "fr_rapport_provisionnement_non_vie_ChainLadder_Mack_Bootstrap.pdf"
    assert _found(result, rapport, 2), [(h.document.file_name, h.parent.pages) for h in result.parents[:5]]
    hit = next(h for h in result.parents if h.document.file_name == rapport and 2 in h.parent.pages)
    assert {"translated", "dense_other"} <= hit.ranks.keys()


def test_same_language_question_is_unchanged(library: Settings) -> None:
    question = "Why must undertakings justify ignoring future management actions on the grounds of materiality?"
    with_channels = pipeline.search(question, library, principal=LOCAL)
    without = pipeline.search(question, _without_crosslingual(library), principal=LOCAL)
    eiopa = "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
    assert with_channels.parents[0].document.file_name == eiopa and 1 in with_channels.parents[0].parent.pages
    assert with_channels.parents[0].parent.id == without.parents[0].parent.id
    same = [h.parent.id for h in with_channels.parents if h.document.language == "en"][:3]
    assert same == [h.parent.id for h in without.parents if h.document.language == "en"][:3]


def test_extractive_answer_labels_the_other_language_passage(library: Settings) -> None:
    answer = pipeline.ask(
        "Dans quel cas la provision pour primes, hors marge de risque, est-elle négative ?", library, principal=LOCAL
    )
    assert answer.language == "fr" and answer.mode == "extractive"
    labelled = [p for p in answer.paragraphs if p.language == "en"]
    assert labelled, [p.text[:80] for p in answer.paragraphs]
    by_id = {s.id: s for s in answer.sources}
    for paragraph in labelled:  # as written in the English source, not translated
        assert (
            by_id[paragraph.source_ids[0]].language == "en" and paragraph.quote in by_id[paragraph.source_ids[0]].text
        )
    assert all(p.language is None for p in answer.paragraphs if by_id[p.source_ids[0]].language == "fr")


def test_a_term_that_only_the_english_documents_name_places_their_passage_high(library: Settings) -> None:
    """'décisions de gestion futures': no French page holds it, the EIOPA page holds 'future management
    actions'; the best English passage takes the strong rank whatever the evidence ratio."""
    for folder in library.documents_dir.iterdir():  # kept at ingestion, with the labels' fingerprint
        kept = json.loads((folder / term_presence.FILE_NAME).read_text())
        assert kept["fingerprint"] == term_presence.vocabulary(library).fingerprint and kept["labels"]
    # the evidence ratio out of play (a threshold no score reaches): the strong rank can only come from the term
    no_ratio = library.model_copy(
        update={"retrieval": library.retrieval.model_copy(update={"other_language_strong_ratio": 1e9})}
    )
    result = pipeline.search(
        "Sur quels motifs peut-on ignorer les décisions de gestion futures ?", no_ratio, principal=LOCAL
    )
    assert result.translated is not None and "décisions de gestion futures" in result.translated.only_other
    placed = [h for h in result.parents if h.placed]
    assert len(placed) == 1 and placed[0].fused_rank == library.retrieval.other_language_strong_rank
    assert placed[0].document.file_name == "en_EIOPA_guidelines_valuation_technical_provisions.pdf"
    assert 1 in placed[0].parent.pages
    # a term both languages' pages name is not listed: "provision" is in the French reports
    assert all("provision" not in term for term in result.translated.only_other)


def test_an_extended_glossary_finds_its_new_term_in_the_documents(library: Settings, tmp_path: Path) -> None:
    question = "Comment calcule-t-on les bénéfices attendus inclus dans les primes futures ?"
    term = "bénéfices attendus inclus dans les primes futures"
    before = pipeline.search(question, library, principal=LOCAL)
    assert before.translated is not None and term not in before.translated.only_other
    extension = tmp_path / "glossary.json"
    extension.write_text(
        json.dumps(
            {"name": "EPIFP", "entries": [{"fr": term, "en": ["expected profits in future premiums", "EPIFP"]}]}
        ),
        encoding="utf-8",
    )
    extended = library.model_copy(
        update={"understanding": library.understanding.model_copy(update={"glossary_path": extension})}
    )
    after = pipeline.search(question, extended, principal=LOCAL)  # the documents' held terms found again
    assert after.translated is not None and term in after.translated.only_other
    kept = json.loads(next(library.documents_dir.glob(f"*/{term_presence.FILE_NAME}")).read_text())
    assert kept["fingerprint"] == term_presence.vocabulary(extended).fingerprint
    assert kept["fingerprint"] != term_presence.vocabulary(library).fingerprint
