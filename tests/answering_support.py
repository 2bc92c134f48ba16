"""Search results built by hand from real-looking parents and children, for the answering, citation, number and
model tests."""

from __future__ import annotations

import hashlib

from rag_core.models import (
    ChannelHit,
    Child,
    DocumentRecord,
    HighlightBox,
    Item,
    Parent,
    RetrievedParent,
    SearchResult,
    TableCell,
)

DOC_FR = hashlib.sha256(b"guide-provisionnement.pdf").hexdigest()


CHAIN_LADDER = [
    "La méthode Chain Ladder estime les provisions pour sinistres à payer à partir du triangle des paiements cumulés. "
    "Les facteurs de développement sont des rapports de sommes de colonnes successives.",
    "Le modèle de Mack donne l'erreur quadratique moyenne de prédiction (MSEP) des réserves. "
    "La racine carrée de la MSEP est un écart-type, pas une variance. "
    "Elle se compare donc directement au montant des réserves.",
]


IBNR = [
    "Les IBNR (incurred but not reported) désignent les sinistres survenus mais non encore déclarés à l'assureur. "
    "Leur estimation repose sur les cadences de déclaration observées.",
    "| Année | 12 mois | 24 mois |\n|---|---|---|\n| 2021 | 1 200 | 1 850 |\n| 2022 | 1 310 | 2 020 |",
]


MORTALITY = [
    "Les tables de mortalité réglementaires TH00-02 et TF00-02 s'appliquent aux contrats en cas de décès et en cas de "
    "vie. "
    "Les tables générationnelles TGH05 et TGF05 tiennent compte de l'amélioration de la longévité."
]


SOLVENCY = ["Le SCR de souscription non-vie agrège les risques de primes, de réserves et de catastrophe."]


def box(page: int, y: float) -> HighlightBox:
    return HighlightBox(page=page, x0=72.0, y0=y, x1=523.0, y1=y + 24.0)


def document(
    doc_id: str = DOC_FR, title: str = "Guide du provisionnement non-vie", language: str = "fr"
) -> DocumentRecord:
    return DocumentRecord(
        doc_id=doc_id,
        file_name="guide-provisionnement.pdf" if doc_id == DOC_FR else "reserving-notes.pdf",
        title=title,
        collection="default",
        language=language,
        pages=87,
        parents=128,
        children=300,
        tables=4,
        parser="pymupdf",
        embedder="e5-small",
        ingested_at="2026-11-02T10:00:00Z",
        elapsed_s=12.0,
    )


def retrieved(
    number: int,
    texts: list[str],
    heading_path: list[str],
    pages: list[int],
    rank: int,
    score: float = 0.032,
    best: int = 0,
    items: list[Item] | None = None,
    doc: DocumentRecord | None = None,
) -> RetrievedParent:
    """A context parent whose children partition its text exactly (separator kept in the previous child's span)."""
    doc = doc or document()
    prefix = doc.doc_id[:16]
    parent_id = f"{prefix}:p{number:04d}"
    text = "\n\n".join(texts)
    children: list[Child] = []
    start = 0
    for i, t in enumerate(texts):
        end = start + len(t) + (2 if i < len(texts) - 1 else 0)
        page = pages[min(i, len(pages) - 1)]
        children.append(
            Child(
                id=f"{prefix}:c{number * 10 + i:04d}",
                parent_id=parent_id,
                doc_id=doc.doc_id,
                index=number * 10 + i,
                text=t,
                context_text=" › ".join(heading_path) + "\n" + t,
                start=start,
                end=end,
                tokens=len(t.split()),
                pages=[page],
                boxes=[box(page, 100.0 + 40 * i), box(page, 130.0 + 40 * i)],
            )
        )
        start = end
    parent = Parent(
        id=parent_id,
        doc_id=doc.doc_id,
        index=number,
        heading_path=heading_path,
        text=text,
        tokens=len(text.split()),
        pages=pages,
        child_ids=[c.id for c in children],
        items=items or [],
    )
    return RetrievedParent(
        parent=parent,
        document=doc,
        children=children,
        best_child=children[best],
        fused_rank=rank,
        fused_score=score,
        ranks={"lexical": ChannelHit(rank=rank, score=7.5, child_id=children[best].id)},
    )


TABLE = Item(
    ref="#/tables/0",
    kind="table",
    caption="Tableau 2 – Paiements cumulés par année de survenance",
    page=13,
    boxes=[box(13, 300.0)],
    text=IBNR[1],
    n_rows=3,
    n_cols=3,
)


FIGURE = Item(
    ref="#/pictures/1", kind="picture", caption="", page=14, boxes=[box(14, 400.0)], image_path="artifacts/fig1.png"
)


def make_result(
    query: str = "Qu'est-ce que la MSEP du modèle de Mack ?", n: int = 3, score: float = 0.032
) -> SearchResult:
    parents = [
        retrieved(3, CHAIN_LADDER, ["Méthodes déterministes", "Chain Ladder"], [11, 12], rank=1, score=score, best=1),
        retrieved(5, IBNR, ["Provisions", "IBNR"], [13, 14], rank=2, score=score * 0.95, items=[TABLE, FIGURE]),
        retrieved(9, MORTALITY, ["Assurance vie", "Tables de mortalité"], [40], rank=3, score=score * 0.9),
        retrieved(12, SOLVENCY, ["Solvabilité II"], [60], rank=4, score=score * 0.85),
    ]
    return SearchResult(query=query, parents=parents[:n])


# The IBNR table above with a cell grid (the number tests): each cell has its own box (top-left, points).
_GRID = [["Année", "12 mois", "24 mois"], ["2021", "1 200", "1 850"], ["2022", "1 310", "2 020"]]


def grid_cells(grid: list[list[str]], page: int) -> list[TableCell]:
    """A table's cells, row by row, each with its own box (90 pt columns, 20 pt rows, from (72, 300))."""
    return [
        TableCell(
            row=r,
            col=c,
            text=text,
            box=HighlightBox(page=page, x0=72 + 90 * c, y0=300 + 20 * r, x1=162 + 90 * c, y1=320 + 20 * r),
        )
        for r, row in enumerate(grid)
        for c, text in enumerate(row)
    ]


CELLS = grid_cells(_GRID, 13)


TABLE_WITH_CELLS = Item(
    ref="#/tables/0",
    kind="table",
    caption="Tableau 2 – Paiements cumulés",
    page=13,
    boxes=[box(13, 300.0)],
    text=IBNR[1],
    cells=CELLS,
    n_rows=3,
    n_cols=3,
)


def table_result() -> SearchResult:
    parents = [
        retrieved(3, CHAIN_LADDER, ["Méthodes déterministes", "Chain Ladder"], [11, 12], rank=1, best=1),
        retrieved(
            5,
            [IBNR[0] + " Le taux de déclaration à 12 mois est de 64,93 %.", IBNR[1]],
            ["Provisions", "IBNR"],
            [13, 14],
            rank=2,
            items=[TABLE_WITH_CELLS],
        ),
    ]
    return SearchResult(query="paiements 2022", parents=parents)
