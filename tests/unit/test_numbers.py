"""Numbers: extraction and normalisation (FR/EN), recomputation, and tracing against cells and sentences.

The search results are the hand-built ones of tests/unit/test_answering.py, with a table whose
cells carry their own boxes; the real-PDF cell lookup is in tests/integration/test_numbers_corpus.py.
"""

from __future__ import annotations

import math

import pytest

from rag_core.answering import answer
from rag_core.answering.number_trace import build_evidence, compute, trace_numbers
from rag_core.answering.numbers import extract_numbers, rounds_to
from rag_core.citations import build_sources
from rag_core.models import Computation, ComputationInput, Paragraph, SearchResult
from tests.answering_support import CELLS, table_result


def values(text: str, language: str = "en") -> list[tuple[str, float]]:
    return [(n.text, round(n.value, 9)) for n in extract_numbers(text, language)]


# --- extraction and normalisation ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("soit 1 234,56 € au total", "fr", [("1 234,56 €", 1234.56)]),
        ("soit 1\u202f234,56\u00a0€", "fr", [("1\u202f234,56\u00a0€", 1234.56)]),
        ("a total of 1,234.56 paid", "en", [("1,234.56", 1234.56)]),
        ("1.234.567,89 et 1.234,5", "fr", [("1.234.567,89", 1234567.89), ("1.234,5", 1234.5)]),
        ("18 204 316 restent à payer", "fr", [("18 204 316", 18204316.0)]),
        ("un taux de 12,5 %", "fr", [("12,5 %", 0.125)]),
        ("a 6.2% increase and 3‰", "en", [("6.2%", 0.062), ("3‰", 0.003)]),
        ("un budget de 2 135 k€", "fr", [("2 135 k€", 2135000.0)]),
        (
            "2,4 M€, 3 Md€, 2 millions, 5k and 10M",
            "fr",
            [("2,4 M€", 2.4e6), ("3 Md€", 3e9), ("2 millions", 2e6), ("5k", 5e3), ("10M", 1e7)],
        ),
        ("a factor of 0.52", "en", [("0.52", 0.52)]),
        ("écart-type = 2,354871e+03", "fr", [("2,354871e+03", 2354.871)]),
        ("a rate of 1.5E-3", "en", [("1.5E-3", 0.0015)]),
        ("écart-type = 2.354871e + 03 Conclusion", "fr", [("2.354871e + 03", 2354.871)]),  # PDF text-layer spacing
        ("PSAP de -21 438 902 $", "fr", [("-21 438 902 $", -21438902.0)]),
        ("résultat (21 438 902) en 2014", "fr", [("(21 438 902)", -21438902.0), ("2014", 2014.0)]),
        ("l'année (2014) seule", "fr", [("2014", 2014.0)]),
        ("a premium of $84,310.25", "en", [("$84,310.25", 84310.25)]),
        ("tail .450 and 1.450", "en", [(".450", 0.45), ("1.450", 1.45)]),
    ],
)
def test_formats_are_normalised(text: str, language: str, expected: list[tuple[str, float]]) -> None:
    assert values(text, language) == expected


def test_thousands_versus_decimal_ambiguity_follows_the_language_and_keeps_the_other_reading() -> None:
    (fr,) = extract_numbers("soit 1,503", "fr")
    (en,) = extract_numbers("1,503 claims", "en")
    assert (fr.value, fr.alternatives) == (1.503, (1503.0,))
    assert (en.value, en.alternatives) == (1503.0, (1.503,))
    # two groups or a decimal part are never ambiguous
    assert [n.alternatives for n in extract_numbers("1,234,567 and 1,234.5", "fr")] == [(), ()]
    assert [n.value for n in extract_numbers("12,5 et 1,50", "en")] == [12.5, 1.5]


def test_codes_indices_and_page_references_are_not_figures() -> None:
    text = "Voir S1 et TH00-02, le 1er mois, p. 12, $C_{i,j+1}$, x^2, n+1 et la période 2005-2014."
    assert values(text, "fr") == [("2005", 2005.0), ("2014", 2014.0)]


def test_offsets_point_at_the_written_number() -> None:
    text = "Reserve: 1 234,5 k€; loss ratio 281.3%."
    for n in extract_numbers(text, "fr"):
        assert text[n.start : n.end] == n.text
    assert [n.text for n in extract_numbers(text, "fr")] == ["1 234,5 k€", "281.3%"]


