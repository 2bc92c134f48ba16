"""Tables that are pictures (a spreadsheet or R console pasted as an image) read by OCR into cells.

A picture first passes a cheap test on a small grey rendering (`looks_like_table`): once
long rules are removed, its dark pixels must fall into at least MIN_TEXT_BANDS thin text
lines and MIN_COLUMN_BANDS columns, as a grid of numbers does and a chart does not. Only then
is it OCRed (RapidOCR, models in the wheel, at OCR_DPI) and the recognised boxes are laid out
into rows (vertical overlap) and columns (horizontal overlap of the fullest rows); the cells
are built by `table_structure.build_table`, like tables of the text layer. The grid is kept
only when it looks like a table (`_accepted`): otherwise the picture stays a picture.

Numbers are kept as printed ("31 116", "1 234,5"): `answering.numbers` reads French and
English formats. Cell boxes are in page points (top-left origin), inside the picture's box,
so that the number checker can point at a cell of the image. Pages shown rotated are not
read here (their crop is not in displayed coordinates).
"""

from __future__ import annotations

import logging
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pymupdf

from rag_core.parsing.document_builder import Block
from rag_core.parsing.pdf_tables import table_from_structure
from rag_core.parsing.table_structure import Table, build_table, looks_numeric
from rag_core.parsing.table_words import Word, text_lines

log = logging.getLogger(__name__)

SOURCE_OCR = "OCR of a picture"
OCR_DPI = 150  # digits of 8-9 pt tables are read without error from ~120 dpi on
FILTER_DPI = 60
MIN_TEXT_BANDS = 2
MIN_COLUMN_BANDS = 2
MIN_OCR_SCORE = 0.5
MIN_ROWS, MIN_COLS = 2, 2
MIN_FILL = 0.5  # share of grid slots holding text (a chart's tick labels fill a cross, not a grid)
MIN_NUMERIC = 0.4  # share of filled slots that are numbers or NA
MAX_BOX_RATIO = 5.0  # '6 359 225,8' is ~5 heights wide; a line of prose or code is far wider
# RapidOCR settings over the module's defaults (benchmarks/table_images.py --param tries others).
# The recogniser pads each crop to at least 320 px wide (6.7 times its 48-px height) though a cell
# is ~2 heights wide: a narrower minimum costs 2-3 times less but is not the same reader (at 96 px
# the triangles read the same, a report's percentages lost digits, '109,81%' -> '109,1%').
ENGINE_PARAMS: dict = {}

# a number: sign, digits with thousands groups of exactly three after a space, decimals, percent
_NUMBER_RUN = re.compile(r"[-−(]?\d+(?: \d{3}(?!\d))*(?:[.,]\d+)?%?\)?")
_lock = threading.Lock()
_engine = None
_listeners: dict[int, Callable[[int], None]] = {}  # thread id -> called with the page number of each picture read


@contextmanager
def on_picture_read(listener: Callable[[int], None]) -> Iterator[None]:
    """Call `listener(page_no)` after each picture this thread reads by OCR (tens of seconds on a
    loaded machine): the parse reports progress while one page takes long."""
    _listeners[threading.get_ident()] = listener
    try:
        yield
    finally:
        _listeners.pop(threading.get_ident(), None)


