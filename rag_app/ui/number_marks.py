"""Number marks in an answer (docs/method.md): each figure of a paragraph is coloured by what supports it,
and a quoted figure opens the viewer on its own table cell (or its sentence).

Colour and symbol together (never colour alone): quoted from a table cell ✓ (green; a figure quoted
from a sentence, a year, a date or a number naming a guideline, article, figure or page stays plain),
computed and checked = (blue), computation does not match ≠ (orange), unsupported ? (red). Document text is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import streamlit as st

from rag_app.ui import state
from rag_app.ui.i18n import t
from rag_app.ui.markdown import escape_md
from rag_app.ui.widgets import source_label
from rag_core.models import Answer, NumberTrace, Paragraph, Source
from rag_core.pipeline import ViewerTarget, highlight_target

MARKS = {"quoted": ("green", "✓"), "computed": ("blue", "="), "mismatch": ("orange", "≠"), "unsupported": ("red", "?")}
# A number named by what precedes it is an identifier, not a figure: "Guideline 75", "article 3",
# "figure 2", "p. 14". A year (1900-2099) or a part of a date is not a figure either.
_NAMED_BY = re.compile(
    r"(?:guidelines?|orientations?|lignes? directrices?|articles?|art\.|figures?|fig\.|pages?|p\.|pp\.|sections?|"
    r"chapitres?|chapters?|annexes?|annex|tableaux?|tables?|§|n°|no\.)\s*$",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE_AROUND = re.compile(r"\d[/.-]$")


def earns_a_check(n: NumberTrace, text: str) -> bool:
    """Whether a quoted number is shown checked (✓, and a chip): only a figure found in a table cell,
    never a year, a date or a number that names a guideline, an article, a figure or a page."""
    if n.status != "quoted" or n.location is None or n.location.kind != "cell":
        return False
    before, after = text[max(0, n.start - 24) : n.start], text[n.end : n.end + 2]
    if _YEAR.fullmatch(n.text) or _DATE_AROUND.search(before) or re.match(r"[/.-]\d", after):
        return False
    return not _NAMED_BY.search(before)


MAX_CHIPS = 12  # a row of a triangle has many figures: the rest stay marked in the text


def marked_text(paragraph: Paragraph) -> str:
    """The paragraph as markdown, each traced number wrapped in its coloured mark, each of its lines on a
    line of its own (a list's items under the sentence that announces them, as the document sets them;
    markdown would run them into one line)."""
    text, out, pos = paragraph.text, [], 0
    for n in sorted(paragraph.numbers, key=lambda n: n.start):
        if n.start < pos or text[n.start : n.end] != n.text:
            continue  # offsets that do not fit the text are shown unmarked rather than wrongly
        if n.status == "quoted" and not earns_a_check(n, text):
            continue  # quoted from a sentence, or not a figure: left as written
        color, symbol = MARKS[n.status]
        out += [escape_md(text[pos : n.start]), f":{color}-background[{escape_md(n.text)} {symbol}]"]
        pos = n.end
    out.append(escape_md(text[pos:]))
    return "".join(out).replace("\n", "  \n")  # two spaces: a hard line break


def number_target(n: NumberTrace, source: Source) -> ViewerTarget:
    """The viewer on the number's own cell (strong) within its table or passage (light)."""
    loc = n.location
    assert loc is not None
    context = [b for b in (source.boxes if loc.kind == "cell" else source.parent_boxes) if b not in loc.boxes]
    pages = sorted({b.page for b in loc.boxes}) or source.pages
    return highlight_target(
        doc_id=source.doc_id,
        file_name=source.file_name,
        label=f"{n.text} · {source_label(source)}",
        pages=pages,
        boxes=loc.boxes,
        parent_boxes=context,
        text=loc.text,
        source_id=f"{source.id}|{n.start}",
        legend="table" if loc.kind == "cell" else "passage",
    )


def _chip_label(n: NumberTrace) -> str:
    loc = n.location
    assert loc is not None
    page = loc.boxes[0].page if loc.boxes else ""
    if loc.kind == "cell" and loc.row is not None and loc.col is not None:
        return t("numbers.cell", n=n.text, row=loc.row + 1, col=loc.col + 1, page=page)
    return t("numbers.sentence", n=n.text, page=page)


def _source_of(n: NumberTrace, sources: Mapping[str, Source]) -> Source | None:
    """The cited source holding the number: the table itself, or the cited section that holds the table."""
    if n.location is None:
        return None
    sid = n.location.source_id
    return sources.get(sid) or sources.get(sid.split("#", 1)[0])


def number_marks(paragraph: Paragraph, sources: Mapping[str, Source], *, key: str) -> None:
    """Under a paragraph: a button per quoted number (opens its cell), the reason of every other mark."""
    # A chip for each number the paragraph states as a fact; figures of quoted code or console output
    # stay traced (and marked in the text) without one. A table answer's cells are its own buttons.
    seen: set[tuple[str, str, int | None, int | None]] = set()
    chips: list[tuple[NumberTrace, Source]] = []  # each number with the cited source that holds it
    for n in paragraph.numbers:
        source = _source_of(n, sources)
        if not (earns_a_check(n, paragraph.text) and n.stated and paragraph.table is None and source is not None):
            continue
        loc = n.location
        assert loc is not None
        ident = (n.text, loc.source_id, loc.row, loc.col)
        if ident not in seen:
            seen.add(ident)
            chips.append((n, source))
    if chips:
        cols = st.columns(min(len(chips[:MAX_CHIPS]), 3))
        for i, (n, source) in enumerate(chips[:MAX_CHIPS]):
            with cols[i % len(cols)]:
                st.button(
                    escape_md(_chip_label(n)),
                    key=f"{key}-{i}",
                    type="tertiary",
                    icon=":material/check_circle:",
                    help=escape_md(n.reason) if n.reason else None,
                    on_click=state.open_viewer,
                    args=(number_target(n, source),),
                )
        if len(chips) > MAX_CHIPS:
            st.caption(t("numbers.more", n=len(chips) - MAX_CHIPS))
    for n in paragraph.numbers:
        if n.status != "quoted":
            color, symbol = MARKS[n.status]
            st.caption(
                f":{color}-background[{escape_md(n.text)} {symbol}] {t('numbers.' + n.status)} — {escape_md(n.reason)}"
            )


def numbers_summary(answer: Answer) -> None:
    """One warning when some figures are unsupported or mis-computed (the answer stores the counts)."""
    if answer.unsupported_numbers or answer.mismatched_numbers:
        st.warning(
            t("numbers.summary", unsupported=answer.unsupported_numbers, mismatch=answer.mismatched_numbers),
            icon=":material/error:",
        )
