"""Search: each ranked passage with its document, section, page and an excerpt with the query's terms
marked, opened in the viewer in one click; each one's rank and score in every search channel (one column
pair per channel, `result.channels`) in a folded table for those who test the retrieval."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from rag_app.ui import state
from rag_app.ui.auth import page_context
from rag_app.ui.formula_crops import shown_as_crop
from rag_app.ui.i18n import label_text, t, user_message
from rag_app.ui.markdown import escape_md, marked_excerpt
from rag_app.ui.widgets import call, show_target
from rag_core import pipeline
from rag_core.models import PageChannelHit, RetrievedParent, SearchResult

settings, principal = page_context()
st.title(t("search.title"))

_, collections = call(pipeline.list_collections, settings, principal=principal)
_, documents = call(pipeline.list_documents, settings, principal=principal)
names = {d.doc_id: f"{d.file_name} ({d.collection})" for d in (documents or [])}

prefilled = st.session_state.pop(state.SEARCH_PREFILL, None)  # handed over by Ask (a question too long to ask)
if prefilled:
    st.session_state["search_query"] = prefilled

if documents is not None and not documents:  # nothing to search yet: say so, and where to import
    st.info(t("search.library_empty"), icon=":material/library_books:")
    st.page_link("views/library.py", label=t("ask.library_link"), icon=":material/upload_file:")

with st.form("search_form", enter_to_submit=False):  # the button submits: no English keyboard hint
    query = st.text_input(t("search.query"), key="search_query")
    with st.expander(t("search.settings")):  # the method's words (candidate_k, context_k) in the help only
        c1, c2 = st.columns(2)
        candidate_k = c1.slider(
            t("search.candidate_k"),
            5,
            100,
            settings.retrieval.candidate_k,
            key="search_candidate_k",
            help=t("search.candidate_k_help"),
        )
        context_k = c2.slider(
            t("search.context_k"),
            1,
            20,
            settings.retrieval.context_k,
            key="search_context_k",
            help=t("search.context_k_help"),
        )
    c3, c4 = st.columns(2)
    chosen_collections = c3.multiselect(
        t("ask.scope_collections"), list(collections or []), key="search_collections", placeholder=t("ask.scope_help")
    )
    chosen_docs = c4.multiselect(
        t("ask.scope_documents"),
        list(names),
        key="search_docs",
        format_func=lambda i: names.get(i, i),
        placeholder=t("ask.scope_help"),
    )
    submitted = st.form_submit_button(t("search.run"), type="primary")


def word_list(kind: str, info, upload, count: str) -> None:
    """The thesaurus or the glossary: which one is in use, and the upload of the user's own. Both are
    shared by everyone: only an administrator may replace the thesaurus or extend the glossary."""
    with st.expander(t(f"search.{kind}")):
        ok, found = call(info, settings)
        if ok:
            st.caption(
                t(f"search.{kind}_in_use", name=found["name"], n=found[count]) if found else t(f"search.{kind}_off")
            )
        file = (
            st.file_uploader(t(f"search.{kind}_upload"), type=["json"], key=f"search_{kind}")
            if principal.is_admin
            else None
        )
        if file is not None and st.session_state.get(f"search_{kind}_done") != file.file_id:
            ok, n = call(upload, file.getvalue(), settings, principal=principal)
            if ok:
                st.session_state[f"search_{kind}_done"] = file.file_id
                st.success(t(f"search.{kind}_saved", n=n))


def channel_cells(
    hit: RetrievedParent, names: list[str], absent: str, labels: dict[str, str] | None = None
) -> dict[str, object]:
    """The parent's rank and score in each search channel (its page too for a channel over pages), in the
    channels' order; `absent` where a channel did not find it. Column titles: the string each channel
    names as its label (`labels`: `SearchResult.channel_labels`; `search.channel.<name>` when absent)."""
    cells: dict[str, object] = {}
    for name in names:
        channel = t((labels or {}).get(name, f"search.channel.{name}"))
        found = hit.ranks.get(name)
        rank = found.rank if found is not None else absent
        if isinstance(found, PageChannelHit):
            rank = t("scol.page_hit", rank=found.rank, page=found.page)
        cells[t("scol.channel_rank", channel=channel)] = rank
        cells[t("scol.channel_score", channel=channel)] = round(found.score, 4) if found is not None else absent
    return cells


def passage_target(r: RetrievedParent) -> pipeline.ViewerTarget:
    """The viewer on the result's best passage (its own boxes strong, its parent's light)."""
    pages = ", ".join(map(str, r.best_child.pages))
    return pipeline.highlight_target(
        doc_id=r.document.doc_id,
        file_name=r.document.file_name,
        label=f"{r.document.file_name} · {r.parent.section} · p. {pages}",
        pages=r.best_child.pages,
        boxes=r.best_child.boxes,
        parent_boxes=[b for c in r.children for b in c.boxes],
        text=r.best_child.text,
        source_id=r.best_child.id,
    )


word_list("thesaurus", pipeline.thesaurus_info, pipeline.upload_thesaurus, "concepts")
word_list("glossary", pipeline.glossary_info, pipeline.upload_glossary, "entries")
_, backends = call(pipeline.backends, settings)
if backends and backends.get("reranker"):
    st.caption(escape_md(t("search.reranker", status=user_message(backends["reranker"]))))

if (submitted or prefilled) and query.strip():
    ok, found = call(
        pipeline.search,
        query.strip(),
        settings,
        collections=chosen_collections or None,
        doc_ids=chosen_docs or None,
        k=context_k,
        candidate_k=candidate_k,
        principal=principal,
    )
    st.session_state[state.SEARCH_RESULT] = found if ok else None
    state.close_viewer()

result: SearchResult | None = st.session_state.get(state.SEARCH_RESULT)
if result is not None:  # grants may have changed since: rag_core drops what is no longer readable
    ok, checked = call(pipeline.search_in_scope, result, settings, principal=principal)
    if checked is not None and len(checked.parents) < len(result.parents):
        st.warning(t("scope.results_withheld", n=len(result.parents) - len(checked.parents)))
    st.session_state[state.SEARCH_RESULT] = result = checked
if result is not None:
    st.caption(t("search.elapsed", n=len(result.parents), s=result.elapsed_s))
    if result.expanded_terms:
        st.caption(escape_md(t("search.expanded", terms=", ".join(result.expanded_terms))))
    if result.translated is not None:
        other = t(f"lang.{result.translated.language}")
        searched = result.translated.terms + result.translated.kept
        st.caption(
            escape_md(
                t("search.translated", language=other, terms="; ".join(searched))
                if result.translated.terms
                else t("search.translated_none", language=other)
            )
        )
        if result.translated.only_other:
            st.caption(escape_md(t("search.only_other", language=other, terms=", ".join(result.translated.only_other))))
        for hit in (h for h in result.parents if h.placed):
            st.caption(t("search.placed", rank=hit.fused_rank, language=other))
    if not result.parents:
        st.info(t("search.none"))
    else:
        absent = t("search.absent")
        channel_names = result.channels or list(dict.fromkeys(n for r in result.parents for n in r.ranks))
        rows = [
            {
                t("scol.rank"): r.fused_rank,
                t("scol.score"): round(r.fused_score, 5),
                **channel_cells(r, channel_names, absent, result.channel_labels),
                t("scol.document"): r.document.file_name,
                t("scol.language"): r.document.language,
                t("scol.section"): label_text(r.parent.section),
                t("scol.pages"): ", ".join(map(str, r.parent.pages)),
                t("scol.best_child"): r.best_child.text[:160],
            }
            for r in result.parents
        ]
        terms = pipeline.query_terms(result.query)
        for i, r in enumerate(result.parents):
            with st.container(border=True, key=f"search_hit_{i}"):
                head, action = st.columns([5, 1], vertical_alignment="top")
                pages = ", ".join(map(str, r.best_child.pages or r.parent.pages))
                head.markdown(
                    f"**{i + 1}. {escape_md(r.document.file_name)}** · {escape_md(label_text(r.parent.section) or '—')}"
                    + (f" · {t('search.page', pages=pages)}" if pages else "")
                )
                excerpt = marked_excerpt(r.best_child.text, terms)
                with head:  # a garbled formula as printed, its text folded; any other passage as text
                    if not shown_as_crop(
                        r.best_child.text,
                        r.document.doc_id,
                        r.document.file_name,
                        r.best_child.boxes,
                        settings,
                        principal,
                        partial(st.markdown, excerpt),
                    ):
                        st.markdown(excerpt)
                action.button(
                    t("search.open"),
                    key=f"search_open_{i}",
                    icon=":material/open_in_new:",
                    on_click=state.open_viewer,
                    args=(passage_target(r),),
                )
        with st.expander(t("search.ranks")):
            st.dataframe(pd.DataFrame(rows).astype(str), hide_index=True, width="stretch", key="search_table")

target = state.shown_target()
if target is not None:
    show_target(target, settings, principal, key="search-viewer")
