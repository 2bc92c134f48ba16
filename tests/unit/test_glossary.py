"""The bilingual glossary: the bundled file loads, a user's file extends it, malformed files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.understanding import load_glossary, load_thesaurus, translation
from rag_core.understanding.glossary import Glossary, translate


def test_bundled_glossary_loads_and_translates_both_ways(settings: Settings) -> None:
    glossary = load_glossary(settings)
    assert glossary is not None and len(glossary.entries) >= 300
    fr = translate("Comment choisir le facteur de queue du triangle des règlements ?", "fr", "en", glossary)
    assert ("facteur de queue", ("tail factor",)) in fr.pairs
    assert fr.query.startswith("tail factor")
    en = translate("How are reinsurance recoverables estimated?", "en", "fr", glossary)
    forms = dict(en.pairs)["reinsurance recoverables"]
    assert forms[0] == "montants recouvrables au titre de la réassurance"
    # the preferred forms lead the query, then the other forms, then the words kept as written
    assert en.query.startswith(forms[0]) and all(form in en.query for form in forms[1:])
    assert en.query.split()[-1] == en.kept[-1]


def test_translation_keeps_names_and_drops_function_words(settings: Settings) -> None:
    found = translation("Quelle est l'hypothèse de Mack sur les facteurs de développement ?", "fr", settings)
    assert found is not None and found.target == "en"
    assert "development factor" in dict(found.pairs)["facteur de développement"]  # shown as the glossary writes it
    assert "mack" in found.kept and "est" not in found.kept and "les" not in found.kept
    assert "mack" in found.query.split()
    assert found.shown()[0].startswith("hypothèse →")


def test_claims_reported_late_are_the_late_claims_of_the_other_language(settings: Settings) -> None:
    glossary = load_glossary(settings)
    assert glossary is not None
    en = translate("How are late-reported claims counted?", "en", "fr", glossary)
    assert "tardifs" in dict(en.pairs)["late-reported claims"]
    fr = translate("Comment compte-t-on les sinistres déclarés tardivement ?", "fr", "en", glossary)
    assert "late claims" in dict(fr.pairs)["sinistres déclarés tardivement"]


def test_thesaurus_labels_translate_too(settings: Settings) -> None:
    thesaurus = load_thesaurus(settings)
    concept = next(c for c in thesaurus.concepts if c.labels_in("fr") and c.labels_in("en"))
    empty = Glossary([{"fr": ("zzz",), "en": ("yyy",)}])
    found = translate(f"Que dit le document sur {concept.labels_in('fr')[0]} ?", "fr", "en", empty, thesaurus)
    assert found.pairs and found.pairs[0][1][0] == concept.labels_in("en")[0]


def test_uploaded_glossary_extends_the_bundled_one(settings: Settings) -> None:
    before = load_glossary(settings)
    extra = {"name": "mine", "entries": [{"fr": ["coefficient de Tartempion", "Tartempion"], "en": "Tartempion ratio"}]}
    assert pipeline.upload_glossary(json.dumps(extra).encode(), settings, principal=Principal.local_operator()) == 1
    after = load_glossary(settings)
    assert len(after.entries) == len(before.entries) + 1  # extended, not replaced
    found = translate("Que vaut le coefficient de Tartempion et la cadence de règlement ?", "fr", "en", after)
    assert dict(found.pairs)["coefficient de Tartempion"] == ("Tartempion ratio",)
    assert "payment pattern" in dict(found.pairs)["cadence de règlement"]
    info = pipeline.glossary_info(settings)
    assert info["entries"] == len(after.entries) and info["extension"].endswith("glossary.json")


def test_glossary_path_setting_extends_too(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "team.json"
    path.write_text(
        json.dumps({"entries": [{"fr": "sinistralité grave", "en": "severe loss experience"}]}), encoding="utf-8"
    )
    custom = settings.model_copy(
        update={"understanding": settings.understanding.model_copy(update={"glossary_path": path})}
    )
    found = translate("La sinistralité grave", "fr", "en", load_glossary(custom))
    assert dict(found.pairs)["sinistralité grave"] == ("severe loss experience",)
    missing = custom.model_copy(
        update={"understanding": custom.understanding.model_copy(update={"glossary_path": tmp_path / "absent.json"})}
    )
    with pytest.raises(InputError, match="does not exist"):
        load_glossary(missing)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"name": "x"}', 'non-empty "entries" list'),
        (b'{"entries": []}', 'non-empty "entries" list'),
        (b'{"entries": ["cadence"]}', "Entry 1 of the glossary is not an object"),
        (
            b'{"entries": [{"fr": "cadence", "en": "pattern"}, {"fr": "prime"}]}',
            'Entry 2 of the glossary has no "en" term',
        ),
        (b'{"entries": [{"fr": 3, "en": "pattern"}]}', '"fr" must be a term or a list of terms'),
        (b'{"entries": [{"fr": "...", "en": "pattern"}]}', 'has no "fr" term'),
    ],
)
def test_malformed_glossary_is_refused_with_a_clear_message(settings: Settings, data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        pipeline.upload_glossary(data, settings, principal=Principal.local_operator())
    assert pipeline.glossary_info(settings)["extension"] is None  # nothing was stored


def test_translation_off(settings: Settings) -> None:
    off = settings.model_copy(
        update={"understanding": settings.understanding.model_copy(update={"translation": False})}
    )
    assert load_glossary(off) is None and translation("cadence de règlement", "fr", off) is None
    assert pipeline.glossary_info(off) is None
