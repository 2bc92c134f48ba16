"""Check: a model's paragraph is "supported" only when its quote also names what the question asks about.

The quote check (`verification`) only says the quote occurs in a cited source: a small model quotes a true
sentence about something else ("0.6478" from another example for "the total Mack standard error") and the
paragraph read as supported. Here a quote of three words or more whose sentence (in its cited source) and
source's section share no content word with the question or the search's added terms (thesaurus labels,
glossary translations), compared on their first letters, marks its paragraph partially supported. A quote
in the other language than the question's, when the search added no translation, is not judged (no shared
words are to be expected). Quotes of figures or table rows alone are left to the numbers check. Extractive
paragraphs are the documents' own sentences, chosen by the question's terms: the check passes them by.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_core.answering.guardrails.base import Evidence, Need, Outcome, with_mark
from rag_core.config import Settings
from rag_core.models import Mark, Paragraph, Source
from rag_core.text import find_quote, written_in
from rag_core.understanding.followups import content_stems

SUBJECT_MARK = Mark(name="subject", level="caution", key="mark.subject.elsewhere", explains=True)


def names_the_subject(quote: str, question: str, terms: Sequence[str], language: str, cited: Sequence[Source]) -> bool:
    """False only when the quote says enough to be judged and neither it nor the sentence it stands in, with
    its source's section (`quote_context`), shares a content word with the question."""
    if len(content_stems(quote)) < 3:
        return True  # a figure or a row: the numbers check reads it
    other = any(s.language and s.language != language for s in cited)
    if not terms and (other or written_in(quote) not in (None, language)):
        return True  # another language and no translation to compare with
    asked = content_stems(question) | {s for t in terms for s in content_stems(t)}
    return not asked or bool(content_stems(quote_context(quote, cited)) & asked)


_SENTENCE_END = re.compile(r"[.!?\n]")


def quote_context(quote: str, cited: Sequence[Source]) -> str:
    """The sentence the quote stands in, with its source's section: what names the subject when the quote
    itself does not ("Limites de Chain-Ladder", "Les limites de la méthode : elle suppose…" for the quote
    "elle suppose…"); the quote alone when no cited source holds it."""
    for source in cited:
        found = find_quote(source.text, quote)
        if found is not None:
            before = [m.end() for m in _SENTENCE_END.finditer(source.text, 0, found[0])]
            after = _SENTENCE_END.search(source.text, found[1])
            sentence = source.text[before[-1] if before else 0 : after.end() if after else len(source.text)]
            return f"{source.section} {sentence}"
    return quote


class SubjectCheck:
    name = "subject"
    needs: frozenset[Need] = frozenset({"sources"})
    marks: tuple[str, ...] = ("mark.subject.elsewhere",)
    per_paragraph = True

    def enabled(self, settings: Settings) -> bool:
        return True

    def run(self, paragraphs: Sequence[Paragraph], evidence: Evidence) -> Outcome:
        if evidence.mode != "llm" or not evidence.question:
            return Outcome(list(paragraphs))
        out = []
        by_id = {s.id: s for s in evidence.sources}
        for para in paragraphs:
            cited = [by_id[sid] for sid in para.source_ids if sid in by_id]
            if para.status == "supported" and not names_the_subject(
                para.quote, evidence.question, evidence.terms, evidence.language, cited
            ):
                para = with_mark(para.model_copy(update={"status": "partially_supported"}), SUBJECT_MARK)
            out.append(para)
        return Outcome(out)
