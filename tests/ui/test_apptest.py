"""Page logic through streamlit.testing.v1.AppTest: widgets, language, errors, viewer arguments.

The pipeline is replaced by small deterministic functions (monkeypatched on `rag_core.pipeline`,
which the pages call by attribute): these tests are about the pages, not retrieval.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rag_core import pipeline
from rag_core.access import LOCAL_USER, Principal
from rag_core.errors import NotFoundError
from rag_core.evaluation.citation_reports import read_reports
from rag_core.models import Answer, ChannelHit, HighlightBox, Item, Paragraph, RetrievedParent, SearchResult
from tests import fake_reranker
from tests.fakes import replace
from tests.ui.apptest_support import (
    CHANNELS,
    CHUNKED,
    DOC_ID,
    PDF_NAME,
    QUOTE,
    RECORD,
    SOURCE,
    fake_ask,
    fake_search,
    hover_texts,
    run_app,
    viewer_args,
)

REAL_BACKENDS = pipeline.backends


@pytest.fixture(autouse=True)
def fake_access(monkeypatch: pytest.MonkeyPatch) -> dict:
    """The façade's access functions as the local operator (administrator) sees them: these tests
    are about the pages; the scoping itself is tested below the UI and in test_browser_access.py."""
    seen: dict = {"sign_in": []}
    replace(monkeypatch, pipeline, "record_sign_in", lambda settings, *, principal: seen["sign_in"].append(principal))
    replace(monkeypatch, pipeline, "record_event", lambda settings, event, *, principal, **fields: None)
    replace(monkeypatch, pipeline, "writable_collections", lambda settings, *, principal: ["vignettes"])
    replace(monkeypatch, pipeline, "manageable_collections", lambda settings, *, principal: ["vignettes"])
    replace(monkeypatch, pipeline, "get_document", lambda doc_id, settings, *, principal: RECORD)
    replace(
        monkeypatch,
        pipeline,
        "record_inspection",
        lambda doc_id, settings, *, principal: seen.setdefault("inspected", []).append((doc_id, principal)),
    )
    return seen


def test_home_is_french_by_default_and_switches_to_english(fake_pipeline: dict) -> None:
    at = run_app()
    assert at.title[0].value == "Questions-réponses sur vos documents"
    assert at.radio(key="lang").value == "fr"
    frame = at.table[0].value  # a table, not a data grid: the long hints wrap instead of being cut
    assert "pymupdf" in " ".join(frame.iloc[:, 1])
    assert "Analyse des fichiers" in list(frame.iloc[:, 0])  # the component in the page's language
    at.radio(key="lang").set_value("en").run()
    assert at.title[0].value == "Question answering on your documents"
    at.switch_page("views/library.py").run()
    assert at.title[0].value == "Library"


def test_library_widgets_and_document_list(fake_pipeline: dict) -> None:
    at = run_app("views/library.py")
    assert at.selectbox(key="library_collection").options == ["vignettes", "Nouvelle collection…"]
    assert at.button(key="library_ingest").disabled  # nothing uploaded yet
    frame = at.table[0].value  # a table: long titles wrap instead of being cut
    assert list(frame["titre"]) == ["Coverage modifications"] and list(frame["pages"]) == [5]
    assert list(frame["auteur"]) == ["Vincent Goulet"] and list(frame["date"]) == ["2023-02-06"]
    assert hover_texts(at.table[0]) == {(0, 0): PDF_NAME}  # the full file name on the title's hover
    delete = at.button(key="library_delete")
    assert delete.disabled  # confirmation first
    at.checkbox(key="library_delete_confirm").check().run()
    assert not at.button(key="library_delete").disabled


def test_a_file_name_cannot_break_out_of_its_tooltip(fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tooltip is a CSS string in the page's style sheet: quotes, backslashes and angle
    brackets of a file name are escaped, and a document without a title shows its file name."""
    hostile = 'a" } body { display: none } </style><script>alert(1)</script>\\.pdf'
    record = RECORD.model_copy(update={"file_name": hostile, "title": "", "author": "", "date": ""})
    replace(monkeypatch, pipeline, "list_documents", lambda settings, collection=None, *, principal: [record])
    at = run_app("views/library.py")
    styles = at.table[0].proto.arrow_data.styler.styles
    assert "</style>" not in styles and "<script>" not in styles and "display: none" in styles
    assert hover_texts(at.table[0]) == {(0, 0): hostile}
    frame = at.table[0].value
    assert list(frame["titre"]) == [hostile] and list(frame["auteur"]) == [""]