def test_rounding_tolerance_follows_the_written_precision() -> None:
    (n,) = extract_numbers("3,7 %", "fr")
    assert rounds_to(n, 1.07 / 1.032 - 1) and not rounds_to(n, 0.0355)
    (m,) = extract_numbers("23 549", "fr")
    assert rounds_to(m, 23548.71) and not rounds_to(m, 23547.4)


# --- recomputation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "inputs", "expected"),
    [
        ("sum", [1200, 1850], 3050),
        ("difference", [2020, 1310], 710),
        ("product", [1310, 1.5420], 2020.02),
        ("ratio", [2020, 1310], 2020 / 1310),
        ("growth", [1.032, 1.07], 1.07 / 1.032 - 1),
        ("development_factor", [1200, 1310, 1850, 2020], (1850 + 2020) / (1200 + 1310)),
        ("average", [1.125, 1.063, 1.031], (1.125 + 1.063 + 1.031) / 3),
    ],
)
def test_operations(operation: str, inputs: list[float], expected: float) -> None:
    assert math.isclose(compute(operation, inputs) or 0.0, expected, rel_tol=1e-12)


def test_undefined_operations_give_none() -> None:
    assert compute("ratio", [1.0, 0.0]) is None
    assert compute("ratio", [1.0, 2.0, 3.0]) is None
    assert compute("development_factor", [1.0, 2.0, 3.0]) is None


# --- tracing ---------------------------------------------------------------------------


def trace(text: str, cite: list[str], computations: list[Computation] | None = None, language: str = "fr"):
    result = table_result()
    sources = build_sources(result, 3)
    para = Paragraph(text=text, source_ids=cite, computations=computations or [])
    (traced,) = trace_numbers([para], sources, result.parents, language, reading=language)
    return traced.numbers, {s.id: s for s in sources}


def ids() -> tuple[str, str, str]:
    result = table_result()
    p0, p1 = result.parents[0].parent, result.parents[1].parent
    return p0.id, p1.id, f"{p1.id}#/tables/0"


def test_a_quoted_number_links_to_its_own_cell_in_the_right_row() -> None:
    _, section, table = ids()
    numbers, _ = trace("En 2022, les paiements cumulés passent de 1 310 à 2 020.", [table])
    by_text = {n.text: n for n in numbers}
    assert by_text["2 020"].status == "quoted" and by_text["2 020"].location.kind == "cell"
    assert (by_text["2 020"].location.row, by_text["2 020"].location.col) == (2, 2)
    assert by_text["2 020"].location.boxes == [CELLS[8].box]
    # '2022' is both a row label and a year in the text: the cell in the row of 1 310 and 2 020 wins
    assert (by_text["2022"].location.row, by_text["2022"].location.col) == (2, 0)
    # citing the section finds the cells of the table it holds
    numbers, _ = trace("Les paiements 2021 atteignent 1 850.", [section])
    assert [(n.text, n.location.kind, n.location.row, n.location.col) for n in numbers] == [
        ("2021", "cell", 1, 0),
        ("1 850", "cell", 1, 2),
    ]


def test_a_sentence_number_links_to_its_sentence_and_format_differences_are_tolerated() -> None:
    _, section, _ = ids()
    numbers, _ = trace("Le taux de déclaration à 12 mois vaut 0,6493.", [section])
    (rate,) = [n for n in numbers if n.text == "0,6493"]
    assert rate.status == "quoted" and rate.location.kind == "sentence" and rate.reason == ""
    assert "64,93 %" in rate.location.text and rate.location.boxes
    # a scale written differently is the same figure: 1,85 k€ is the cell 1 850
    numbers, _ = trace("Les paiements 2021 à 24 mois sont de 1,85 k€.", [section])
    (k,) = [n for n in numbers if n.text == "1,85 k€"]
    assert (k.status, k.location.kind, k.location.row, k.location.col) == ("quoted", "cell", 1, 2)


def test_a_rounded_quote_says_what_it_rounds() -> None:
    _, section, _ = ids()
    numbers, _ = trace("Le taux de déclaration est de 64,9 %, soit environ 65 %.", [section])
    by_text = {n.text: n for n in numbers}
    assert by_text["64,9 %"].status == "quoted" and by_text["64,9 %"].reason == "arrondi de 64,93 %"
    assert by_text["65 %"].status == "unsupported"  # two significant digits: a rounding is not assumed


