"""Every number of an answer paragraph traced to a table cell, a sentence or a checked computation.

For each paragraph, each figure (`numbers.extract_numbers`) is looked up in the sources the
paragraph cites, after normalisation, in this order:
1. the table cells of the cited tables (and of the tables inside a cited section): the trace
   keeps the cell's own box, so the viewer highlights the cell, not the whole table;
2. the sentences of the cited sources: the trace keeps the sentence and the boxes of the
   passage (child) that holds it;
3. the same cells and sentences with every space removed, for figures that the PDF's text
   layer split (`1082, 41` for `1082,41`; 3 significant digits or more, with a separator or
   decimals).
A match is an equal value (`12,5 %` = `0,125`, `2 135 k€` = `2 135 000`), an equal mantissa
(a cell `25` under a "%" header matches `25 %`), or, for a figure written with 3 significant
digits or more, the source value rounded as the paragraph writes it (`16 016` for `1,601587e+04`).
Among several matches, the cell or sentence sharing the most other figures of the paragraph
wins (the right row of a triangle). A number found nowhere must be the result of a
computation the paragraph declares: the code recomputes it from its inputs, which must
themselves be quoted, and marks it "computed" when it matches within the rounding of the
written result, "mismatch" otherwise. Anything else is "unsupported", with the reason.
Bare integers from 0 to 10 (no separator, decimals, sign or unit) are counts or indices
("3 methods", "step 2", the 1 of "1 + r"), not figures: they are neither traced nor marked. Nothing the
model says about a number is trusted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rag_core.answering.numbers import Number, extract_numbers, rounding_tolerance, rounds_to, same_value
from rag_core.answering.verification import resolver
from rag_core.citations import item_source_id, parent_source_id
from rag_core.models import Computation, NumberLocation, NumberTrace, Paragraph, RetrievedParent, Source

_MIN_ROUNDED_DIGITS = 3
_SMALL_COUNT = 10
_SENTENCE_END = re.compile(r"(?<=[.!?…;])\s+(?=[A-ZÀ-ÖØ-Ý0-9«\"(\[$\\|])")

_REASONS = {
    "en": {
        "rounded": "rounded from {source}",
        "spaced": "found once the spaces of the PDF text layer are ignored",
        "computed": "{operation} of {inputs} = {exact} (checked)",
        "mismatch": "{operation} of {inputs} gives {exact}, not {written}",
        "bad_computation": "the declared {operation} cannot be computed from {n} input(s)",
        "input_missing": "computation input {value} is not in the cited source {source}",
        "input_unreadable": "computation input “{value}” is not a number",
        "uncited": "found only in a source the paragraph does not cite ({label})",
        "absent": "not found in the cited sources and not a declared computation",
    },
    "fr": {
        "rounded": "arrondi de {source}",
        "spaced": "trouvé en ignorant les espaces de la couche texte du PDF",
        "computed": "{operation} de {inputs} = {exact} (vérifié)",
        "mismatch": "{operation} de {inputs} donne {exact}, pas {written}",
        "bad_computation": "le calcul déclaré ({operation}) est impossible avec {n} donnée(s)",
        "input_missing": "la donnée {value} du calcul ne figure pas dans la source citée {source}",
        "input_unreadable": "la donnée « {value} » du calcul n'est pas un nombre",
        "uncited": "trouvé seulement dans une source que le paragraphe ne cite pas ({label})",
        "absent": "absent des sources citées et d'aucun calcul déclaré",
    },
}
_OPERATIONS = {
    "en": {
        "sum": "sum",
        "difference": "difference",
        "product": "product",
        "ratio": "ratio",
        "growth": "growth",
        "development_factor": "development factor",
        "average": "average",
    },
    "fr": {
        "sum": "somme",
        "difference": "différence",
        "product": "produit",
        "ratio": "rapport",
        "growth": "évolution",
        "development_factor": "facteur de développement",
        "average": "moyenne",
    },
}


@dataclass(frozen=True)
class Evidence:
    number: Number
    location: NumberLocation
    numbers_nearby: frozenset[float]  # values of the other figures of the same row or sentence


def _sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pieces of `text`: lines, then sentences."""
    out: list[tuple[int, str]] = []
    for line in re.finditer(r"[^\n]+", text):
        start = line.start()
        for piece in _SENTENCE_END.split(line.group()):
            offset = text.index(piece, start) if piece else start
            if piece.strip():
                out.append((offset, piece.strip()))
            start = offset + len(piece)
    return out


