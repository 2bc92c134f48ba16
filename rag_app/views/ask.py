"""Ask: a chat whose answers cite their sources; a citation click opens the highlighted passage."""

from __future__ import annotations

import logging
import time

import streamlit as st

from rag_app.ui import state
from rag_app.ui.answer_stream import answer_cost, await_stopped, stream_answer
from rag_app.ui.auth import page_context
from rag_app.ui.downloads import download
from rag_app.ui.formula_crops import source_as_crop
from rag_app.ui.i18n import label_text, lang, t, user_message
from rag_app.ui.markdown import escape_md
from rag_app.ui.marks import show_marks, show_paragraph_marks
from rag_app.ui.number_marks import marked_text, number_marks, numbers_summary
from rag_app.ui.table_excerpt import table_excerpt
from rag_app.ui.widgets import call, citation_cards, show_target
from rag_core import pipeline
from rag_core.errors import RagError
from rag_core.models import Answer, Paragraph
from rag_core.pipeline import evaluating

log = logging.getLogger(__name__)

settings, principal = page_context()
st.title(t("ask.title"))
LONG_TABLE_ROWS = 3  # a table excerpt with more rows is folded under its answering sentence
TOO_LONG = "ask_too_long"  # a question refused for its length, kept to offer searching with its first part
SEARCH_PREFILL = state.SEARCH_PREFILL

# ---- the conversation: after a reload or in a new tab, the one in the address, else the latest one
if state.needs_restoring():
    wanted = state.wanted_conversation()
    if not wanted:
        _, recent = call(pipeline.list_conversations, settings, principal=principal, limit=1)
        wanted = recent[0].conversation_id if recent else ""
    if wanted:
        _, restored = call(pipeline.conversation_answers, settings, wanted, principal=principal)
        state.open_conversation(restored or [], wanted)
state.show_conversation_in_address()


def switch_conversation() -> None:
    """Selectbox callback: show the chosen stored conversation."""
    chosen = st.session_state.get("ask_conversation") or ""
    _, answers = call(pipeline.conversation_answers, settings, chosen, principal=principal)
    if answers is not None:
        state.open_conversation(answers, chosen)


def conversation_label(summary: pipeline.ConversationSummary | None) -> str:
    if summary is None:
        return t("ask.conversation_new")
    first = summary.first_question if len(summary.first_question) <= 60 else summary.first_question[:59] + "…"
    when = time.strftime("%d/%m %H:%M", time.localtime(summary.updated_at))
    return t("ask.conversation_item", q=first, when=when, n=summary.answers)


# ---- scope
with st.sidebar:
    _, collections = call(pipeline.list_collections, settings, principal=principal)
    chosen_collections = st.multiselect(
        t("ask.scope_collections"), list(collections or []), key="ask_collections", placeholder=t("ask.scope_help")
    )
    listed, documents = call(pipeline.list_documents, settings, principal=principal)
    all_documents = list(documents or [])
    documents = [d for d in all_documents if not chosen_collections or d.collection in chosen_collections]
    names = {d.doc_id: f"{d.file_name} ({d.collection})" for d in documents}
    chosen_docs = st.multiselect(
        t("ask.scope_documents"),
        list(names),
        key="ask_docs",
        format_func=lambda i: names.get(i, i),
        placeholder=t("ask.scope_help"),
    )
    st.button(t("ask.clear"), key="ask_clear", on_click=state.new_conversation, icon=":material/add_comment:")
    _, earlier = call(pipeline.list_conversations, settings, principal=principal)
    summaries = {c.conversation_id: c for c in earlier or []}
    current = state.conversation_id()
    st.session_state["ask_conversation"] = current
    st.selectbox(
        t("ask.conversations"),
        ([] if current in summaries else [current]) + list(summaries),
        key="ask_conversation",
        format_func=lambda c: conversation_label(summaries.get(c)),
        on_change=switch_conversation,
    )


def said(text: str) -> str:
    """One of rag_core's sentences of the answer (a refusal, a note) in the page's language, whatever the
    question's (`pipeline.retell`), escaped for markdown."""
    return escape_md(pipeline.retell(text, lang()))


def answer_details(answer: Answer) -> None:
    """How the question was understood and searched, in the user's words, folded under the answer; the
    method's own words (parents, budget) last."""
    lines, method = [], []
    if answer.standalone_question:
        lines.append(t("ask.rewritten", q=answer.standalone_question))
    if answer.budget:
        kind = t(f"ask.kind.{answer.budget_kind}")
        reason = pipeline.retell(answer.budget_reason, lang())
        lines.append(t("ask.budget", n=answer.budget, kind=kind, reason=reason))
        method.append(t("ask.budget_method", n=answer.budget, kind=kind))
    if lines:
        with st.expander(t("ask.details")):
            for line in lines:
                st.caption(escape_md(line))
            for line in method:
                st.caption(f"*{escape_md(line)}*")