def test_computations_are_recomputed_and_inventions_are_unsupported() -> None:
    _, _, table = ids()
    good = Computation(
        operation="development_factor",
        inputs=[ComputationInput(value="1 310", source_id=table), ComputationInput(value="2 020", source_id=table)],
        result="1,542",
    )
    wrong = Computation(
        operation="sum",
        inputs=[ComputationInput(value="1 200", source_id=table), ComputationInput(value="1 850", source_id=table)],
        result="3 100",
    )
    text = "Le facteur 2022 vaut 1,542 ; le total 2021 serait 3 100 ; la provision est de 4 567."
    numbers, _ = trace(text, [table], [good, wrong])
    status = {n.text: (n.status, n.reason) for n in numbers}
    assert status["1,542"][0] == "computed" and "vérifié" in status["1,542"][1]
    assert status["3 100"][0] == "mismatch" and "3 050" in status["3 100"][1]
    assert status["4 567"] == ("unsupported", "absent des sources citées et d'aucun calcul déclaré")


def test_a_computation_on_numbers_that_are_not_in_the_source_is_unsupported() -> None:
    _, _, table = ids()
    invented = Computation(
        operation="ratio",
        inputs=[ComputationInput(value="2 500", source_id=table), ComputationInput(value="1 310", source_id=table)],
        result="1,908",
    )
    numbers, _ = trace("Le rapport serait de 1,908.", [table], [invented])
    assert [(n.text, n.status) for n in numbers] == [("1,908", "unsupported")]
    assert "2 500" in numbers[0].reason


def test_a_number_from_an_uncited_source_is_unsupported_with_the_reason() -> None:
    chain_ladder, _, _ = ids()
    numbers, sources = trace("Les paiements 2022 à 24 mois sont de 2 020.", [chain_ladder])
    (n,) = [n for n in numbers if n.text == "2 020"]
    assert n.status == "unsupported" and "ne cite pas" in n.reason


def test_a_figure_split_by_the_pdf_text_layer_is_found_ignoring_spaces() -> None:
    result = table_result()
    hit = result.parents[1]
    text = hit.parent.text + "\n\nPour une pleine crédibilité d'ordre (5 %, 90 %), il faut n ≥ 4268, 44 années-contrat."
    parent = hit.parent.model_copy(update={"text": text})
    last = hit.children[-1].model_copy(update={"end": len(text)})
    result = SearchResult(
        query="",
        parents=[result.parents[0], hit.model_copy(update={"parent": parent, "children": [*hit.children[:-1], last]})],
    )
    sources = build_sources(result, 3)
    para = Paragraph(text="Il faut n ≥ 4268,44 années-contrat ; pas 4286,44.", source_ids=[parent.id])
    (traced,) = trace_numbers([para], sources, result.parents, "fr", reading="fr")
    by_text = {n.text: n for n in traced.numbers}
    assert by_text["4268,44"].status == "quoted" and "4268, 44" in by_text["4268,44"].location.text
    assert "espaces" in by_text["4268,44"].reason
    assert by_text["4286,44"].status == "unsupported"


def test_small_counts_are_not_traced_but_figures_are() -> None:
    _, section, _ = ids()
    numbers, _ = trace("Il y a 3 méthodes ; 12 mois de recul ; un facteur 1 + r ; une perte de 7 %.", [section])
    assert [(n.text, n.status) for n in numbers] == [("12", "quoted"), ("7 %", "unsupported")]


def test_extractive_answer_links_its_numbers_and_counts_none_unsupported(settings) -> None:
    result = table_result()
    a = answer("Quels sont les paiements cumulés 2022 à 24 mois ?", result, settings)
    assert a.mode == "extractive" and a.unsupported_numbers == 0 and a.mismatched_numbers == 0
    traced = [n for p in a.paragraphs for n in p.numbers]
    assert traced and all(n.status == "quoted" and n.location is not None for n in traced)
    table_numbers = [n for n in traced if n.text == "2 020"]
    assert table_numbers and table_numbers[0].location.kind == "cell"


def test_evidence_prefers_cells_and_keeps_sentences() -> None:
    evidence = build_evidence(table_result().parents)
    _, section, table = ids()
    kinds = [e.location.kind for e in evidence[section]]
    assert kinds[: len(evidence[table])] == ["cell"] * len(evidence[table]) and "sentence" in kinds
    assert all(e.location.kind == "cell" for e in evidence[table])


def test_dotted_codes_and_addresses_are_not_figures() -> None:
    text = "see http://127.0.0.1/ask, torch 2.14.1, section 3.2.1; the ratio is 3.5 and 1,234.56 EUR"
    assert [n.text for n in extract_numbers(text, "en")] == ["3.5", "1,234.56 EUR"]
