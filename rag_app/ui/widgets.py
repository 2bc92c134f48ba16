"""Shared widgets: the error boundary, safe text, citation cards and the highlighted PDF viewer.

Document text is never given to markdown unescaped nor to `unsafe_allow_html`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pandas as pd
import streamlit as st
from streamlit_pdf_viewer import pdf_viewer

from rag_app.ui import state
from rag_app.ui.i18n import label_text, lang, t, user_message
from rag_app.ui.markdown import escape_md
from rag_core import pipeline
from rag_core.errors import RagError
from rag_core.models import HighlightBox, Item, Paragraph, Source
from rag_core.pipeline import (
    LIGHT_COLOR,  # the section's colour, for the Inspect view's outlines too
    Principal,
    Settings,
    TableFormat,
    ViewerTarget,
    cited_pages,
    label_on_pages,
    paragraph_focus,
    scroll_position,
    source_target,
    viewer_annotations,
)
from rag_core.pipeline import source_label as core_label

log = logging.getLogger(__name__)
T = TypeVar("T")

CHILD_COLORS = ("#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
VIEWER_HEIGHT_PX = 820


def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[bool, T | None]:
    """Run one pipeline call; on failure show the user a message (never a traceback) and return (False, None)."""
    try:
        return True, fn(*args, **kwargs)
    except RagError as err:
        log.info("pipeline refused %s: %s", getattr(fn, "__name__", fn), err)
        st.error(escape_md(user_message(err)))
    except NotImplementedError:
        log.warning("pipeline.%s is not implemented yet", getattr(fn, "__name__", fn))
        st.error(t("error.not_ready"))
    except Exception:
        log.exception("unexpected error in %s", getattr(fn, "__name__", fn))
        st.error(t("error.generic"))
    return False, None


def load_css() -> None:
    from pathlib import Path

    css = Path(__file__).resolve().parents[1] / "assets" / "style.css"
    if css.is_file():
        # Our own static stylesheet, never document content.
        st.html(f"<style>{css.read_text(encoding='utf-8')}</style>")


def uploader_texts() -> None:
    """Streamlit's file uploader writes its button and size limit in English only (no parameter sets
    them), its date field the empty parts of a date ("dd/mm/yyyy") and its text fields a keyboard hint
    ("Press Enter to apply"): in French they are hidden, and our own text shown in place of the first
    two (CSS generated content). Forms are drawn without the hint (`enter_to_submit=False`)."""
    if lang() != "fr":
        return
    button = t("uploader.button").replace('"', "")
    limit = t("uploader.limit", mb=st.get_option("server.maxUploadSize")).replace('"', "")
    empty = '[data-testid="stDateInput"] [role="spinbutton"][data-placeholder="true"]'
    parts = "".join(
        f'{empty}[data-type="{part}"]::after {{ content: "{t("date." + part)}"; font-size: 1rem; }}'
        for part in ("day", "month", "year")
    )
    st.html(
        "<style>"
        # the keyboard hint of a text field outside a form ("Press Enter to apply"), English only
        '[data-testid="InputInstructions"] { display: none; }'
        f"{empty} {{ font-size: 0; }}{parts}"
        '[data-testid="stFileUploaderDropzoneInstructions"] * { display: none; }'
        f'[data-testid="stFileUploaderDropzoneInstructions"]::after {{ content: "{limit}"; font-size: 0.875rem; }}'
        '[data-testid="stFileUploaderDropzone"] button * { display: none; }'
        f'[data-testid="stFileUploaderDropzone"] button::after {{ content: "{button}"; }}'
        "</style>"
    )


# ---------------------------------------------------------------- viewer


SCOPED_CACHE = "scoped_bytes"  # session key: {(user key, what, doc id, detail): value made by rag_core}


def checked_once(
    what: str, doc_id: str, detail: Any, settings: Settings, principal: Principal, produce: Callable[[], T]
) -> T:
    """`produce()` (a rag_core call that checks the scope, records the opening and makes the value)
    once per session and principal; each later rerun still asks rag_core whether the principal can
    read the document (NotFoundError once out of scope), so a revoked grant closes what is open
    without recording the same opening at every rerun. Never shared between sessions."""
    from rag_app.ui.auth import principal_key

    cache: dict = st.session_state.setdefault(SCOPED_CACHE, {})
    key = (principal_key(principal), what, doc_id, detail)
    if key in cache:
        pipeline.get_document(doc_id, settings, principal=principal)
        return cache[key]
    value = produce()
    while len(cache) >= 16:
        cache.pop(next(iter(cache)))
    cache[key] = value
    return value


def _pdf_pages(
    doc_id: str, pages: tuple[int, ...], settings: Settings, principal: Principal
) -> tuple[bytes, dict[int, int], bool]:
    """(pdf bytes, original page -> displayed page, is_excerpt) for `principal`, or a RagError.

    Only the needed pages are sent to the browser (rag_core cuts them out with PyMuPDF), so a
    300-page PDF opens as fast as a 3-page one; they reach the viewer through the session's
    websocket, not Streamlit's /media route.
    """

    def produce() -> tuple[bytes, dict[int, int], bool]:
        if pages:
            data, mapping = pipeline.page_pdf(doc_id, list(pages), settings, principal=principal)
            return data, {int(k): int(v) for k, v in mapping.items()}, True
        return pipeline.source_path(doc_id, settings, principal=principal).read_bytes(), {}, False

    return checked_once("pdf", doc_id, pages, settings, principal, produce)


def render_pdf(
    pdf_bytes: bytes,
    annotations: list[dict[str, Any]],
    *,
    key: str,
    pages_to_render: Sequence[int] = (),
    scroll_to_annotation: int | None = None,
    scroll_to_page: int | None = None,
    height: int = VIEWER_HEIGHT_PX,
) -> None:
    """The one place that calls streamlit-pdf-viewer."""
    pdf_viewer(
        pdf_bytes,
        width="100%",
        height=height,
        key=key,
        annotations=annotations,
        pages_to_render=list(pages_to_render),
        annotation_outline_size=2,
        scroll_to_annotation=scroll_to_annotation,
        scroll_to_page=None if scroll_to_annotation else scroll_to_page,
        scroll_behavior="instant",
        resolution_boost=2,
    )


def source_label(source: Source) -> str:
    """A source's card text in the page's language (rag_core writes the kind of a table or figure in English)."""
    return label_text(core_label(source))


def show_target(target: ViewerTarget, settings: Settings, principal: Principal, *, key: str = "viewer") -> None:
    """The cited page(s) with the cited boxes highlighted in one style (`citations.viewer_annotations`),
    what holds a figure's cell in a second one named by a legend; the viewer lands on the first cited
    box (`citations.scroll_position`)."""
    st.markdown(f"**{escape_md(label_text(target.label))}**")
    pages = tuple(target.pages)
    if not target.file_name.lower().endswith(".pdf") or not pages:
        st.caption(t("viewer.no_boxes"))
        st.text(target.text)
        return
    ok, got = call(_pdf_pages, target.doc_id, pages, settings, principal)
    if not ok or got is None:
        return
    data, page_map, is_excerpt = got
    anns = viewer_annotations(target, page_map)
    position = scroll_position(anns)
    st.caption(t("viewer.pages", pages=", ".join(str(p) for p in pages)))
    if target.legend and any(a["id"].startswith("ctx-") for a in anns):
        st.caption(t(f"viewer.legend.{target.legend}"))
    digest = hashlib.sha1(repr((target.doc_id, pages, target.source_id, len(anns))).encode()).hexdigest()[:10]
    render_pdf(
        data,
        anns,
        key=f"{key}-{digest}",
        pages_to_render=() if is_excerpt else pages,
        scroll_to_annotation=position,
        scroll_to_page=None if position else page_map.get(pages[0]),
    )


# ---------------------------------------------------------------- citations and tables


def open_source(source: Source, quote: str = "", paragraph: Paragraph | None = None) -> None:
    """Card callback: show `source` in the viewer. The target is built here, on click, not for
    every card on every run; a figure answered from a table cell highlights that cell."""
    focus = paragraph_focus(paragraph, source) if paragraph is not None else []
    state.open_viewer(source_target(source, quote, focus))


CARD_LABEL_CHARS = 72  # a card's label longer than this is shortened before its page part


def short_label(label: str, limit: int = CARD_LABEL_CHARS) -> str:
    """`label` at most `limit` characters, its closing page part ('p. 12', 'p. 4–7') kept whole: the
    text before it is cut (an ellipsis) rather than the page number by the button's width."""
    if len(label) <= limit:
        return label
    head, sep, tail = label.rpartition(" · ")
    if not sep or not tail.startswith("p. "):
        return label[: limit - 1].rstrip() + "…"
    room = max(limit - len(tail) - len(sep) - 1, 1)
    return f"{head[:room].rstrip(' ·›')}…{sep}{tail}"