def render_paragraph(paragraph: Paragraph, by_id: dict, m: int, p_index: int) -> None:
    """The answering sentence first; a long table excerpt folded under it. A sentence whose extracted
    text is garbled mathematics is shown as the page prints it, its text folded (`ui.formula_crops`)."""
    table = paragraph.table
    if table is not None and len(table.rows) > LONG_TABLE_ROWS and table.source_id in by_id:
        st.markdown(marked_text(paragraph))
        with st.expander(t("ask.table_rows", n=len(table.rows))):
            table_excerpt(paragraph, by_id, key=f"table-{m}-{p_index}")
    elif not table_excerpt(paragraph, by_id, key=f"table-{m}-{p_index}"):
        cited = [by_id[i] for i in paragraph.source_ids if i in by_id]
        text = marked_text(paragraph)
        if not source_as_crop(paragraph.text, cited, paragraph.quote, settings, principal, lambda: st.markdown(text)):
            st.markdown(text)


def render_answer(answer: Answer, question: str, m: int) -> None:
    """One assistant message: paragraphs with their citation cards first, then marks, warnings, details,
    uncited passages, report form."""
    by_id = {s.id: s for s in answer.sources}
    if answer.mode == "refused":
        if answer.missing_terms:
            st.warning(said(answer.missing_information), icon=":material/search_off:")
        closest = answer.sources + [s for s in answer.uncited if s.id not in by_id]
        if closest:
            st.info(t("ask.refused_closest") if answer.missing_terms else t("ask.refused"))
            citation_cards(closest, key=f"closest-{m}")
        else:
            st.info(t("ask.refused_nothing"))
        answer_details(answer)
        return
    heading = ""
    for p_index, paragraph in enumerate(answer.paragraphs):
        if paragraph.sub_question and paragraph.sub_question != heading:
            heading = paragraph.sub_question
            st.markdown("**" + escape_md(t("ask.sub_question", q=heading)) + "**")
        if paragraph.language:  # another language than the question's: shown as written, labelled
            st.caption(t("ask.passage_language", language=t(f"lang.{paragraph.language}")))
        render_paragraph(paragraph, by_id, m, p_index)
        show_paragraph_marks(paragraph)
        citation_cards(
            [by_id[i] for i in paragraph.source_ids if i in by_id],
            key=f"cite-{m}-{p_index}",
            quote=paragraph.quote,
            paragraph=paragraph,
        )
        number_marks(paragraph, by_id, key=f"num-{m}-{p_index}")
    if answer.mode == "extractive":
        label = t("ask.extractive_fallback") if answer.fallback else t("ask.extractive")
        st.badge(label, color="blue", icon=":material/format_quote:")
    for w in answer.warnings:
        st.warning(said(w))
    show_marks(answer.marks)  # a check skipped, and why
    for sub in answer.sub_questions:
        if not sub.found:
            st.warning(
                escape_md(
                    t("ask.no_source", q=sub.question)
                    + (f" ({t('ask.reformulated', q=sub.reformulated)})" if sub.reformulated else "")
                )
            )
    if answer.terms_not_in_passages or answer.retried_terms:
        st.warning(said(answer.missing_information), icon=":material/manage_search:")
    numbers_summary(answer)
    if answer.missing_information and not (answer.terms_not_in_passages or answer.retried_terms):
        st.caption(t("ask.missing") + said(answer.missing_information))
    answer_details(answer)
    answer_cost(answer)
    if answer.mode == "greeting":
        return
    if answer.uncited:
        with st.expander(t("ask.uncited")):
            citation_cards(answer.uncited, key=f"uncited-{m}")
    cited = pipeline.cited_sources(answer) or answer.sources
    if cited:
        with st.expander(t("ask.report")):
            with st.form(key=f"report-{m}", clear_on_submit=True, enter_to_submit=False):  # no English hint
                quotes = {
                    s.id: next((p.quote for p in answer.paragraphs if s.id in p.source_ids and p.quote), "")
                    for s in cited
                }
                labels = {  # each named by its quote's own page, as its card is
                    s.id: label_text(pipeline.label_on_pages(s.label, pipeline.cited_pages(s, quotes[s.id])))
                    for s in cited
                }
                source_id = st.selectbox(t("ask.report_source"), list(labels), format_func=lambda i: labels[i])
                comment = st.text_area(t("ask.report_comment"))
                if st.form_submit_button(t("ask.report_send")):
                    source = by_id.get(source_id) or cited[0]
                    quote = next((p.quote for p in answer.paragraphs if source.id in p.source_ids and p.quote), "")
                    ok, _ = call(
                        evaluating.report_citation,
                        settings,
                        principal=principal,
                        question=question,
                        language=answer.language or lang(),
                        source=source,
                        quote=quote,
                        comment=comment,
                    )
                    if ok:
                        st.success(t("ask.reported"))


