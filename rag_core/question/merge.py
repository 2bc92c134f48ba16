"""A comparison's answer: one answer from its sub-questions' answers, a paragraph (or more) per
sub-question, and the sub-questions that found nothing named."""

from __future__ import annotations

from rag_core.models import Answer, Paragraph, Source, SubQuestion

NO_SOURCE = {
    "en": "No source was found for the sub-question “{q}”.",
    "fr": "Aucune source n'a été trouvée pour la sous-question « {q} ».",
}


def merge_answers(question: str, answers: list[Answer], subs: list[SubQuestion], extra: dict, language: str) -> Answer:
    """One answer with a paragraph (or more) per sub-question; a sub-question with no source is named.
    The first answer is the user's question as written: its paragraphs come first, under no sub-question
    heading, and it is not listed among the sub-questions (which only add searches to it)."""
    paragraphs: list[Paragraph] = []
    uncited, dropped, warnings, missing, parent_ids = [], [], [], [], []
    sources: list[Source] = []
    marked, marks, kept = [], [], []
    for i, (ans, sub) in enumerate(zip(answers, subs, strict=True)):
        found = sub.found and ans.mode != "refused" and bool(ans.paragraphs)
        if i:
            marked.append(sub.model_copy(update={"found": found}))
        if not found:
            if i:
                missing.append(NO_SOURCE.get(language, NO_SOURCE["en"]).format(q=sub.question))
            continue
        kept.append(ans)
        heading = sub.question if i else ""
        said = {p.text for p in paragraphs}
        paragraphs += [p.model_copy(update={"sub_question": heading}) for p in ans.paragraphs if p.text not in said]
        sources += [s for s in ans.sources if s.id not in {x.id for x in sources}]
        uncited += ans.uncited
        dropped += ans.dropped
        warnings += [w for w in ans.warnings if w not in warnings]
        marks += [m for m in ans.marks if m not in marks]
        if ans.missing_information:
            missing.append(ans.missing_information)
        parent_ids += [p for p in ans.parent_ids if p not in parent_ids]
    if not kept and answers:  # nothing found at all: the user's question's own refusal says why
        missing.insert(0, answers[0].missing_information)
    cited = {s.id for s in sources}
    uncited = list({s.id: s for s in uncited if s.id not in cited}.values())
    modes = {a.mode for a in kept}
    mode = "llm" if "llm" in modes else "extractive" if modes else "refused"
    return Answer(
        language=language,
        mode=mode,
        model=next((a.model for a in answers if a.model), ""),
        paragraphs=paragraphs,
        missing_information="\n".join(m for m in missing if m),
        sources=sources,
        uncited=uncited,
        dropped=dropped,
        warnings=warnings,
        marks=marks,
        parent_ids=parent_ids,
        sub_questions=marked,
        # what the model calls cost and how they went, over every (sub-)answer, the unused ones included
        dialect=next((a.dialect for a in answers if a.dialect), ""),
        first_paragraph_s=min((a.first_paragraph_s for a in answers if a.first_paragraph_s), default=0.0),
        tokens_estimated=any(a.tokens_estimated for a in answers),
        fallback="; ".join(dict.fromkeys(a.fallback for a in answers if a.fallback)),
        fallback_reply=next((a.fallback_reply for a in answers if a.fallback_reply), ""),
        prompt_tokens=sum(a.prompt_tokens for a in answers),
        check_prompt_tokens=sum(a.check_prompt_tokens for a in answers),
        check_completion_tokens=sum(a.check_completion_tokens for a in answers),
        check_elapsed_s=sum(a.check_elapsed_s for a in answers),
        completion_tokens=sum(a.completion_tokens for a in answers),
        unsupported_numbers=sum(a.unsupported_numbers for a in kept),
        mismatched_numbers=sum(a.mismatched_numbers for a in kept),
        **extra,
    )
