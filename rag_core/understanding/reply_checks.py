"""Checks on what a chat model sends back for the router and the follow-up rewrite, before any
of it is searched.

A small model may echo the schema it was given ("One short sentence, in the question's
language, saying why."), name a schema's keys as sub-questions ("sub_questions", "type"),
call a one-subject question a comparison, invent sub-questions about another subject, or
switch language. Any of these sets the reply aside: the rules decide instead, and the answer's
details say why (`set_aside_note`). The user's question itself is always searched as written
(`rag_core.question.flow`); these checks only decide whether the model's additions are used.
This module does not call a model and does not search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rag_core.text import detect_language, fold
from rag_core.understanding.followups import (
    Message,
    Rewrite,
    RewriteOut,
    content_stems,
    rewrite_instructions,
    rule_rewrite,
)

# a run of this many words shared with the instructions or a schema's description is an echo
_ECHO_RUN = 4
_KEY = re.compile(r"^\W*[a-z]+(_[a-z]+)+\W*$|^\W*(type|description|properties|items|kind|reason|title)\W*(:.*)?$")

_WHY = {
    "en": {
        "echo": "it repeated its instructions",
        "off_subject": "“{q}” is not about the question's subject",
        "language": "“{q}” is not in the question's language",
        "one_subject": "a comparison needs two subjects or more",
        "unrelated": "the rewrite shares no word with the question or the conversation",
    },
    "fr": {
        "echo": "il a répété ses consignes",
        "off_subject": "« {q} » ne porte pas sur le sujet de la question",
        "language": "« {q} » n'est pas dans la langue de la question",
        "one_subject": "une comparaison demande au moins deux sujets",
        "unrelated": "la réécriture ne partage aucun mot avec la question ni avec la conversation",
    },
}
_NOTE = {
    "en": {
        "router": "The model's reading of the question was set aside ({why}); rules chose the context instead.",
        "rewrite": "The model's rewrite of the question was set aside ({why}); rules rewrote it instead.",
    },
    "fr": {
        "router": "La lecture de la question par le modèle a été écartée ({why}) ; des règles ont choisi le contexte.",
        "rewrite": "La réécriture de la question par le modèle a été écartée ({why}) ; des règles l'ont réécrite.",
    },
}


def _words(text: str) -> list[str]:
    return re.findall(r"[0-9a-z]+", fold(text))


def echoes(text: str, instructions: Iterable[str]) -> bool:
    """True when `text` is a schema key, or shares a run of four words with one of `instructions`."""
    if _KEY.match(fold(text).strip()):
        return True
    words = _words(text)
    runs = {tuple(words[i : i + _ECHO_RUN]) for i in range(len(words) - _ECHO_RUN + 1)}
    for source in instructions:
        said = _words(source)
        if runs & {tuple(said[i : i + _ECHO_RUN]) for i in range(len(said) - _ECHO_RUN + 1)}:
            return True
    return False


def shares_content(text: str, other: str) -> bool:
    """Whether `text` names at least one content word of `other` (compared on their first letters)."""
    return bool(content_stems(text) & content_stems(other))


def plan_problem(
    question: str, kind: str, reason: str, subs: Sequence[str], language: str, instructions: Iterable[str]
) -> str | None:
    """Why the router's reply cannot be used (in `language`), or None when it can."""
    why = _WHY.get(language, _WHY["en"])
    told = list(instructions)
    if echoes(reason, told) or any(echoes(s, told) for s in subs):
        return why["echo"]
    if kind != "comparison":
        return None
    distinct = list(dict.fromkeys(fold(s).strip(" ?.!") for s in subs if s.strip()))
    if len(distinct) < 2:
        return why["one_subject"]
    for sub in subs:
        if not shares_content(sub, question):
            return why["off_subject"].format(q=sub)
        if len(_words(sub)) >= 4 and detect_language(sub) != language:
            return why["language"].format(q=sub)
    return None


def rewrite_problem(
    question: str, standalone: str, previous: str, language: str, instructions: Iterable[str]
) -> str | None:
    """Why the rewrite cannot be used: an echo, or no content word of the question (of the previous
    question when the follow-up has none of its own, as in "and why?")."""
    why = _WHY.get(language, _WHY["en"])
    if echoes(standalone, instructions):
        return why["echo"]
    anchor = question if content_stems(question) else previous
    if content_stems(anchor) and not shares_content(standalone, anchor):
        return why["unrelated"]
    return None


def set_aside_note(call: str, why: str, language: str) -> str:
    """The line shown in the answer's details when a reply of `call` ("router", "rewrite") was set aside."""
    return _NOTE.get(language, _NOTE["en"])[call].format(why=why)


def checked_rewrite(rewrite: Rewrite, history: Sequence[Message], language: str) -> tuple[Rewrite, str]:
    """The model's rewrite when it passes `rewrite_problem`, else the rules' one and the note saying why."""
    if rewrite.by != "llm":
        return rewrite, ""
    previous = next((text for role, text in reversed(history) if role == "user" and text.strip()), "")
    told = [rewrite_instructions(language), *descriptions(RewriteOut)]
    why = rewrite_problem(rewrite.question, rewrite.standalone, previous, language, told)
    if why is None:
        return rewrite, ""
    return rule_rewrite(rewrite.question, list(history)), set_aside_note("rewrite", why, language)


def descriptions(model: type) -> list[str]:
    """The descriptions of a pydantic model's fields: what a model echoing its schema repeats."""
    return [f.description or "" for f in model.model_fields.values()]  # type: ignore[attr-defined]