def ask_streaming(question: str, history: list[dict]) -> Answer | None:
    """The answer written paragraph by paragraph (`ui.answer_stream`); the answer kept, final or stopped,
    joins the conversation."""
    stream = pipeline.ask_stream(
        question,
        settings,
        conversation_id=state.conversation_id(),
        collections=chosen_collections or None,
        doc_ids=chosen_docs or None,
        principal=principal,
    )
    return stream_answer(stream, lambda kept: history.append({"role": "assistant", "answer": kept}))


# The viewer under the answers at the page's full width by default: a cited page is read at 100 % on a
# 1440-pixel screen; beside the chat (the former layout) it is drawn at about two thirds.
with st.sidebar:
    beside = st.toggle(t("ask.viewer_beside"), key="ask_viewer_beside", help=t("ask.viewer_beside_help"))
chat_col, viewer_col = st.columns([6, 5], gap="medium") if beside else (st.container(), st.container())
library_empty = listed and not all_documents
prompt = st.chat_input(t("ask.input"), key="ask_input", disabled=library_empty)
limit = settings.answer.max_question_chars
refused: RagError | None = None
if prompt:  # the façade's one check of a question, as every channel's (length, blanks, text that cannot be encoded)
    try:
        pipeline.check_question(prompt, settings)
    except pipeline.QuestionTooLong:  # refused before any search: offered as a search with its first part
        st.session_state[TOO_LONG], prompt = prompt, None
    except RagError as err:
        refused, prompt = err, None
    else:
        st.session_state.pop(TOO_LONG, None)
        state.close_viewer()  # a new answer: the previous citation's page no longer goes with what is read


def search_first_part(text: str) -> None:
    st.session_state[SEARCH_PREFILL] = text
    st.session_state.pop(TOO_LONG, None)


with chat_col:
    await_stopped()  # a stop click: the stopped run hands over what it verified
    history = state.messages()
    # grants may have changed since: an answer that used a document no longer readable is dropped from memory
    _, in_scope = call(pipeline.answers_in_scope, [m.get("answer") for m in history], settings, principal=principal)
    for m, still in enumerate(in_scope or ["answer" not in message for message in history]):
        if not still:
            history[m] = {"role": "assistant", "withheld": True}
    question = ""
    for m, message in enumerate(history):
        with st.chat_message(message["role"]):
            if message["role"] == "user":
                question = message["text"]
                st.text(question)
            elif message.get("withheld"):
                st.info(t("scope.answer_withheld"))
            else:
                render_answer(message["answer"], question, m)
    if library_empty:
        st.info(t("ask.library_empty"), icon=":material/library_books:")
        st.page_link("views/library.py", label=t("ask.library_link"), icon=":material/upload_file:")
    if refused is not None:
        st.error(escape_md(user_message(refused)))
    too_long = st.session_state.get(TOO_LONG)
    if too_long:
        st.warning(t("ask.too_long", n=len(too_long), max=limit), icon=":material/short_text:")
        if st.button(t("ask.search_first_part", max=limit), key="ask_search_first_part"):
            search_first_part(too_long[:limit])
            st.switch_page("views/search.py")
    if prompt:
        history.append({"role": "user", "text": prompt})
        with st.chat_message("user"):
            st.text(prompt)
        with st.chat_message("assistant"):
            answer = ask_streaming(prompt, history)
            if answer is not None:
                render_answer(answer, prompt, len(history) - 1)
    # one's own reports; an administrator's download holds everyone's
    if evaluating.has_reports(settings, principal=principal):
        download(
            t("ask.export"),
            lambda who: pipeline.reported_citations(settings, principal=who),
            "reported_citations.jsonl",
            "application/jsonl",
            key="ask_export",
            settings=settings,
            principal=principal,
            icon=":material/download:",
        )

with viewer_col:
    target = state.shown_target()
    if target is None:
        if beside or history:
            st.caption(t("ask.viewer_empty"))
    else:
        st.button(t("viewer.close"), key="viewer_close", on_click=state.close_viewer, icon=":material/close:")
        show_target(target, settings, principal, key="ask-viewer")
