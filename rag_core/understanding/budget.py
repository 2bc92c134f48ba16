"""The router: what kind of request a question is, hence its context budget and its sub-questions.

docs/method.md: 3 parents for a definition, 5 for an explanation, 7 for a comparison. With a
chat model the router is one structured call (`PlanOut`) that also splits a comparison into
sub-questions; without one, or when the call fails, rules on cue words decide and
`subquestions.split_comparison` splits. The plan always says why (`reason`) and who decided.
This module does not search.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from rag_core.config import Settings
from rag_core.errors import LLMError
from rag_core.text import detect_language, fold
from rag_core.understanding.reply_checks import descriptions, plan_problem, set_aside_note
from rag_core.understanding.subquestions import MAX_SUB_QUESTIONS, split_comparison

log = logging.getLogger(__name__)
Kind = Literal["definition", "explanation", "comparison"]

_COMPARISON = re.compile(
    r"\b(compar\w*|versus|vs|differen\w* (entre|between)|differ\w*|contrast\w*|plutot que|rather than|"
    r"par rapport (a|au|aux)|as opposed to|avantages et (les )?inconvenients|advantages and disadvantages|"
    r"pros and cons)\b"
)
_EXPLANATION = re.compile(
    r"\b(pourquoi|comment|why|how|expliqu\w*|explain\w*|decri\w*|describ\w*|justifi\w*|demontr\w*|deriv\w*|"
    r"calcul\w*|comput\w*|estim\w*|etapes?|steps?|procedure|hypotheses|assumptions?|limites|limitations?|"
    r"consequences?|impact\w*)\b"
)


@dataclass(frozen=True)
class Plan:
    kind: Kind
    parents: int
    reason: str
    decided_by: Literal["llm", "rules", "fixed"]
    sub_questions: list[str] = field(default_factory=list)
    note: str = ""  # why the model's reply was set aside, for the answer's details


class PlanOut(BaseModel):
    """The router's structured output."""

    kind: Kind = Field(
        description="definition (what is X), explanation (how/why, a method, a derivation) "
        "or comparison (two or more things set against each other)."
    )
    reason: str = Field(description="One short sentence, in the question's language, saying why.")
    sub_questions: list[str] = Field(
        description="For a comparison only: 2 or 3 standalone questions, one per "
        "compared item, in the question's language. Otherwise empty."
    )


_ROUTER_PROMPT = {
    "en": (
        "You route questions asked to a document search engine for actuaries. Classify the request as a "
        "definition, an explanation or a comparison, say why in one short sentence, and for a comparison "
        "write one standalone sub-question per compared item (2 or 3). Do not answer the question."
    ),
    "fr": (
        "Vous orientez les questions posées à un moteur de recherche documentaire pour actuaires. Classez la "
        "demande en définition, explication ou comparaison, dites pourquoi en une phrase courte et, pour une "
        "comparaison, écrivez une sous-question autonome par élément comparé (2 ou 3). "
        "Ne répondez pas à la question."
    ),
}
REASONS = {
    "en": {
        "comparison": "comparison: the question contains “{cue}”",
        "explanation": "explanation: the question contains “{cue}”",
        "definition": "definition: no cue of an explanation or a comparison",
        "fixed": "fixed budget (router off)",
    },
    "fr": {
        "comparison": "comparaison : la question contient « {cue} »",
        "explanation": "explication : la question contient « {cue} »",
        "definition": "définition : aucun indice d'explication ni de comparaison",
        "fixed": "budget fixe (routeur désactivé)",
    },
}


def budget_of(kind: str, settings: Settings) -> int:
    defaults = {"definition": 3, "explanation": 5, "comparison": 7}
    return max(1, int(settings.understanding.budgets.get(kind, defaults.get(kind, settings.retrieval.context_k))))


def rule_plan(question: str, settings: Settings, language: str | None = None) -> Plan:
    """Cue words decide the kind; a comparison is split by `split_comparison`."""
    language = language or detect_language(question)
    folded = fold(question)
    reasons = REASONS.get(language, REASONS["en"])
    for kind, pattern in (("comparison", _COMPARISON), ("explanation", _EXPLANATION)):
        match = pattern.search(folded)
        if match:
            subs = split_comparison(question) if kind == "comparison" and settings.understanding.sub_questions else []
            reason = reasons[kind].format(cue=match.group(0))
            return Plan(kind, budget_of(kind, settings), reason, "rules", subs)  # type: ignore[arg-type]
    return Plan("definition", budget_of("definition", settings), reasons["definition"], "rules")


def fixed_plan(question: str, settings: Settings, language: str | None = None) -> Plan:
    reasons = REASONS.get(language or detect_language(question), REASONS["en"])
    return Plan("definition", settings.retrieval.context_k, reasons["fixed"], "fixed")


def llm_plan(question: str, settings: Settings, language: str | None = None) -> Plan:
    """One structured call; raises LLMError when the endpoint fails."""
    from rag_core.llm import call_structured

    language = language or detect_language(question)
    messages = [
        {"role": "system", "content": _ROUTER_PROMPT.get(language, _ROUTER_PROMPT["en"])},
        {"role": "user", "content": question},
    ]
    # bounded, so that a small model cannot ramble to its token limit (llama.cpp makes a grammar of the schema)
    grammar = PlanOut.model_json_schema()
    grammar["properties"]["reason"]["maxLength"] = 200
    grammar["properties"]["sub_questions"].update(
        maxItems=MAX_SUB_QUESTIONS, items={"type": "string", "maxLength": 200}
    )
    out, _ = call_structured(messages, PlanOut, settings, language, grammar, max_tokens=300)
    subs = [s.strip() for s in out.sub_questions if s.strip()][:MAX_SUB_QUESTIONS] if out.kind == "comparison" else []
    told = [messages[0]["content"], *descriptions(PlanOut)]
    why = plan_problem(question, out.kind, out.reason, subs, language, told)
    if why is not None:  # the reply is not what was asked: the rules decide, and the details say why
        log.info("router reply set aside: %s", why)
        rules = rule_plan(question, settings, language)
        return Plan(
            rules.kind,
            rules.parents,
            rules.reason,
            "rules",
            rules.sub_questions,
            set_aside_note("router", why, language),
        )
    if not settings.understanding.sub_questions or len(subs) < 2:
        subs = []
    return Plan(out.kind, budget_of(out.kind, settings), out.reason.strip(), "llm", subs)


def plan_question(question: str, settings: Settings, use_llm: bool, language: str | None = None) -> Plan:
    """The context budget and the sub-questions of `question`; the LLM router when asked, else rules.
    `language`: the question's, when the caller has detected it already."""
    if not settings.understanding.context_budget and not settings.understanding.sub_questions:
        return fixed_plan(question, settings, language)
    plan = rule_plan(question, settings, language)
    if use_llm:
        try:
            plan = llm_plan(question, settings, language)
        except LLMError as err:  # the rules are a sound fallback: the answer still comes
            log.warning("router fell back to rules: %s", err)
    if not settings.understanding.context_budget:
        fixed = fixed_plan(question, settings, language)
        plan = Plan(fixed.kind, fixed.parents, fixed.reason, fixed.decided_by, plan.sub_questions, plan.note)
    return plan
