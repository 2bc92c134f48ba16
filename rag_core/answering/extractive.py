"""Extractive answers: the documents' own sentences (or table rows) that answer the question.

Used when no language model is configured, and as the fallback when the model fails. The
sentences are chosen across the context parents by `evidence.select` (relevance floor,
redundancy removed, code and console output never offered) and widened to the units they
belong to (`units`: a list with the sentence that announces it, a numbered paragraph). The
answer leads with the piece that answers best; another piece follows only when it answers
about as well (`CLOSE_SHARE` of the lead's relevance) or carries evidence the pieces before it
lack (a question term none of them holds), so a passage that only shares the topic (a weaker
repeat of words already quoted) is left out; the others follow in context and document order, one paragraph each,
citing the parent and quoting its most relevant sentence, so the usual verification marks it
supported. When the question names a row label of a table in the context (an accident
year, "IBNR"), the answer starts with those rows (`table_rows`). When no sentence reaches
the floor, the answer shows where the search landed (the best passage's first sentence).
Nothing here is generated: every word comes from the document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rag_core.answering.cells import cell_paragraphs
from rag_core.answering.coverage_terms import TOKEN
from rag_core.answering.evidence import Candidate, candidates, is_code_like, select, split_sentences, stating_parents
from rag_core.answering.lead import Lead
from rag_core.answering.table_rows import MAX_ROWS, quoted_row_paragraph, table_paragraphs, with_row
from rag_core.answering.units import parent_lines, unit_of, unit_text
from rag_core.citations import parent_source_id
from rag_core.models import AnnouncedList, Paragraph, RetrievedParent, TableExcerpt
from rag_core.text import fold

# A passage in another language than the question's is offered when its best sentence covers at least
# this share of what the best passage in the question's language covers: a translation-matched passage
# scores lower by construction (its terms count at half weight), so only one that answers passes.
OTHER_LANGUAGE_SHARE = 0.8
# A piece after the lead is kept when it answers about as well as the lead (at least this share of its
# relevance: another place that may hold the answer), or when it holds a question term that neither the
# lead nor a piece kept before it holds; a piece under the share whose terms are all already quoted only
# shares the topic. Measured on the dev sets (docs/refusals_and_pages.md, "Answers composed").
CLOSE_SHARE = 0.45
NEW_EVIDENCE = 0.005  # a term's share of the question's weight that counts as new (not rounding noise)


def _landing(hit: RetrievedParent) -> str:
    """The first prose sentence of the passage the search chose (or of the parent)."""
    for text in (hit.best_child.text, *(c.text for c in hit.children)):
        for sentence in split_sentences(text):
            if not is_code_like(sentence):
                return sentence
    sentences = split_sentences(hit.best_child.text)
    return sentences[0] if sentences else ""


@dataclass
class _Piece:
    """What one answer paragraph quotes: a whole unit, or chosen sentences of adjacent lines."""

    parent: int
    start: int  # first line (of `units.parent_lines`)
    end: int  # after the last line
    order: tuple[int, int]
    texts: list[str]
    quote: str  # its most relevant chosen sentence, verbatim
    relevance: float
    whole: bool  # a unit (numbered paragraph, list with its announcement, guideline)
    terms: set[tuple[int, float]]  # the question's terms its sentences hold (`Candidate.terms`)
    also: list[str] = field(default_factory=list)  # source ids of the parents holding its announced items


def _item_line(hit: RetrievedParent) -> str:
    """One item of a list announced at the end of the parent before: its heading and first sentence."""
    heading = hit.parent.heading_path[-1] if hit.parent.heading_path else ""
    prose = (line for line in hit.parent.text.splitlines() if not line.lstrip().startswith(("|", "$$")))
    first = next((x for line in prose for x in split_sentences(line) if x.strip() and not is_code_like(x)), "")
    return "- " + " — ".join(x.strip() for x in (heading, first) if x.strip())


def _announced_piece(
    c: Candidate, lines: Sequence[str], announced: Mapping[str, AnnouncedList], hit: RetrievedParent
) -> _Piece | None:
    """The chosen sentence when it is the announcement that ends its parent, with the items the parents
    after it hold (`SearchResult.announced`); None otherwise."""
    listed = announced.get(hit.parent.id)
    if listed is None or c.line != len(lines) - 1 or c.text.strip() != listed.sentence:
        return None
    text = "\n".join([listed.sentence, *(_item_line(item) for item in listed.items)])
    also = [parent_source_id(item.parent) for item in listed.items]
    return _Piece(c.parent, c.line, c.line + 1, c.order, [text], c.text, c.relevance, True, set(c.terms), also)


def _pieces(
    hits: Sequence[RetrievedParent],
    chosen: Sequence[Candidate],
    every: Sequence[Candidate] = (),
    announced: Mapping[str, AnnouncedList] | None = None,
) -> list[_Piece]:
    """The chosen sentences widened to their units; a line inside a quoted unit is not repeated;
    sentences of adjacent lines of one parent read as one piece, distant ones stay apart. A unit holds
    the question terms of every sentence in it (`every`: all the candidates). A sentence that announces
    a list at the end of its parent comes with the items the parents after it hold (`announced`)."""
    lines = {p: parent_lines(hits[p]) for p in {c.parent for c in chosen}}
    units: list[_Piece] = []
    for c in sorted(chosen, key=lambda c: -c.relevance):
        unit = unit_of(lines[c.parent], c.line, c.text, split_sentences)
        if unit is None:
            listed = _announced_piece(c, lines[c.parent], announced or {}, hits[c.parent])
            if listed is not None:
                units.append(listed)
            continue
        # a line is quoted once: a unit that overlaps one already quoted (a run of lines after another) is not
        overlaps = next((u for u in units if u.parent == c.parent and unit.start < u.end and u.start < unit.end), None)
        if overlaps is not None:
            continue
        text = unit_text(lines[c.parent], unit)
        terms = {t for o in every if o.parent == c.parent and unit.start <= o.line < unit.end for t in o.terms}
        units.append(
            _Piece(c.parent, unit.start, unit.end, c.order, [text], c.text, c.relevance, True, terms | c.terms)
        )
    pieces = list(units)
    for c in sorted(chosen, key=lambda c: (c.parent, c.order)):
        owner = next((u for u in units if u.parent == c.parent and u.start <= c.line < u.end), None)
        if owner is not None:
            owner.relevance = max(owner.relevance, c.relevance)
            continue
        last = pieces[-1] if pieces and not pieces[-1].whole and pieces[-1].parent == c.parent else None
        if last is not None and c.line - last.end <= 0:
            last.texts.append(c.text)
            last.terms |= c.terms
            last.end = c.line + 1
            if c.relevance > last.relevance:
                last.quote, last.relevance = c.text, c.relevance
            continue
        pieces.append(_Piece(c.parent, c.line, c.line + 1, c.order, [c.text], c.text, c.relevance, False, set(c.terms)))
    return pieces


def _in_order(
    pieces: list[_Piece], hits: Sequence[RetrievedParent], language: str, asked: frozenset[str] = frozenset()
) -> list[_Piece]:
    """The most relevant piece first (the sentence that answers), then the others in context and document
    order; a piece in another language than the question's only when it answers about as well as the
    best one in the question's language (or when there is none). A piece whose every word the question
    already holds (a heading it names, "TABLE II"; a source note it quotes) tells the reader nothing, so
    it never leads when another piece can; it may follow, for its citation of the place. `asked`: the
    question's words (`_words`)."""
    own = [p.relevance for p in pieces if not language or hits[p.parent].document.language == language]
    if own:
        floor = OTHER_LANGUAGE_SHARE * max(own)
        pieces = [
            p for p in pieces if not language or hits[p.parent].document.language == language or p.relevance >= floor
        ]
    if not pieces:
        return []
    telling = [p for p in pieces if not _words(" ".join(p.texts)) <= asked] or pieces
    lead = max(telling, key=lambda p: (p.relevance, -p.parent))
    return [lead, *sorted(_adding_evidence(lead, pieces), key=lambda p: (p.parent, p.order))]