def test_rag_error_is_shown_without_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    message = "Ce document n'est pas dans la bibliothèque"

    def refuse(settings, collection=None, *, principal):
        raise NotFoundError(message)

    replace(monkeypatch, pipeline, "list_documents", refuse)
    replace(monkeypatch, pipeline, "list_collections", lambda settings, *, principal: [])
    at = run_app("views/library.py")
    assert [e.value for e in at.error] == [message]
    assert not at.exception
    assert "Traceback" not in str(at.main)


def test_unexpected_error_shows_a_generic_message(monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    def crash(settings, collection=None, *, principal):
        raise KeyError("internal detail /secret/path")

    replace(monkeypatch, pipeline, "list_documents", crash)
    replace(monkeypatch, pipeline, "list_collections", lambda settings, *, principal: [])
    at = run_app("views/inspect.py")
    assert len(at.error) == 1
    assert "secret" not in at.error[0].value and "Traceback" not in at.error[0].value
    assert not at.exception


def test_ask_renders_marks_and_opens_the_cited_passage(fake_pipeline: dict) -> None:
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Which variables does the vignette define?").run()
    assert not at.exception
    call = fake_pipeline["ask"][0]
    assert call["conversation_id"] and call["collections"] is None
    texts = [m.value for m in at.markdown]
    assert any("The vignette defines four payment variables." in t for t in texts)
    assert any(r"Limits \*cap\* payments" in t for t in texts)  # document text is escaped, not formatted
    badges = " ".join(texts)  # st.badge is markdown ":color-badge[...]"
    assert "partiellement étayé" in badges and "extractif" in badges
    assert [w.value for w in at.warning] == ["The language model was not reached; the answer is extractive."]
    assert not at.get("component_instance")  # no viewer before a click

    card = next(b for b in at.button if b.label == SOURCE.label)
    card.click().run()
    assert not at.exception
    args = viewer_args(at)
    assert fake_pipeline["page_pdf"][-1] == (DOC_ID, [3])  # only the cited page is sent
    strong = [a for a in args["annotations"] if a["id"].startswith("cite-")]
    light = [a for a in args["annotations"] if a["id"].startswith("ctx-")]
    assert strong == [
        {
            "id": "cite-0",
            "page": 1,
            "x": 72,
            "y": 200,
            "width": 328,
            "height": 14,
            "color": strong[0]["color"],
            "border": "solid",
        }
    ]
    assert light == []  # the rest of the section is not tinted: one style, no legend needed
    assert args["annotations"][0]["id"] == "cite-0" and args["scroll_to_annotation"] == 1
    assert args["scroll_to_page"] is None and args["pages_to_render"] == []

    # the conversation id stays the same for the session; the new answer closes the previous citation
    at.chat_input(key="ask_input").set_value("And with a limit?").run()
    assert fake_pipeline["ask"][1]["conversation_id"] == call["conversation_id"]
    assert not at.get("component_instance")


def test_ask_scope_is_passed_to_the_pipeline(fake_pipeline: dict) -> None:
    at = run_app("views/ask.py")
    at.multiselect(key="ask_collections").set_value(["vignettes"]).run()
    at.multiselect(key="ask_docs").set_value([DOC_ID]).run()
    at.chat_input(key="ask_input").set_value("question").run()
    assert fake_pipeline["ask"][0]["collections"] == ["vignettes"]
    assert fake_pipeline["ask"][0]["doc_ids"] == [DOC_ID]


def test_refused_answer_shows_closest_passages(fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    replace(monkeypatch, pipeline, "ask", fake_ask(lambda q: Answer(question=q, mode="refused", uncited=[SOURCE])))
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("What is the capital of Peru?").run()
    assert any("Aucun passage" in i.value for i in at.info)
    assert any(b.label == SOURCE.label for b in at.button)


def test_report_a_wrong_citation(fake_pipeline: dict) -> None:
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("Do the variables differ?").run()
    at.text_area[0].input("wrong page")
    next(b for b in at.button if "Enregistrer" in b.label).click().run()
    assert not at.exception
    data_dir = Path(os.environ["RAG_DATA_DIR"])
    record = json.loads(read_reports(data_dir).decode().splitlines()[0])
    assert {k: record[k] for k in ("pdf", "question", "type", "pages", "answer", "quote", "comment")} == {
        "pdf": PDF_NAME,
        "question": "Do the variables differ?",
        "type": "reported",
        "pages": [3],
        "answer": "",
        "quote": QUOTE,
        "comment": "wrong page",
    }
    assert record["id"].startswith("reported-") and record["language"] == "fr" and record["reported_by"] == LOCAL_USER
    assert at.get("download_button")


def test_inspect_shows_sections_children_tables(fake_pipeline: dict) -> None:
    at = run_app("views/inspect.py")
    tree = [b for b in at.button if str(b.key).startswith("inspect-section-")]
    assert [b.label.split(" — ")[0] for b in tree] == ["Coverage", "\u2003Deductibles", "\u2003Limits"]
    assert tree[1].label.endswith("— p. 1 ⚠")  # "..." under the heading: flagged as maybe mis-detected
    assert at.number_input(key="inspect_page").value == 1
    at.number_input(key="inspect_page").set_value(3).run()
    tree[2].click().run()  # a section opens its first page
    assert at.number_input(key="inspect_page").value == 1
    args = viewer_args(at)
    colours = {a["color"] for a in args["annotations"] if a["id"].startswith("child-")}
    assert len(colours) == 3  # one colour per child
    assert sum(a["id"].startswith("parent-") for a in args["annotations"]) == 2
    at.selectbox(key="inspect_child").set_value("c1").run()
    assert "A franchise deductible pays all." in [t.value for t in at.text]
    table = at.dataframe[0].value if len(at.dataframe) == 1 else at.dataframe[-1].value
    assert list(table.columns) == ["variable", "meaning"] and table.iloc[0, 0] == "Y^P"
    assert len(at.get("download_button")) == 2
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sections"] == "2" and metrics["Passages indexés"] == "3"  # the user's words first
    assert metrics["Jetons par parent (min–max)"]  # the method's, folded below


def test_inspect_records_each_document_once_per_session(fake_pipeline: dict, fake_access: dict) -> None:
    at = run_app("views/inspect.py")
    at.selectbox(key="inspect_child").set_value("c1").run()
    at.number_input(key="inspect_page").set_value(1).run()
    at.run()
    assert fake_access["inspected"] == [(RECORD.doc_id, Principal.local_operator())]  # not once per rerun


def test_inspect_shows_the_text_inside_a_figure(fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    figure = Item(
        ref="#/pictures/0",
        kind="picture",
        caption="Figure 1. Paid claims",
        page=1,
        boxes=[HighlightBox(page=1, x0=72, y0=420, x1=500, y1=600)],
        inner_text="Cumulative paid claims\nDevelopment year",
    )
    parents = [CHUNKED.parents[0], CHUNKED.parents[1].model_copy(update={"items": [figure]})]
    chunked = CHUNKED.model_copy(update={"parents": parents})
    replace(monkeypatch, pipeline, "load_chunks", lambda doc_id, settings, *, principal: chunked)
    at = run_app("views/inspect.py")
    shown = [m.value for m in at.markdown if "Cumulative paid claims" in m.value]
    assert len(shown) == 1 and "Development year" in shown[0] and "Texte dans la figure" in shown[0]


def test_a_child_whose_text_breaks_lines_is_listed_with_spaces(
    fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The list shows its choice in a text input, which drops line breaks: "Working PartySteven".
    broken = CHUNKED.children[0].model_copy(update={"text": "CAS Tail Factor Working Party\nSteven C. Herman"})
    chunked = CHUNKED.model_copy(update={"children": [broken, *CHUNKED.children[1:]]})
    replace(monkeypatch, pipeline, "load_chunks", lambda doc_id, settings, *, principal: chunked)
    at = run_app("views/inspect.py")
    first = at.selectbox(key="inspect_child").options[0]
    assert first.endswith("CAS Tail Factor Working Party Steven C. Herman") and "\n" not in first


def test_search_lists_ranks_with_absent_channel(fake_pipeline: dict) -> None:
    at = run_app("views/search.py")
    at.text_input(key="search_query").input("deductible")
    at.button[0].click().run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert frame["rang dense"][0] == "absent" and frame["rang lexical"][0] == "1"
    assert fake_pipeline["search"] == [{"k": 3, "candidate_k": 20}]


def test_ask_shows_budget_rewrite_and_sub_questions(fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag_core.models import SubQuestion

    answer = Answer(
        question="et ses limites ?",
        mode="extractive",
        sources=[SOURCE],
        standalone_question="et ses limites (franchise) ?",
        budget=7,
        budget_kind="comparison",
        budget_reason="comparaison : la question contient « compare »",
        paragraphs=[Paragraph(text="Deductibles reduce payments.", source_ids=[SOURCE.id], sub_question="franchise")],
        sub_questions=[
            SubQuestion(question="franchise", parents=4, parent_ids=["p1"]),
            SubQuestion(question="xylophone", parents=3, found=False, reformulated="xylophone seul"),
        ],
    )
    replace(monkeypatch, pipeline, "ask", fake_ask(lambda q: answer))
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("et ses limites ?").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert "Question comprise comme : et ses limites (franchise) ?" in captions
    # the user's words first ("sections"), the method's ("parents", the budget's kind) after them
    assert "Réponse cherchée dans les 7 sections les plus proches" in captions and "contient « compare »" in captions
    assert captions.index("7 sections") < captions.index("Méthode : contexte de 7 parents, budget « comparaison »")
    assert any("Sous-question : franchise" in m.value.replace("\\", "") for m in at.markdown)
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("Aucune source pour la sous-question « xylophone »" in w and "xylophone seul" in w for w in warnings)


def test_search_shows_the_thesaurus_and_the_reranker_status(
    fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    replace(monkeypatch, pipeline, "backends", REAL_BACKENDS)  # the page reads the real status from the settings
    at = run_app("views/search.py")
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Thésaurus utilisé : thesaurus (" in captions and "concepts" in captions
    # the status in the page's language (rag_core writes it in English for the command line)
    assert "Reranker : aucun : la recherche se fait sans reclassement (réglez RAG_RERANKER__PATH" in captions
    fake_reranker.install()
    monkeypatch.setenv("RAG_RERANKER__BACKEND", fake_reranker.NAME)
    monkeypatch.setenv("RAG_RERANKER__MIN_SCORE", "0.42")
    at = run_app("views/search.py")
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert f"Reranker : {fake_reranker.NAME} (score minimal 0.42)" in captions


def test_search_shows_the_translated_terms_and_the_other_language_ranks(
    fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag_core.models import TranslatedTerms

    hit = RetrievedParent(
        parent=CHUNKED.parents[0],
        document=RECORD,
        children=CHUNKED.children[:2],
        best_child=CHUNKED.children[1],
        fused_rank=3,
        fused_score=0.03,
        placed=True,
        ranks={
            "dense_other": ChannelHit(rank=2, score=0.84, child_id="c1"),
            "translated": ChannelHit(rank=1, score=6.1, child_id="c1"),
        },
    )
    translated = TranslatedTerms(
        language="en",
        terms=["franchise → deductible, ordinary deductible"],
        kept=["tarif"],
        forms=["deductible", "ordinary deductible"],
        only_other=["franchise"],
    )
    replace(
        monkeypatch,
        pipeline,
        "search",
        fake_search(
            lambda q: SearchResult(
                query=q, parents=[hit], language="fr", translated=translated, channels=CHANNELS, elapsed_s=0.01
            )
        ),
    )
    at = run_app("views/search.py")
    at.text_input(key="search_query").input("franchise et tarif")
    at.button[0].click().run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert frame["rang dense autre langue"][0] == "2" and frame["rang lexical traduit"][0] == "1"
    assert frame["rang lexical"][0] == "absent" and frame["langue"][0] == RECORD.language
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert (
        "Termes cherchés dans les documents en anglais : franchise → deductible, ordinary deductible; tarif" in captions
    )
    assert "Glossaire utilisé : " in captions and "entrées" in captions
    assert "Rang 3 : le meilleur passage des documents en anglais, placé à ce rang." in captions
    assert (
        "Seuls les documents en anglais nomment : franchise (aucun document dans la langue de la question)." in captions
    )


def test_ask_labels_a_passage_in_another_language(fake_pipeline: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = Answer(
        question="que devient la franchise ?",
        language="fr",
        mode="extractive",
        sources=[SOURCE],
        paragraphs=[Paragraph(text="With a deductible, payments are reduced.", source_ids=[SOURCE.id], language="en")],
    )
    replace(monkeypatch, pipeline, "ask", fake_ask(lambda q: answer))
    at = run_app("views/ask.py")
    at.chat_input(key="ask_input").set_value("que devient la franchise ?").run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert "Passage en anglais, tel qu'écrit :" in captions
