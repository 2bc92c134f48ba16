"""Ask: a chat whose answers cite their sources; a citation click opens the highlighted passage."""

from __future__ import annotations

import logging

import streamlit as st

from rag_core import pipeline
from rag_core.models import Answer
from rag_core.pipeline import evaluating
from ui import state
from ui.answer_stream import answer_cost, await_stopped, stream_answer
from ui.auth import page_context
from ui.downloads import download
from ui.i18n import lang, t
from ui.markdown import escape_md
from ui.marks import show_marks, show_paragraph_marks
from ui.number_marks import marked_text, number_marks, numbers_summary
from ui.table_excerpt import table_excerpt
from ui.widgets import call, citation_cards, show_target

log = logging.getLogger(__name__)

settings, principal = page_context()
st.title(t("ask.title"))

# ---- scope
with st.sidebar:
    _, collections = call(pipeline.list_collections, settings, principal=principal)
    chosen_collections = st.multiselect(
        t("ask.scope_collections"), list(collections or []), key="ask_collections", placeholder=t("ask.scope_help")
    )
    _, documents = call(pipeline.list_documents, settings, principal=principal)
    documents = [d for d in (documents or []) if not chosen_collections or d.collection in chosen_collections]
    names = {d.doc_id: f"{d.file_name} ({d.collection})" for d in documents}
    chosen_docs = st.multiselect(
        t("ask.scope_documents"),
        list(names),
        key="ask_docs",
        format_func=lambda i: names.get(i, i),
        placeholder=t("ask.scope_help"),
    )
    st.button(t("ask.clear"), key="ask_clear", on_click=state.new_conversation, icon=":material/refresh:")


def render_answer(answer: Answer, question: str, m: int) -> None:
    """One assistant message: paragraphs with their citation cards, marks, warnings, uncited, report form."""
    by_id = {s.id: s for s in answer.sources}
    if answer.mode == "extractive":
        label = t("ask.extractive_fallback") if answer.fallback else t("ask.extractive")
        st.badge(label, color="blue", icon=":material/format_quote:")
    for w in answer.warnings:
        st.warning(escape_md(w))
    show_marks(answer.marks)  # a check skipped, and why
    if answer.standalone_question:
        st.caption(escape_md(t("ask.rewritten", q=answer.standalone_question)))
    if answer.budget:
        st.caption(
            escape_md(
                t("ask.budget", n=answer.budget, kind=t(f"ask.kind.{answer.budget_kind}"), reason=answer.budget_reason)
            )
        )
    for sub in answer.sub_questions:
        if not sub.found:
            st.warning(
                escape_md(
                    t("ask.no_source", q=sub.question)
                    + (f" ({t('ask.reformulated', q=sub.reformulated)})" if sub.reformulated else "")
                )
            )
    if answer.mode == "refused":
        if answer.missing_terms:
            st.warning(escape_md(answer.missing_information), icon=":material/search_off:")
        st.info(t("ask.refused_closest") if answer.missing_terms else t("ask.refused"))
        closest = answer.sources + [s for s in answer.uncited if s.id not in by_id]
        citation_cards(closest, key=f"closest-{m}")
        return
    if answer.terms_not_in_passages or answer.retried_terms:
        st.warning(escape_md(answer.missing_information), icon=":material/manage_search:")
    numbers_summary(answer)
    heading = ""
    for p_index, paragraph in enumerate(answer.paragraphs):
        if paragraph.sub_question and paragraph.sub_question != heading:
            heading = paragraph.sub_question
            st.markdown("**" + escape_md(t("ask.sub_question", q=heading)) + "**")
        if paragraph.language:  # another language than the question's: shown as written, labelled
            st.caption(t("ask.passage_language", language=t(f"lang.{paragraph.language}")))
        if not table_excerpt(paragraph, by_id, key=f"table-{m}-{p_index}"):
            st.markdown(marked_text(paragraph))
        show_paragraph_marks(paragraph)
        citation_cards(
            [by_id[i] for i in paragraph.source_ids if i in by_id], key=f"cite-{m}-{p_index}", quote=paragraph.quote
        )
        number_marks(paragraph, by_id, key=f"num-{m}-{p_index}")
    if answer.missing_information and not (answer.terms_not_in_passages or answer.retried_terms):
        st.caption(t("ask.missing") + escape_md(answer.missing_information))
    answer_cost(answer)
    if answer.mode == "greeting":
        return
    if answer.uncited:
        with st.expander(t("ask.uncited")):
            citation_cards(answer.uncited, key=f"uncited-{m}")
    cited = [s for s in answer.sources if any(s.id in p.source_ids for p in answer.paragraphs)] or answer.sources
    if cited:
        with st.expander(t("ask.report")):
            with st.form(key=f"report-{m}", clear_on_submit=True):
                labels = {s.id: s.label for s in cited}
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


chat_col, viewer_col = st.columns([6, 5], gap="medium")
prompt = st.chat_input(t("ask.input"), key="ask_input")

with chat_col:
    await_stopped()  # a stop click: the stopped run hands over what it verified
    history = state.messages()
    # grants may have changed since: an answer that used a document no longer readable is dropped from memory
    _, current = call(pipeline.answers_in_scope, [m.get("answer") for m in history], settings, principal=principal)
    for m, still in enumerate(current or ["answer" not in message for message in history]):
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
        st.caption(t("ask.viewer_empty"))
    else:
        st.button(t("viewer.close"), key="viewer_close", on_click=state.close_viewer, icon=":material/close:")
        show_target(target, settings, principal, key="ask-viewer")