def card_label(source: Source, quote: str = "") -> tuple[str, str]:
    """A citation card's text, the source's label named by the quote's own page(s) and shortened, and
    the whole label for its tooltip when it was shortened ('' otherwise)."""
    whole = label_on_pages(source_label(source), cited_pages(source, quote))
    short = short_label(whole)
    return short, whole if short != whole else ""


def citation_cards(sources: Sequence[Source], *, key: str, quote: str = "", paragraph: Paragraph | None = None) -> None:
    """One button per cited source; a click opens the viewer on it (the quote's lines, or the cell a
    figure of `paragraph` comes from, highlighted)."""
    if not sources:
        return
    cols = st.columns(min(len(sources), 3))
    for i, source in enumerate(sources):
        text, whole = card_label(source, quote)
        with cols[i % len(cols)]:
            st.button(
                escape_md(text),
                help=escape_md(whole) or None,
                key=f"{key}-{i}",
                icon=":material/picture_as_pdf:",
                on_click=open_source,
                args=(source, quote, paragraph),
                width="stretch",
            )


def table_frame(item: Item) -> pd.DataFrame:
    """A table item as a grid; its first row becomes the header when it is a usable one (`Item.grid`)."""
    header, *rows = item.grid()
    return pd.DataFrame(rows, columns=header)


