"""The offline PDF backend: PyMuPDF's layout analysis (ONNX models in the wheel) -> DoclingDocument.

Pages are analysed in small batches (`pymupdf4llm.helpers.document_layout.parse_document`
with `pages=`), turned at once into light `Block`s, and the PyMuPDF objects are dropped:
memory stays bounded on long PDFs. The batches (`page_batches`) are shared between this
process and `settings.parsing.workers - 1` spawned helpers (`page_workers`; same result, in
page order), or handed to another `PageBatchRunner` (the Ray executor's tasks).
Heading levels need the whole document, so the DoclingDocument is built at the end
(`document_builder.build_document`).

OCR (RapidOCR through pymupdf4llm, with the engine of `page_ocr`) runs only on pages that have no
text layer, when `settings.parsing.ocr` is on. Picture crops are saved as PNG into `artifacts_dir`; see
`document_builder` for how they are referenced. It does not detect the language. The layout
model's ONNX sessions run on one thread each (`layout_runtime`: same output, less CPU).
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

import pymupdf

from rag_core.config import Settings
from rag_core.errors import InputError
from rag_core.messages import message
from rag_core.parsing import page_workers
from rag_core.parsing.base import ParsedDocument, Progress, library_versions
from rag_core.parsing.captions import attach_captions, relabel
from rag_core.parsing.columns import gutters, split_heading
from rag_core.parsing.decoration import drop_decoration
from rag_core.parsing.document_builder import PICTURE_DPI, Block, PageSize, build_document
from rag_core.parsing.heading_blocks import fix_headings
from rag_core.parsing.layout_runtime import document_layout, use_single_thread_sessions
from rag_core.parsing.layout_text import clamp_bbox, line_from_spans, middle_in
from rag_core.parsing.metadata import document_author, document_date
from rag_core.parsing.outline import apply_outline
from rag_core.parsing.page_batches import Batch, BatchResult, PageBatchRunner, plan
from rag_core.parsing.page_ocr import use_product_engine
from rag_core.parsing.pdf_tables import table_block
from rag_core.parsing.picture_text import split_picture, text_blocks
from rag_core.parsing.pictures import draws_something, graphics_of, missed_images, page_images, picture_block
from rag_core.parsing.replacement_text import Placed, read_replacement_texts, replacement_blocks, stands_for
from rag_core.parsing.rtl_text import RtlSpans
from rag_core.parsing.spreads import read_spread
from rag_core.parsing.table_images import on_picture_read, read_table_picture
from rag_core.parsing.text_layer import line_blocks_in_rect, lines_in_rect, page_lines
from rag_core.parsing.titles import PAGES_CHECKED, document_title, running_title
from rag_core.parsing.watermarks import cut_picture, formula_blocks, is_watermark, watermark_boxes

log = logging.getLogger(__name__)

NAME = "pymupdf"

_KINDS = {
    "title": "title",
    "section-header": "heading",
    "text": "text",
    "list-item": "list",
    "caption": "caption",
    "footnote": "footnote",
    "page-header": "header",
    "page-footer": "footer",
    "table": "table",
    "picture": "picture",
    "formula": "formula",
}


def options(settings: Settings) -> dict:
    """Options that change this backend's output (recorded in the manifest)."""
    return {
        "backend": NAME,
        "ocr": settings.parsing.ocr,
        "picture_dpi": PICTURE_DPI,
        "table_images": settings.parsing.table_images,
    }


class PyMuPDFParser:
    """`page_batches`: who runs the page batches; default this process and its helpers (`page_workers`)."""

    name = NAME

    def __init__(self, page_batches: PageBatchRunner | None = None) -> None:
        self.page_batches = page_batches

    def parse(
        self,
        path: Path,
        settings: Settings,
        artifacts_dir: Path,
        progress: Progress | None = None,
        file_name: str | None = None,
    ) -> ParsedDocument:
        try:
            doc = pymupdf.open(path, filetype="pdf")
        except Exception:
            raise InputError.of("file.pdf_damaged") from None
        try:
            name = Path(file_name or path.name)
            return _parse_open(doc, Path(path), name, settings, Path(artifacts_dir), progress, self.page_batches)
        finally:
            doc.close()