def read_table_picture(page: pymupdf.Page, picture: Block) -> Block | None:
    """A table Block rebuilt from the picture's pixels, or None when the picture is not a table."""
    if page.rotation or picture.bbox[2] - picture.bbox[0] < 40 or picture.bbox[3] - picture.bbox[1] < 30:
        return None
    rect = pymupdf.Rect(picture.bbox)
    try:
        if not looks_like_table(_grey(page, rect, FILTER_DPI)):
            return None
        started = time.perf_counter()
        engine = _get_engine()
        # text detection alone must already draw a grid of short boxes: a screenshot of prose or
        # code (one long box per line) is not recognised at all
        image = _rgb(page.get_pixmap(clip=rect, dpi=OCR_DPI))
        found = engine(image, use_det=True, use_cls=False, use_rec=False)
        quads = list(found.boxes) if found.boxes is not None else []
        boxes_px = [_box(q) for q in quads]
        if (
            not _short_boxes(boxes_px)
            or table_from_words([Word("0", b) for b in boxes_px], (0, 0, image.shape[1], image.shape[0])) is None
        ):
            log.info("picture on page %d: not a table (%.1f s)", picture.page_no, time.perf_counter() - started)
            return None
        boxes = _recognise(engine, image, quads)
        listener = _listeners.get(threading.get_ident())
        if listener is not None:
            listener(picture.page_no)
    except Exception:  # OCR must never lose the page: the picture stays a picture
        log.warning("could not read the picture on page %d as a table", picture.page_no, exc_info=True)
        return None
    sx, sy = rect.width / image.shape[1], rect.height / image.shape[0]
    words = [
        Word(text, (rect.x0 + x0 * sx, rect.y0 + y0 * sy, rect.x0 + x1 * sx, rect.y0 + y1 * sy))
        for (x0, y0, x1, y1), text in boxes
    ]
    words = [piece for word in without_column_types(words) for piece in split_numbers(word)]
    table = table_from_words(words, picture.bbox)
    log.info(
        "picture on page %d: %s in %.1f s",
        picture.page_no,
        f"table {table.n_rows}x{table.n_cols}" if table else "not a table",
        time.perf_counter() - started,
    )
    if table is None:
        return None
    # the boxes are inside the picture, itself inside the page: no clamping needed
    block = table_from_structure(table, picture.page_no, picture.bbox, float("inf"), float("inf"), SOURCE_OCR)
    block.picture = picture
    return block


def table_from_words(words: list[Word], bbox: tuple[float, float, float, float]) -> Table | None:
    """The table laid out from OCR boxes, or None when they do not form one."""
    if len(words) < MIN_ROWS * MIN_COLS:
        return None
    lines = text_lines(words)
    if len(lines) < MIN_ROWS:
        return None
    counts = sorted(len(line) for line in lines)
    full = [line for line in lines if len(line) >= statistics.median(counts)]
    columns: list[list[float]] = []  # [x0, x1] intervals of the fullest rows' boxes, merged when they overlap
    for word in sorted((w for line in full for w in line), key=lambda w: w.bbox[0]):
        if columns and word.bbox[0] < columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], word.bbox[2])
        else:
            columns.append([word.bbox[0], word.bbox[2]])
    if len(columns) < MIN_COLS:
        return None
    col_edges = [bbox[0]] + [(a[1] + b[0]) / 2 for a, b in zip(columns, columns[1:])] + [bbox[2]]
    tops = [min(w.bbox[1] for w in line) for line in lines]
    bottoms = [max(w.bbox[3] for w in line) for line in lines]
    row_edges = [bbox[1]] + [(b + t) / 2 for b, t in zip(bottoms, tops[1:])] + [bbox[3]]
    table = build_table(words, col_edges, row_edges)
    return table if _accepted(table) else None


# a column's type as an R console prints it under a data frame's header ("<chr>", "<dbl>"), with the
# OCR's stray bars and brackets around it ("<|<chr>>")
_COLUMN_TYPE = re.compile(r"\W*[|Il]?\W*<\s*(?:chr|dbl|int|lgl|fct|ord|date|dttm|cplx|num|list)\s*>\W*")


def without_column_types(words: list[Word]) -> list[Word]:
    """The words without the line of column types an R console prints under a header ("<chr>" in
    every column): neither a header nor data, it hid the header above it (a table's export read its
    first row as data under made-up column numbers). Kept when only one word looks like a type."""
    types = [w for w in words if _COLUMN_TYPE.fullmatch(w.text.strip())]
    return [w for w in words if w not in types] if len(types) >= MIN_COLS else words


