"""The Ask page's answer marks through AppTest: a refusal naming its missing terms, a table answer
whose cells open the viewer on themselves, and the support-check and collection marks."""

from __future__ import annotations

from rag_core import pipeline
from rag_core.models import Answer, HighlightBox, Paragraph, TableCell, TableExcerpt
from tests.fakes import replace
from tests.ui.apptest_support import DOC_ID, SOURCE, fake_ask, run_app, viewer_args

CELL = HighlightBox(page=3, x0=300, y0=410, x1=340, y1=422)
TABLE_SOURCE = SOURCE.model_copy(
    update={
        "id": f"{SOURCE.id}#/tables/0",
        "kind": "table",
        "label": "Coverage modifications · Table 1 · p. 3",
        "boxes": [HighlightBox(page=3, x0=72, y0=380, x1=520, y1=470)],
        "parent_boxes": [],
    }
)
EXCERPT = TableExcerpt(
    source_id=TABLE_SOURCE.id,
    caption="Cumulative paid losses",
    header=[TableCell(row=0, col=0, text="Acc. year"), TableCell(row=0, col=1, text="Paid")],
    rows=[
        [
            TableCell(row=6, col=0, text="1997", box=HighlightBox(page=3, x0=72, y0=410, x1=110, y1=422)),
            TableCell(row=6, col=1, text="57231", box=CELL),
        ]
    ],
    matched=[(6, 0)],
)


def test_a_refusal_names_the_missing_terms_and_lists_the_closest_passages(fake_pipeline, monkeypatch) -> None:
    replace(
        monkeypatch,
        pipeline,
        "ask",
        fake_ask(
            lambda q: Answer(
                question=q,
                mode="refused",
                missing_terms=["TSCA"],
                uncited=[SOURCE],
                missing_information="Aucun des documents auxquels vous avez accès ne mentionne « TSCA ».",
            )
        ),
    )
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Quel est le taux de la TSCA ?").run()
    assert any("TSCA" in w.value for w in at.warning)
    assert any("ce n'est pas une réponse" in i.value for i in at.info)
    assert any(b.label == SOURCE.label for b in at.button)


def test_a_table_answer_shows_its_row_and_a_cell_click_opens_that_cell(fake_pipeline, monkeypatch) -> None:
    replace(
        monkeypatch,
        pipeline,
        "ask",
        fake_ask(
            lambda q: Answer(
                question=q,
                mode="extractive",
                sources=[TABLE_SOURCE],
                paragraphs=[
                    Paragraph(
                        text="1997 — Paid: 57231", source_ids=[TABLE_SOURCE.id], quote="| 1997 | 57231 |", table=EXCERPT
                    )
                ],
            )
        ),
    )
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("What was paid for accident year 1997?").run()
    assert not at.exception
    assert not any("57231" in m.value for m in at.markdown)  # the row is a table, not a sentence
    cell = next(b for b in at.button if b.label == "57231")
    cell.click().run()
    args = viewer_args(at)
    strong = [a for a in args["annotations"] if a["id"].startswith("cite-")]
    assert [(a["page"], a["x"], a["y"], a["width"], a["height"]) for a in strong] == [(1, 300, 410, 40, 12)]
    assert fake_pipeline["page_pdf"][-1] == (DOC_ID, [3])


def test_support_verdicts_and_mixed_collections_are_marked(fake_pipeline, monkeypatch) -> None:
    replace(
        monkeypatch,
        pipeline,
        "ask",
        fake_ask(
            lambda q: Answer(
                question=q,
                mode="llm",
                sources=[SOURCE],
                paragraphs=[
                    Paragraph(text="Backed.", source_ids=[SOURCE.id], quote="all four", judged="supported"),
                    Paragraph(
                        text="Invented.",
                        source_ids=[SOURCE.id],
                        quote="all four",
                        judged="not_supported",
                        judged_reason="The source says nothing of it.",
                        note="Jugé non appuyé par ses sources : The source says nothing of it.",
                        collections=["Réglementaire", "Cours"],
                    ),
                ],
            )
        ),
    )
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("q").run()
    text = " ".join(m.value for m in at.markdown)
    assert "jugé appuyé" in text and "jugé NON appuyé" in text
    assert "Réglementaire, Cours" in text
    assert any("nothing of it" in c.value for c in at.caption)


def test_an_answer_shows_what_it_cost_and_the_dialect_in_use(fake_pipeline, monkeypatch) -> None:
    replace(
        monkeypatch,
        pipeline,
        "ask",
        fake_ask(
            lambda q: Answer(
                question=q,
                mode="llm",
                sources=[SOURCE],
                prompt_tokens=1834,
                completion_tokens=212,
                dialect="json_object",
                first_paragraph_s=2.4,
                elapsed_s=9.75,
                paragraphs=[Paragraph(text="Backed.", source_ids=[SOURCE.id], quote="all four")],
            )
        ),
    )
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("q").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Jetons : 1834 en entrée, 212 en sortie" in captions and "sortie structurée : json_object" in captions
    assert "premier paragraphe en 2.4 s" in captions and "9.8 s en tout" in captions
    assert not any(b.label == "Arrêter la rédaction" for b in at.button)  # the stop button leaves with the draft