def _parse_open(
    doc: pymupdf.Document,
    path: Path,
    name: Path,
    settings: Settings,
    artifacts_dir: Path,
    progress: Progress | None,
    page_batches: PageBatchRunner | None = None,
) -> ParsedDocument:
    if doc.needs_pass:
        raise InputError.of("file.pdf_password")
    total = doc.page_count
    if total == 0:
        raise InputError.of("file.pdf_no_page")
    artifacts_dir.mkdir(parents=True, exist_ok=True)
    use_single_thread_sessions()  # same boxes, less CPU on a shared 2-core machine (layout_runtime)
    warnings: list[str] = []
    if doc.is_repaired:
        warnings.append(message("parse.repaired"))
    tasks = plan(doc, settings.parsing.ocr, artifacts_dir, settings.parsing.table_images)
    done = 0

    def report(index: int) -> None:
        nonlocal done
        for _ in tasks[index].pages:
            done += 1
            if progress is not None:
                progress(done, total)

    def picture_read(page_no: int) -> None:  # a page with table images: progress while it is read
        if progress is not None:
            progress(done, total)

    with on_picture_read(picture_read):
        results = (page_batches or _LocalBatches(doc, settings)).run(path, tasks, report)
    blocks: list[Block] = []
    sizes: dict[int, PageSize] = {}
    for result in results:
        blocks.extend(result.blocks)
        sizes.update(result.sizes)
        warnings.extend(result.warnings)
    blocks = drop_decoration(blocks, sizes)
    ocr_pages = sum(len(t.pages) for t in tasks if t.needs_ocr)
    if ocr_pages:
        log.info("OCR on %d page(s) of %s took %.1f s", ocr_pages, name.name, sum(r.ocr_seconds for r in results))
    toc = doc.get_toc(simple=True)
    blocks = apply_outline(blocks, toc, partial(page_lines, doc))
    document, heading_title = build_document(name.stem, blocks, sizes, toc, artifacts_dir.name)
    first_pages = "\n".join(doc[p].get_text() for p in range(min(PAGES_CHECKED, total)))
    meta_title = doc.metadata.get("title") if doc.metadata else ""
    title = document_title(
        meta_title, first_pages, blocks, heading_title or name.stem, partial(running_title, doc, toc)
    )
    return ParsedDocument(
        document=document,
        parser=NAME,
        options=options(settings),
        versions=library_versions(),
        pages=total,
        warnings=warnings,
        title=title,
        author=document_author((doc.metadata or {}).get("author"), first_pages),
        date=document_date(doc.metadata),
    )


class _LocalBatches:
    """The batches in this process and `settings.parsing.workers - 1` spawned helpers (`page_workers`)."""

    def __init__(self, doc: pymupdf.Document, settings: Settings) -> None:
        self.doc, self.settings = doc, settings

    def run(self, path: Path, batches: Sequence[Batch], on_done: Callable[[int], None]) -> list[BatchResult]:
        workers = self.settings.parsing.workers or page_workers.default_workers()
        start = self.doc.page_count >= page_workers.MIN_PAGES_TO_START
        pool = (
            page_workers.helper_pool(workers - 1, start=start, initializer=_start_helper) if len(batches) > 1 else None
        )
        here, remote = partial(_analyse_batch, self.doc), partial(_analyse_batch_in_helper, path)
        return page_workers.run_in_order(batches, here, remote, pool, workers - 1, on_done)


def analyse_batch_detached(path: Path, batch: Batch) -> tuple[BatchResult, dict[str, bytes]]:
    """One batch on a machine that does not see the document's folder: its crops are written
    into a temporary folder and returned as {file name: PNG bytes}, for the caller to write
    into `batch.artifacts_dir` (same names as a local parse). Run twice, it gives the same."""
    with tempfile.TemporaryDirectory(prefix="rag-crops-") as tmp:
        result = _analyse_batch_in_helper(path, replace(batch, artifacts_dir=tmp))
        crops = {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir()) if p.is_file()}
    return result, crops