def _adding_evidence(lead: _Piece, pieces: Sequence[_Piece]) -> list[_Piece]:
    """The pieces other than `lead`, most relevant first, that answer about as well as the lead
    (`CLOSE_SHARE`) or hold a question term that the lead and the pieces kept before them lack."""
    covered = {i for i, _ in lead.terms}
    kept = []
    for p in sorted((p for p in pieces if p is not lead), key=lambda p: (-p.relevance, p.parent, p.order)):
        new = sum(w for i, w in p.terms if i not in covered)
        if new >= NEW_EVIDENCE or p.relevance >= CLOSE_SHARE * lead.relevance:
            kept.append(p)
            covered |= {i for i, _ in p.terms}
    return kept


def _led_by(lead: Lead, pieces: Sequence[_Piece], hits: Sequence[RetrievedParent]) -> list[_Piece]:
    """The pieces with the reader's passage first: its unit when it belongs to one (a numbered paragraph, a
    list with its announcement), else the window the reader judged; pieces overlapping it are dropped."""
    if not 0 <= lead.parent < len(hits):
        return list(pieces)
    lines = parent_lines(hits[lead.parent])
    unit = unit_of(lines, lead.line, lead.sentence, split_sentences) if 0 <= lead.line < len(lines) else None
    start, end, text = (unit.start, unit.end, unit_text(lines, unit)) if unit else (lead.start, lead.end, lead.text)
    if unit and text.rstrip().endswith(":") and lead.end > end:  # never end on an announcement: what follows too
        start, end = min(start, lead.start), lead.end
        text = "\n".join(x.strip() for x in lines[start:end] if x.strip())
    rest = [p for p in pieces if not (p.parent == lead.parent and p.start < end and start < p.end)]
    top = max((p.relevance for p in pieces), default=0.0)
    terms = {t for p in pieces if p.parent == lead.parent and start <= p.start < end for t in p.terms}
    first = _Piece(lead.parent, start, end, (-1, -1), [text], lead.sentence, top, True, terms)
    return [first, *rest]


def _words(text: str) -> frozenset[str]:
    return frozenset(TOKEN.findall(fold(text)))


