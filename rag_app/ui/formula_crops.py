"""A passage whose extracted text is garbled mathematics (`pipeline.garbled_maths`) shown as the page
prints it: the crop of its boxes (`pipeline.region_image`) with a caption, its extracted text folded
under an expander. Any other passage, or one whose crop cannot be made, is left to the caller to show
as text, exactly as before."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from rag_app.ui.i18n import t
from rag_app.ui.widgets import call, checked_once
from rag_core import pipeline
from rag_core.models import HighlightBox, Source
from rag_core.pipeline import Principal, Settings


def shown_as_crop(
    text: str,
    doc_id: str,
    file_name: str,
    boxes: Sequence[HighlightBox],
    settings: Settings,
    principal: Principal,
    show_text: Callable[[], object],
) -> bool:
    """When `text` is garbled and its `boxes` give a crop of `doc_id` (a PDF, `file_name`) the principal
    may read: the crop, its caption and `show_text()` under an expander; True. Otherwise nothing is
    shown; False (a document of another format has no printed page to crop)."""
    if not boxes or not file_name.lower().endswith(".pdf") or not pipeline.garbled_maths(text):
        return False
    region = tuple((b.page, b.x0, b.y0, b.x1, b.y1) for b in boxes)

    def produce() -> bytes:
        return pipeline.region_image(doc_id, list(boxes), settings, principal=principal)

    ok, data = call(checked_once, "crop", doc_id, region, settings, principal, produce)
    if not ok or not data:
        return False
    st.image(data, caption=t("crop.caption"))
    with st.expander(t("crop.text")):
        show_text()
    return True


def source_as_crop(
    text: str,
    sources: Sequence[Source],
    quote: str,
    settings: Settings,
    principal: Principal,
    show_text: Callable[[], object],
) -> bool:
    """`shown_as_crop` for a paragraph of an answer: the boxes of its whole text (a formula an announcing
    line brought in with it), else of its quote, in the first cited source that has any
    (`pipeline.crop_boxes`)."""
    if not pipeline.garbled_maths(text):
        return False
    for source in sources:  # the quote's matching reads words: a display formula's "$$" markers are no hindrance
        boxes = pipeline.crop_boxes(source, text, quote)
        if boxes:
            return shown_as_crop(text, source.doc_id, source.file_name, boxes, settings, principal, show_text)
    return False