def _analyse_batch(doc: pymupdf.Document, batch: Batch) -> BatchResult:
    """Layout analysis of one batch and its conversion into `Block`s (in any process)."""
    artifacts_dir = Path(batch.artifacts_dir)
    warnings: list[str] = []
    started = time.perf_counter()
    replacing = read_replacement_texts(doc, batch.pages)
    pages = _analyse(doc, batch.pages, batch.needs_ocr, warnings)
    ocr_seconds = time.perf_counter() - started if batch.needs_ocr else 0.0
    blocks: list[Block] = []
    sizes: dict[int, PageSize] = {}
    for page_layout in pages:
        pno = page_layout.page_number - 1
        page = doc.load_page(pno)
        width, height = float(page_layout.width), float(page_layout.height)
        sizes[pno + 1] = PageSize(width, height)
        page_blocks = _page_blocks(
            page, page_layout, width, height, artifacts_dir, batch.table_images, replacing.get(pno, [])
        )
        if pno in batch.no_text and not any(b.has_text() for b in page_blocks) and _has_marks(page):
            warnings.append(message("parse.no_text" if batch.ocr else "parse.no_text_ocr_off", page=pno + 1))
        blocks.extend(page_blocks)
    for pno in batch.pages:  # pages whose analysis failed still exist in the document
        sizes.setdefault(pno + 1, PageSize(float(doc[pno].rect.width), float(doc[pno].rect.height)))
    return BatchResult(blocks, sizes, warnings, ocr_seconds)


def _analyse_batch_in_helper(path: Path, batch: Batch) -> BatchResult:
    """`_analyse_batch` in a helper process, on its own copy of the PDF (page_workers)."""
    use_single_thread_sessions()
    with pymupdf.open(path, filetype="pdf") as doc:
        return _analyse_batch(doc, batch)


def _start_helper() -> None:
    """Load the layout models when a helper starts, not on its first batch."""
    use_single_thread_sessions()


def _has_marks(page: pymupdf.Page) -> bool:
    """A page with images or drawings but no text is a scan; an empty page is not worth a warning."""
    return bool(page.get_images(full=False)) or bool(page.get_drawings())


def _analyse(doc: pymupdf.Document, batch: list[int], needs_ocr: bool, warnings: list[str]) -> list:
    # FORCE_KEEP_OLD: OCR these (text-less) pages unless they are blank; never re-OCR old OCR text.
    layout = document_layout()
    mode = layout.OCRMode.FORCE_KEEP_OLD if needs_ocr else layout.OCRMode.NEVER
    if needs_ocr:
        use_product_engine()  # one ONNX thread per page process (page_ocr)
    try:
        return list(layout.parse_document(doc, pages=batch, use_ocr=mode).pages)
    except Exception:
        if needs_ocr:  # an OCR engine failure must not lose the pages: analyse them without OCR
            log.warning("OCR failed on pages %s; analysed without OCR", [p + 1 for p in batch], exc_info=True)
            return _analyse(doc, batch, False, warnings)
        if len(batch) == 1:
            log.warning("layout analysis failed on page %d", batch[0] + 1, exc_info=True)
            warnings.append(message("parse.page_skipped", page=batch[0] + 1))
            return []
    pages: list = []
    for pno in batch:  # find the faulty page, keep the others
        pages.extend(_analyse(doc, [pno], needs_ocr, warnings))
    return pages