def table_exports(item: Item, n: int, doc_id: str, file_name: str, settings: Settings, principal: Principal) -> None:
    """A table as a grid with its CSV and Excel downloads (deferred: bytes only on click, for this
    session and the principal signed in to it then, after rag_core's check; `ui.downloads`)."""
    from rag_app.ui.downloads import download

    st.dataframe(table_frame(item), hide_index=True, width="stretch")
    c1, c2 = st.columns(2)
    stem = f"{file_name.rsplit('.', 1)[0]}_table{n}"
    formats: list[tuple[Any, TableFormat, str, str]] = [
        (c1, "csv", t("inspect.csv"), "text/csv"),
        (c2, "xlsx", t("inspect.xlsx"), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ]
    for col, fmt, label, mime in formats:

        def produce(who: Principal, fmt: TableFormat = fmt) -> bytes:
            return pipeline.export_table(doc_id, item.ref, settings, fmt, principal=who)

        download(
            label,
            produce,
            f"{stem}.{fmt}",
            mime,
            key=f"{fmt}-{n}",
            settings=settings,
            principal=principal,
            container=col,
        )


def structure_annotations(page: int, parents: Sequence[Any], children: Sequence[Any]) -> list[dict[str, Any]]:
    """Inspect view of one page: each parent's outline (light, dashed) and each child's boxes (own colour)."""
    anns: list[dict[str, Any]] = []
    child_parent = {c.id: c.parent_id for c in children}
    parent_boxes: dict[str, list[HighlightBox]] = {}
    for child in children:
        on_page = [b for b in child.boxes if b.page == page]
        parent_boxes.setdefault(child_parent[child.id], []).extend(on_page)
        color = CHILD_COLORS[child.index % len(CHILD_COLORS)]
        for j, b in enumerate(on_page):
            anns.append(
                {
                    "id": f"child-{child.index}-{j}",
                    "page": 1,
                    "x": b.x0,
                    "y": b.y0,
                    "width": max(b.x1 - b.x0, 1.0),
                    "height": max(b.y1 - b.y0, 1.0),
                    "color": color,
                    "border": "solid",
                }
            )
    for parent in parents:
        boxes = parent_boxes.get(parent.id)
        if not boxes:
            continue
        x0, y0 = min(b.x0 for b in boxes) - 4, min(b.y0 for b in boxes) - 4
        x1, y1 = max(b.x1 for b in boxes) + 4, max(b.y1 for b in boxes) + 4
        anns.append(
            {
                "id": f"parent-{parent.index}",
                "page": 1,
                "x": x0,
                "y": y0,
                "width": x1 - x0,
                "height": y1 - y0,
                "color": LIGHT_COLOR,
                "border": "dashed",
            }
        )
    return anns


def show_page(
    doc_id: str, page: int, annotations: list[dict[str, Any]], settings: Settings, principal: Principal, *, key: str
) -> None:
    """One page of a document with `annotations` given for page 1 of a one-page view."""
    ok, got = call(_pdf_pages, doc_id, (page,), settings, principal)
    if not ok or got is None:
        return
    data, page_map, is_excerpt = got
    shown = page_map.get(page, page)
    anns = [{**a, "page": shown} for a in annotations]
    render_pdf(
        data,
        anns,
        key=f"{key}-{doc_id[:12]}-{page}",
        pages_to_render=() if is_excerpt else (page,),
        scroll_to_page=shown,
    )
