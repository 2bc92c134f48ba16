"""Lists announced at the end of a retrieved parent, read from the parents after it.

A parent may end with the sentence that announces a list ("We perform IA support across 4 areas:",
"With respect to level (1) of the hierarchy:") while the items open the next parents, each under a
heading of its own: the layout set them apart. Quoting the announcement without its items misleads
(the reader takes what follows in the answer for them), so the question's search result carries
those parents (`SearchResult.announced`): the answer quotes each item's heading and first sentence
under the announcement and cites them. Which parents hold the items is decided by the document's
structure (`answering.units.announced_items`); only parents of a document the search returned are
read, so nothing outside the asker's scope is added.
"""

from __future__ import annotations

from rag_core.answering.announcements import MAX_ANNOUNCED_ITEMS, announced_items, closing_announcement
from rag_core.answering.evidence import split_sentences
from rag_core.models import AnnouncedList, RetrievedParent, SearchResult
from rag_core.store import Store


def with_announced_lists(result: SearchResult, store: Store, context_k: int) -> SearchResult:
    """`result` with the lists its first `context_k` parents announce at their end (`announced`)."""
    lists: list[AnnouncedList] = []
    for hit in result.parents[: max(context_k, 0)]:
        sentence = closing_announcement(hit.parent.text, split_sentences)
        if sentence is None:
            continue
        following = store.parents_after(hit.parent.doc_id, hit.parent.index, MAX_ANNOUNCED_ITEMS)
        items = announced_items(hit.parent, following, sentence)
        if not items:
            continue
        children = store.children_of_parents([p.id for p in items])
        held = [
            RetrievedParent(
                parent=p,
                document=hit.document,
                children=children[p.id],
                best_child=children[p.id][0],
                fused_rank=hit.fused_rank,
                fused_score=0.0,
            )
            for p in items
            if children.get(p.id)
        ]
        if held:
            lists.append(AnnouncedList(parent_id=hit.parent.id, sentence=sentence, items=held))
    return result.model_copy(update={"announced": lists}) if lists else result