def _page_blocks(
    page: pymupdf.Page,
    layout,
    width: float,
    height: float,
    artifacts_dir: Path,
    table_images: bool = False,
    replacing: Sequence[Placed] = (),
) -> list[Block]:
    """The page's blocks in reading order; `replacing`: the replacement texts of its images
    (`replacement_text`), read before its layout analysis."""
    page_no = int(layout.page_number)
    blocks: list[Block] = []
    graphics: list | None = None
    images = page_images(page)  # read once: graphics_of and missed_images both need them
    rtl = RtlSpans(page)
    # a slanted "DRAFT" across the page is no text of the document
    marks = watermark_boxes(page, getattr(layout, "fulltext", None))
    bands = gutters([(b.x0, b.y0, b.x1, b.y1) for b in layout.boxes if b.boxclass in ("text", "list-item")])
    # text of other layout boxes is theirs, never a picture's
    taken = [clamp_bbox((b.x0, b.y0, b.x1, b.y1), width, height) for b in layout.boxes if b.boxclass != "picture"]
    replaced = replacement_blocks(replacing, page_no, images, width, height)  # text set as images of its lines
    for box in layout.boxes:
        kind = _KINDS.get(box.boxclass, "text")
        bbox = clamp_bbox((box.x0, box.y0, box.x1, box.y1), width, height)
        if kind == "picture" and stands_for(bbox, replaced):
            continue
        if kind == "picture":
            graphics = graphics_of(page, images) if graphics is None else graphics
            if not draws_something(graphics, bbox):  # a banner of text, or a plain coloured band
                lines = lines_in_rect(page, bbox, width, height)
                if lines:
                    blocks.append(Block("text", page_no, bbox, lines=lines))
                continue
            blocks.extend(
                _picture(page, page_no, bbox, graphics, taken, artifacts_dir, len(blocks), table_images, marks=marks)
            )
            continue
        elif kind == "table":
            block = _table(page, page_no, bbox, box.table or {}, width, height)
        elif kind == "formula":  # cut back to its equations when a watermark stretched it
            others = [t for t in taken if t != bbox]
            blocks.extend(formula_blocks(page_no, bbox, line_blocks_in_rect(page, bbox, width, height), marks, others))
            continue
        else:
            spans = [
                (clamp_bbox(tl["bbox"], width, height), rtl.for_line(tl["bbox"], tl.get("spans") or []))
                for tl in box.textlines or []
            ]
            lines = [line_from_spans(line_spans, line_box) for line_box, line_spans in spans]
            block = Block(kind, page_no, bbox, lines=[ln for ln in lines if ln.text and not is_watermark(ln, marks)])
            if block.lines and kind in ("heading", "title"):  # run across the page's columns: one per column
                blocks.extend(split_heading(block, spans, bands, line_from_spans))
                continue
            if not block.lines:
                block = None
        if block is not None:
            blocks.append(block)
    for block in replaced:
        _insert_in_order(blocks, block.bbox[1], [block])
    for bbox in missed_images(images, blocks, width, height):
        graphics = graphics_of(page, images) if graphics is None else graphics
        found = _picture(page, page_no, bbox, graphics, taken, artifacts_dir, len(blocks), table_images, False, marks)
        _insert_in_order(blocks, bbox[1], found)
    return attach_captions(fix_headings(relabel(read_spread(blocks, width, height)), height))


def _insert_in_order(blocks: list[Block], top: float, found: list[Block]) -> None:
    """`found` (a box whose top is at `top`) in reading order: before the first block below that top."""
    below = next((i for i, b in enumerate(blocks) if b.bbox[1] > top), len(blocks))
    blocks[below:below] = found


def _picture(
    page: pymupdf.Page,
    page_no: int,
    bbox,
    graphics: list,
    taken: list,
    artifacts_dir: Path,
    index: int,
    table_images: bool,
    keep_text: bool = True,
    marks: Sequence = (),
) -> list[Block]:
    """A picture box as blocks: the figure (its own box, its text as children) and the text beside it
    (`picture_text.split_picture`). `keep_text=False`: an image no layout box held, whose text
    outside the figure is already in other boxes. `marks`: the page's watermarks, whose text is
    left out and which cut a box they stretched back to its figure (`watermarks.cut_picture`)."""
    width, height = page.rect.width, page.rect.height
    line_blocks = [
        [ln for ln in blk if not any(middle_in(ln.bbox, t) for t in taken)]
        for blk in line_blocks_in_rect(page, bbox, width, height)
    ]
    bbox, line_blocks, above, below = cut_picture(bbox, graphics, [blk for blk in line_blocks if blk], marks)
    split = split_picture(bbox, line_blocks, graphics)
    found = text_blocks(page_no, above + split.text_blocks) if keep_text else []
    after = text_blocks(page_no, below) if keep_text else []
    if split.picture_bbox is None:  # mostly text: its text is text
        return found + after
    block = picture_block(page, page_no, split.picture_bbox, artifacts_dir, index + len(found))
    if block is not None and table_images:
        block = read_table_picture(page, block) or block
    if block is not None:
        if block.kind == "picture":
            block.children = text_blocks(page_no, split.children)
        found.append(block)
    return found + after


def _table(page: pymupdf.Page, page_no: int, bbox, table: dict, width: float, height: float) -> Block | None:
    block = table_block(page, page_no, bbox, table, width, height)
    if block is None or not block.has_text():
        # no grid: keep its text as a paragraph rather than lose it
        lines = lines_in_rect(page, bbox, width, height)
        return Block("text", page_no, bbox, lines=lines) if lines else None
    return block