def _crosses_news(table: TableExcerpt, asked: frozenset[str]) -> bool:
    """A named row crosses a named column at a cell that holds a word or figure the question (its words
    `asked`) does not."""
    named = {(r, c) for r, c in table.matched if c}
    return any((cell.row, cell.col) in named and not _words(cell.text) <= asked for row in table.rows for cell in row)


def _row_paragraph(hit: RetrievedParent, piece: _Piece, language: str | None) -> Paragraph | None:
    """A piece that quotes rows of a table the parent holds, as those rows under their table's header
    (`table_rows.quoted_row_paragraph`); None for any other piece."""
    lines = parent_lines(hit)
    if piece.also or not 0 <= piece.start < piece.end <= len(lines) or piece.end - piece.start > MAX_ROWS:
        return None
    row = quoted_row_paragraph(hit.parent, lines[piece.start : piece.end])
    return row.model_copy(update={"language": language}) if row is not None and language else row


def _repeats(paragraph: Paragraph, shown: set[tuple[str, int]]) -> bool:
    """Every row of the paragraph's table excerpt is already shown by a cell or table-row paragraph."""
    table = paragraph.table
    return table is not None and all((table.source_id, r) in shown for r, _ in table.matched)


def _piece_paragraphs(
    pieces: Sequence[_Piece], hits: Sequence[RetrievedParent], source_ids: Sequence[str], language: str
) -> tuple[list[Paragraph], list[Paragraph]]:
    """One paragraph a piece, in order; pieces that quote rows of one table read as one table excerpt,
    where the first of them stood. Returns the paragraphs and, of them, the table excerpts."""
    paragraphs: list[Paragraph] = []
    rows: dict[str, int] = {}  # a table whose quoted rows show as an excerpt -> its paragraph's index
    for piece in pieces:
        hit = hits[piece.parent]
        other = bool(language) and hit.document.language != language
        row = _row_paragraph(hit, piece, hit.document.language if other else None)
        if row is not None and row.table is not None:
            at = rows.get(row.table.source_id)
            if at is None:
                rows[row.table.source_id] = len(paragraphs)
                paragraphs.append(row)
            else:
                paragraphs[at] = with_row(paragraphs[at], row)
            continue
        paragraphs.append(
            Paragraph(
                text=" ".join(piece.texts),
                source_ids=[source_ids[piece.parent], *piece.also],
                quote=piece.quote,
                language=hit.document.language if other else None,
            )
        )
    return paragraphs, [paragraphs[i] for i in rows.values()]


def extractive_paragraphs(
    hits: Sequence[RetrievedParent],
    question: str,
    source_ids: Sequence[str],
    language: str = "",
    extra_terms: Sequence[str] = (),
    announced: Sequence[AnnouncedList] = (),
    lead: Lead | None = None,
) -> list[Paragraph]:
    """The cell that holds a figure asked for, or the table rows whose row and column the question names;
    then the piece that answers best, the other relevant pieces of the context parents (one paragraph
    each, never two parents in one), then the other table rows the question names; `source_ids[i]` is the
    registry id of `hits[i]`. A parent written in another language than the question's (`language`)
    is quoted as written and its paragraph labelled with its language (`extra_terms` carries the
    question's translated terms to match it). `announced`: the lists context parents announce at their end,
    whose items open the parents after them (quoted under the announcement, and cited). `lead`: the passage a
    reader judged to state the answer, which then comes first (`_led_by`)."""
    every = candidates(hits, question, language, extra_terms)
    chosen = select(every)
    stating = stating_parents(hits, question)  # a list of works cited answers nothing (`evidence`)
    cells = cell_paragraphs(stating, question, extra_terms)  # a figure asked for: its cell leads
    lists = {a.parent_id: a for a in announced}
    asked = _words(question)
    ordered = _in_order(_pieces(hits, chosen, every, lists), hits, language, asked)
    if lead is not None:
        ordered = _led_by(lead, ordered, hits)
    prose, rows = _piece_paragraphs(ordered, hits, source_ids, language)
    tables = table_paragraphs(stating, question)
    # a row and a column the question names are what it asks for: they lead, unless where they cross the
    # question already says it all (a chart's source note read as a row, named by a question that quotes
    # it); other rows follow the prose
    named = [t for t in tables if t.table is not None and _crosses_news(t.table, asked)]
    shown = {(t.table.source_id, r) for t in [*cells, *tables] if t.table is not None for r, _ in t.table.matched}
    prose = [p for p in prose if not (any(p is r for r in rows) and _repeats(p, shown))]  # shown above already
    first = prose[:1] if lead is not None else []  # the reader's passage leads, before any cell or row
    paragraphs = [*first, *cells, *named, *prose[len(first) :], *(t for t in tables if t not in named)]
    if not paragraphs and hits:
        sentence = _landing(hits[0])
        if sentence:
            other = bool(language) and hits[0].document.language != language
            paragraphs.append(
                Paragraph(
                    text=sentence,
                    source_ids=[source_ids[0]],
                    quote=sentence,
                    language=hits[0].document.language if other else None,
                )
            )
    return paragraphs