def _nearby(numbers: Sequence[Number]) -> frozenset[float]:
    return frozenset(round(v, 9) for n in numbers for v in n.values())


def build_evidence(hits: Sequence[RetrievedParent]) -> dict[str, list[Evidence]]:
    """Source id -> the figures of that source with where they are (cells first, then sentences)."""
    index: dict[str, list[Evidence]] = {}
    for hit in hits:
        parent, language = hit.parent, hit.document.language
        psid = parent_source_id(parent)
        cells_of_parent: list[Evidence] = []
        for item in parent.items:
            sid = item_source_id(parent, item)
            item_evidence: list[Evidence] = []
            rows: dict[int, list[Number]] = {}
            parsed = [(cell, extract_numbers(cell.text, language)) for cell in item.cells]
            for cell, numbers in parsed:
                rows.setdefault(cell.row, []).extend(numbers)
            for cell, numbers in parsed:
                for n in numbers:
                    where = NumberLocation(
                        source_id=sid,
                        kind="cell",
                        text=cell.text,
                        row=cell.row,
                        col=cell.col,
                        boxes=[cell.box] if cell.box else list(item.boxes),
                    )
                    item_evidence.append(Evidence(n, where, _nearby(rows[cell.row])))
            if not item.cells and item.text:
                for _, sentence in _sentences(item.text):
                    numbers = extract_numbers(sentence, language)
                    where = NumberLocation(source_id=sid, kind="sentence", text=sentence, boxes=list(item.boxes))
                    item_evidence += [Evidence(n, where, _nearby(numbers)) for n in numbers]
            index[sid] = item_evidence
            cells_of_parent += [e for e in item_evidence if e.location.kind == "cell"]
        sentence_evidence: list[Evidence] = []
        children = hit.children or [hit.best_child]
        for offset, sentence in _sentences(parent.text):
            numbers = extract_numbers(sentence, language)
            if not numbers:
                continue
            child = next((c for c in children if c.start <= offset < c.end), None)
            boxes = list(child.boxes) if child else []
            where = NumberLocation(source_id=psid, kind="sentence", text=sentence, boxes=boxes)
            sentence_evidence += [Evidence(n, where, _nearby(numbers)) for n in numbers]
        index[psid] = cells_of_parent + sentence_evidence
    return index


def _matches(n: Number, e: Number) -> bool:
    return any(same_value(a, b) for a in n.values() for b in e.values()) or any(
        same_value(a, b) for a in n.mantissas() for b in e.mantissas()
    )


def _rounded_match(n: Number, e: Number) -> bool:
    if n.bare_integer or n.significant_digits < _MIN_ROUNDED_DIGITS:
        return False
    if rounding_tolerance(n) <= rounding_tolerance(e):
        return False  # the paragraph is as precise as the source: a rounding cannot explain a difference
    return any(rounds_to(n, v) for v in e.values()) or abs(e.mantissa - n.mantissa) <= 0.5 * 10.0 ** (-n.decimals)


def find(n: Number, evidence: Sequence[Evidence], context: frozenset[float]) -> tuple[Evidence | None, bool]:
    """(best evidence, rounded?) for `n`; cells before sentences, then the most shared neighbours."""
    exact = [e for e in evidence if _matches(n, e.number)]
    rounded = False
    if not exact:
        exact = [e for e in evidence if _rounded_match(n, e.number)]
        rounded = bool(exact)
    if not exact:
        return None, False
    best = max(exact, key=lambda e: (e.location.kind == "cell", len(context & e.numbers_nearby)))
    return best, rounded


