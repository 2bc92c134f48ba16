"""A small two-language library written straight into a store (no parsing), for the store, retrieval and
understanding tests."""

from __future__ import annotations

from rag_core.config import Settings
from rag_core.embedding import select_embedder
from rag_core.models import Child, DocumentRecord, HighlightBox, Parent
from rag_core.store import Store

DOCS = {
    "a" * 64: (
        "fr",
        "coll-A",
        [
            ("Provisions techniques", "Les provisions techniques sont calculées selon la mortalité observée."),
            ("Solvabilité II", "Le régime Solvabilité II impose un capital de solvabilité requis."),
            ("Droit du travail", "L'article L. 1235-3 du code du travail fixe un barème d'indemnités."),
        ],
    ),
    "b" * 64: (
        "en",
        "coll-B",
        [
            ("Guidelines", "Guideline 37 covers the expert judgement used for IBNR reserves."),
            ("Stochastic BF", "Assumption BF2 states that the increments are independent; see also CL1."),
            ("Mortality", "Mortality tables for annuities with improvement factors."),
        ],
    ),
}


def chunks_of(doc_id: str, sections: list[tuple[str, str]]) -> tuple[list[Parent], list[Child]]:
    parents, children = [], []
    for i, (title, text) in enumerate(sections):
        pid, cid = f"{doc_id[:16]}:p{i:04d}", f"{doc_id[:16]}:c{i:05d}"
        box = HighlightBox(page=i + 1, x0=50, y0=100, x1=300, y1=120)
        children.append(
            Child(
                id=cid,
                parent_id=pid,
                doc_id=doc_id,
                index=i,
                text=text,
                context_text=f"{title}\n{text}",
                start=0,
                end=len(text),
                tokens=20,
                pages=[i + 1],
                boxes=[box],
            )
        )
        parents.append(
            Parent(
                id=pid,
                doc_id=doc_id,
                index=i,
                heading_path=[title],
                text=text,
                tokens=20,
                pages=[i + 1],
                child_ids=[cid],
            )
        )
    return parents, children


def record_of(doc_id: str, lang: str, collection: str, n: int, embedder: str) -> DocumentRecord:
    return DocumentRecord(
        doc_id=doc_id,
        file_name=f"{doc_id[:4]}.pdf",
        title=doc_id[:4],
        collection=collection,
        language=lang,
        pages=n,
        parents=n,
        children=n,
        tables=0,
        parser="test",
        embedder=embedder,
        ingested_at="2026-11-29T00:00:00+00:00",
        elapsed_s=0.1,
    )


def build_store(settings: Settings, docs: dict | None = None) -> tuple[Store, Settings]:
    """A library of `docs` (default: DOCS) in the settings' store, indexed."""
    store = Store(settings.db_uri)
    embedder = select_embedder(settings)
    for doc_id, (lang, coll, sections) in (DOCS if docs is None else docs).items():
        parents, children = chunks_of(doc_id, sections)
        vectors = embedder.embed_passages([c.context_text for c in children])
        store.write_document(
            record_of(doc_id, lang, coll, len(sections), embedder.name), parents, children, vectors, embedder.name
        )
    store.optimize()
    return store, settings


# Two small PDFs of the shared corpus, one per language.
SMALL_EN = "en_actuar_coverage_modifications.pdf"
SMALL_FR = "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf"