def split_numbers(word: Word) -> list[Word]:
    """One OCR box read over several numbers ("105.78% 100.45%") cut into one box per number.

    A space followed by exactly three digits is a thousands separator ("31 116", "6 359 225,8")
    and does not cut; the box is shared out in proportion to the characters.
    """
    parts = _NUMBER_RUN.findall(word.text)
    if (
        len(parts) < 2
        or "".join(parts).replace(" ", "") != word.text.replace(" ", "")
        or not all(looks_numeric(p) for p in parts)
    ):
        return [word]
    x0, y0, x1, y1 = word.bbox
    per_char = (x1 - x0) / max(len(word.text), 1)
    pieces, start = [], 0
    for part in parts:
        at = word.text.index(part, start)
        pieces.append(Word(part, (x0 + at * per_char, y0, x0 + (at + len(part)) * per_char, y1)))
        start = at + len(part)
    return pieces


def _accepted(table: Table) -> bool:
    filled = [c.text for c in table.cells if c.text]
    if table.n_rows < MIN_ROWS or table.n_cols < MIN_COLS or not filled:
        return False
    if len(filled) < MIN_FILL * table.n_rows * table.n_cols:
        return False
    numeric = sum(looks_numeric(t) or t.upper() in ("NA", "N/A", "-", "—") for t in filled)
    return numeric >= MIN_NUMERIC * len(filled)


def looks_like_table(grey: np.ndarray) -> bool:
    """Ink in thin separate text lines and at least two columns, rules left out."""
    # ink: pixels far from their row's background (dark text on white or on stripes, white text on a
    # coloured band); a horizontal rule is its row's background, so it drops out by itself
    ink = np.abs(grey.astype(np.int16) - np.median(grey, axis=1, keepdims=True).astype(np.int16)) > 60
    if not ink.any():
        return False
    h, _w = ink.shape
    dark = ink
    dark[:, dark.mean(axis=0) > 0.5] = False  # vertical rules
    row_bands = _bands(dark.any(axis=1))
    col_bands = _bands(dark.any(axis=0))
    if len(row_bands) < MIN_TEXT_BANDS or len(col_bands) < MIN_COLUMN_BANDS:
        return False
    heights = [b - a for a, b in row_bands]
    return statistics.median(heights) <= max(h / 3, 1) and max(heights) < 0.5 * h


def _bands(profile: np.ndarray) -> list[tuple[int, int]]:
    bands: list[tuple[int, int]] = []
    start = None
    for i, on in enumerate(profile.tolist() + [False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            bands.append((start, i))
            start = None
    return bands


def _grey(page: pymupdf.Page, rect: pymupdf.Rect, dpi: int) -> np.ndarray:
    pix = page.get_pixmap(clip=rect, dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width).copy()


def _recognise(engine, image: np.ndarray, quads: list) -> list[tuple[tuple[float, float, float, float], str]]:
    """(box in pixels, text) of every detected line the recogniser reads with a score of at least
    MIN_OCR_SCORE: the crops of the one detection, recognised in length-sorted batches."""
    if not quads:
        return []
    from rapidocr.utils.process_img import get_rotate_crop_image

    crops = [get_rotate_crop_image(image, np.asarray(q, dtype=np.float32)) for q in quads]
    result = engine.recognize_txt(crops)
    found = []
    for quad, text, score in zip(quads, result.txts or (), result.scores or ()):
        if text.strip() and float(score) >= MIN_OCR_SCORE:
            found.append((_box(quad), text.strip()))
    return found


def _rgb(pix: pymupdf.Pixmap) -> np.ndarray:
    return np.ascontiguousarray(
        np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
    )


def _short_boxes(boxes: list[tuple[float, float, float, float]]) -> bool:
    """Numbers and short labels, not lines of prose or code (median width under MAX_BOX_RATIO heights)."""
    ratios = [(b[2] - b[0]) / max(b[3] - b[1], 1.0) for b in boxes]
    return bool(ratios) and statistics.median(ratios) <= MAX_BOX_RATIO


def _box(points) -> tuple[float, float, float, float]:
    xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _get_engine():
    """One RapidOCR engine per process, its ONNX sessions on one thread (as the layout's)."""
    global _engine
    with _lock:
        if _engine is None:
            from rapidocr import RapidOCR

            logging.getLogger("RapidOCR").setLevel(logging.ERROR)
            _engine = RapidOCR(
                params={
                    "Global.use_cls": False,
                    "Global.log_level": "error",
                    "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                    **ENGINE_PARAMS,
                }
            )
        return _engine
