"""An answer's own sentences told again in the page's language.

rag_core writes a refusal, a coverage note, a stop notice or the reason of a context budget in the
question's language (`Answer.language`): an API client that asks in English reads English. The
pages speak the user's chosen language whatever the question's: `retell` finds each sentence of
ours written from one of these templates in another language and writes it from the same template
in the page's language, its values kept (a list of quoted terms is quoted and joined the page's
way). Text that no template produced (a model's words, a document's) is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, partial

from rag_core.answering import run_messages
from rag_core.answering.coverage import SAY
from rag_core.answering.lead import NEAR_MISS
from rag_core.answering.verification import MESSAGES as VERIFICATION
from rag_core.question.merge import NO_SOURCE
from rag_core.understanding.budget import REASONS

LANGUAGES = ("en", "fr")
_QUOTED = {"en": re.compile(r"'([^']*)'"), "fr": re.compile(r"« (.*?) »")}
_JOINS = {"en": (", ", " or ", " and "), "fr": (", ", " ni ", " et ")}
_PLACEHOLDER = re.compile(r"\{(\w*)\}")
MIN_TEMPLATE_CHARS = 12  # shorter entries of the tables (" or ", "'{}'") are parts of sentences, not sentences


def _families() -> list[dict[str, str]]:
    """Each template of ours in every language: {language: template}."""
    found: list[dict[str, str]] = []
    by_language = (SAY, VERIFICATION, REASONS)
    for table in by_language:
        for key, text in table["en"].items():
            if len(text.strip()) < MIN_TEMPLATE_CHARS:
                continue  # a quoting pattern or a joining word, not a sentence
            found.append({lang: table[lang][key] for lang in LANGUAGES if key in table.get(lang, {})})
    flat = [NEAR_MISS, NO_SOURCE, *(v for v in vars(run_messages).values() if isinstance(v, dict))]
    found += [{lang: d[lang] for lang in LANGUAGES if lang in d} for d in flat if {"en", "fr"} <= set(d)]
    return [f for f in found if len(f) == len(LANGUAGES) and all(isinstance(v, str) for v in f.values())]


def _pattern(template: str) -> re.Pattern[str]:
    parts, pos, seen = [], 0, set()
    for m in _PLACEHOLDER.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        last = m.end() == len(template)
        body = r"[^\n]+" if last else r".+?"
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>{body})")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts), re.DOTALL)


@cache
def _compiled() -> list[tuple[dict[str, str], dict[str, re.Pattern[str]]]]:
    return [(f, {lang: _pattern(text) for lang, text in f.items()}) for f in _families()]


def relist(value: str, source: str, target: str) -> str:
    """A list of quoted terms written the `source` way ("'a', 'b' or 'c'") written the `target` way
    ("« a », « b » ni « c »"); any other value as it is."""
    quoted = _QUOTED[source]
    items, gaps, pos = [], [], 0
    for m in quoted.finditer(value):
        gaps.append(value[pos : m.start()])
        items.append(m.group(1))
        pos = m.end()
    if not items or gaps[0] or value[pos:] or not all(g in _JOINS[source] for g in gaps[1:]):
        return value
    joins = dict(zip(_JOINS[source], _JOINS[target], strict=True))
    out = _QUOTED_FORMAT[target].format(items[0])
    for gap, item in zip(gaps[1:], items[1:], strict=True):
        out += joins[gap] + _QUOTED_FORMAT[target].format(item)
    return out


_QUOTED_FORMAT = {"en": "'{}'", "fr": "« {} »"}


def retell(text: str, language: str) -> str:
    """`text` with each sentence of ours written in another language than `language` written in
    `language` (see the module's docstring); unchanged when `language` is not one we write."""
    if not text or language not in LANGUAGES:
        return text
    for family, patterns in _compiled():
        for source, pattern in patterns.items():
            if source == language:
                continue
            text = pattern.sub(partial(_told_match, template=family[language], source=source, target=language), text)
    return text


def _told_match(match: re.Match[str], template: str, source: str, target: str) -> str:
    return _told(match.groupdict(), template, source, target)


def _told(values: Mapping[str, str], template: str, source: str, target: str) -> str:
    return template.format(**{name: relist(value, source, target) for name, value in values.items()})