def find_ignoring_spaces(n: Number, evidence: Sequence[Evidence]) -> NumberLocation | None:
    """A sentence or cell that holds the number once all spaces are removed ('1082, 41' for '1082,41').

    PDF text layers add or lose spaces; only figures with a separator or decimals and 3 significant
    digits or more are looked up this way, and never inside a longer run of digits."""
    if n.bare_integer or n.significant_digits < _MIN_ROUNDED_DIGITS:
        return None
    needle = re.sub(r"\s", "", n.text)
    pattern = re.compile(r"(?<![\d.,])" + re.escape(needle) + r"(?![\d])")
    seen: set[str] = set()
    for e in evidence:
        if e.location.text in seen:
            continue
        seen.add(e.location.text)
        if pattern.search(re.sub(r"\s", "", e.location.text)):
            return e.location
    return None


def _fmt(value: float) -> str:
    if value == 0 or 1e-4 <= abs(value) < 1e12:
        text = f"{value:,.6f}".rstrip("0").rstrip(".")
        return text.replace(",", " ")
    return f"{value:.6g}"


def compute(operation: str, values: Sequence[float]) -> float | None:
    """The operation on the input values; None when it is not defined for them."""
    n = len(values)
    try:
        if operation == "sum" and n >= 1:
            return math.fsum(values)
        if operation == "difference" and n >= 2:
            return values[0] - math.fsum(values[1:])
        if operation == "product" and n >= 1:
            return math.prod(values)
        if operation == "ratio" and n == 2:
            return values[0] / values[1]
        if operation == "growth" and n == 2:
            return values[1] / values[0] - 1.0
        if operation == "development_factor" and n >= 2 and n % 2 == 0:
            # Σ C(i, j+1) / Σ C(i, j): the first half of the inputs is column j, the second column j+1.
            return math.fsum(values[n // 2 :]) / math.fsum(values[: n // 2])
        if operation == "average" and n >= 1:
            return math.fsum(values) / n
    except ZeroDivisionError:
        return None
    return None


@dataclass(frozen=True)
class _Checked:
    result: Number | None
    status: str  # computed | mismatch | unsupported
    reason: str
    exact: float | None


def check_computation(
    comp: Computation,
    evidence: Mapping[str, list[Evidence]],
    cited: Sequence[str],
    table: Mapping[str, str],
    language: str,
) -> _Checked:
    """Recompute `comp` from its inputs, each of which must be quoted in its (cited) source."""
    msg = _REASONS.get(language, _REASONS["en"])
    op = _OPERATIONS.get(language, _OPERATIONS["en"])[comp.operation]
    results = extract_numbers(comp.result, language)
    result = results[0] if results else None
    values: list[float] = []
    for inp in comp.inputs:
        parsed = extract_numbers(inp.value, language)
        if not parsed:
            return _Checked(result, "unsupported", msg["input_unreadable"].format(value=inp.value), None)
        sid = table.get(inp.source_id) or table.get(inp.source_id.strip("[] ").casefold())
        scope = [sid] if sid is not None and sid in cited else list(cited)
        pool = [e for s in scope for e in evidence.get(s, [])]
        found, _ = find(parsed[0], pool, frozenset())
        if found is None:
            missing = msg["input_missing"].format(value=inp.value, source=inp.source_id)
            return _Checked(result, "unsupported", missing, None)
        values.append(parsed[0].value)
    exact = compute(comp.operation, values)
    if exact is None:
        return _Checked(result, "mismatch", msg["bad_computation"].format(operation=op, n=len(values)), None)
    return _Checked(result, "computed", "", exact)


def trace_paragraph(
    paragraph: Paragraph,
    evidence: Mapping[str, list[Evidence]],
    labels: Mapping[str, str],
    table: Mapping[str, str],
    language: str,
    reading: str,
) -> Paragraph:
    """The paragraph with `numbers` filled in; `reading` is the language its figures are written in."""
    msg = _REASONS.get(language, _REASONS["en"])
    op_names = _OPERATIONS.get(language, _OPERATIONS["en"])
    cited = list(paragraph.source_ids)
    pool = [e for sid in cited for e in evidence.get(sid, [])]
    others = [e for sid, items in evidence.items() if sid not in cited for e in items]
    numbers = extract_numbers(paragraph.text, reading)
    # the quote's figures too: a value written in two cells is traced to the row the paragraph quotes
    context = _nearby(numbers) | _nearby(extract_numbers(paragraph.quote, reading))
    checks = [(c, check_computation(c, evidence, cited, table, language)) for c in paragraph.computations]
    traces: list[NumberTrace] = []
    for n in numbers:
        if n.bare_integer and 0 <= n.value <= _SMALL_COUNT:
            continue  # a count or an index ('3 methods', 'step 2', the 1 of '1 + r'), not a figure
        base = {"text": n.text, "start": n.start, "end": n.end, "value": n.value}
        found, rounded = find(n, pool, context - _nearby([n]))
        if found is not None:
            reason = msg["rounded"].format(source=found.number.text) if rounded else ""
            traces.append(NumberTrace(**base, status="quoted", reason=reason, location=found.location))
            continue
        spaced = find_ignoring_spaces(n, pool)
        if spaced is not None:
            traces.append(NumberTrace(**base, status="quoted", reason=msg["spaced"], location=spaced))
            continue
        claimed = [(c, k) for c, k in checks if k.result is not None and _matches(n, k.result)]
        if claimed:
            comp, k = claimed[0]
            inputs = (" ; " if language == "fr" else ", ").join(i.value for i in comp.inputs)
            op = op_names[comp.operation]
            if k.status == "computed" and k.exact is not None and rounds_to(n, k.exact):
                reason = msg["computed"].format(operation=op, inputs=inputs, exact=_fmt(k.exact))
                traces.append(NumberTrace(**base, status="computed", reason=reason))
            elif k.status == "computed" and k.exact is not None:
                reason = msg["mismatch"].format(operation=op, inputs=inputs, exact=_fmt(k.exact), written=n.text)
                traces.append(NumberTrace(**base, status="mismatch", reason=reason))
            else:
                traces.append(NumberTrace(**base, status=k.status, reason=k.reason))
            continue
        elsewhere, _ = find(n, others, context)
        if elsewhere is not None:
            reason = msg["uncited"].format(label=labels.get(elsewhere.location.source_id, elsewhere.location.source_id))
        else:
            reason = msg["absent"]
        traces.append(NumberTrace(**base, status="unsupported", reason=reason))
    return paragraph.model_copy(update={"numbers": traces})


def trace_numbers(
    paragraphs: Sequence[Paragraph],
    sources: Sequence[Source],
    hits: Sequence[RetrievedParent],
    language: str,
    aliases: Mapping[str, str] | None = None,
    reading: str | None = None,
) -> list[Paragraph]:
    """Trace every paragraph (citations already verified). `reading=None`: figures are read in the
    language of the first cited document (extractive answers quote the document verbatim)."""
    evidence = build_evidence(hits)
    labels = {s.id: s.label for s in sources}
    table = resolver(sources, aliases)
    doc_language = {parent_source_id(h.parent): h.document.language for h in hits}
    by_id = {s.id: s for s in sources}
    out = []
    for p in paragraphs:
        first = by_id.get(p.source_ids[0]) if p.source_ids else None
        read = reading or (doc_language.get(parent_source_id_of(first)) if first else None) or language
        out.append(trace_paragraph(p, evidence, labels, table, language, read))
    return out


def parent_source_id_of(source: Source | None) -> str:
    """The parent source id of a source (a section's own id, or the section holding a table)."""
    if source is None:
        return ""
    return source.id.split("#", 1)[0]


def count(paragraphs: Sequence[Paragraph], status: str) -> int:
    return sum(1 for p in paragraphs for n in p.numbers if n.status == status)
