"""What a reader is, the registry of backends, and the one reader of an app process.

A reader judges passages against a question: `judge` returns, for each passage, the probability that it
states the answer to exactly this question (P(yes) / (P(yes) + P(no)) of a one-token yes/no reply), and
`copy` returns the shortest span of a passage that answers (its words, as the model wrote them: the caller
keeps it only when it is found verbatim in the passage). Backends register by name (`register`), as search
channels and guard-rails do; `reader_for` gives the process's one instance per configuration, shared by
every user of the app (the model is loaded once, on first use). The worker never calls it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from rag_core.config import Settings
from rag_core.errors import BackendUnavailable

# The instructions, in the question's language; the question comes before the passage, so that every
# candidate of one question shares the prompt's prefix (the server keeps it cached).
SYSTEM = {
    "en": "You check whether a passage states the answer to a question. Reply yes or no.",
    "fr": "Vous vérifiez si un passage donne la réponse à une question. Répondez oui ou non.",
}
ASK = {
    "en": "Question: {question}\n\nPassage:\n{passage}\n\nDoes the passage state the answer to exactly this "
    "question? Answer yes or no.",
    "fr": "Question : {question}\n\nPassage :\n{passage}\n\nLe passage donne-t-il la réponse à exactement cette "
    "question ? Répondez oui ou non.",
}
COPY = {
    "en": "Question: {question}\n\nPassage:\n{passage}\n\nCopy, word for word, the shortest part of the passage "
    "that answers the question (a figure with its unit, a formula, a name, a count). Reply with the copied "
    "words only.",
    "fr": "Question : {question}\n\nPassage :\n{passage}\n\nRecopiez mot pour mot la plus courte partie du "
    "passage qui répond à la question (un chiffre avec son unité, une formule, un nom, un nombre). Répondez "
    "uniquement par les mots recopiés.",
}
YES = frozenset({"yes", "oui"})
NO = frozenset({"no", "non"})


def messages(template: dict[str, str], question: str, passage: str, language: str) -> list[dict[str, str]]:
    lang = language if language in template else "en"
    return [
        {"role": "system", "content": SYSTEM[lang]},
        {"role": "user", "content": template[lang].format(question=question.strip(), passage=passage.strip())},
    ]


def yes_share(top: Sequence[tuple[str, float]]) -> float:
    """P(yes) / (P(yes) + P(no)) from the first reply token's (token, probability) pairs; 0.5 when neither
    word is among them (the reader says nothing either way)."""
    yes = sum(p for t, p in top if t.strip().lower() in YES)
    no = sum(p for t, p in top if t.strip().lower() in NO)
    return yes / (yes + no) if yes + no > 0 else 0.5


class Reader(Protocol):
    name: str

    def judge(self, question: str, passages: Sequence[str], language: str) -> list[float]: ...

    def copy(self, question: str, passage: str, language: str) -> str: ...


Factory = Callable[[Settings], Reader]
_FACTORIES: dict[str, Factory] = {}
_INSTANCES: dict[tuple, Reader] = {}
_LOCK = threading.Lock()


def register(name: str, factory: Factory) -> None:
    """Add a backend (`reader.backend` names it); a second registration of a name is an error."""
    if name in _FACTORIES:
        raise ValueError(f"reader backend {name!r} is already registered")
    _FACTORIES[name] = factory


def backends() -> list[str]:
    return sorted(_FACTORIES)


def _key(settings: Settings, backend: str) -> tuple:
    r = settings.reader
    if backend == "embedded":
        return (backend, str(r.gguf), r.sha256, r.threads, r.context_tokens)
    return (backend, settings.llm_base_url() or "", settings.llm.model)


def chosen_backend(settings: Settings) -> str:
    """The backend `reader.backend` selects: 'auto' is the embedded model when its weights are on disk."""
    backend = settings.reader.backend
    if backend == "auto":
        return "embedded" if settings.reader.gguf.is_file() else "none"
    return backend


def reader_for(settings: Settings) -> Reader | None:
    """The process's reader for these settings (loaded on first use), None when reading is off. A backend
    that cannot run raises `BackendUnavailable` with the reason (missing weights, wrong checksum)."""
    backend = chosen_backend(settings)
    if backend == "none":
        return None
    factory = _FACTORIES.get(backend)
    if factory is None:
        raise BackendUnavailable.of("backend.reader_unknown", name=backend, known=", ".join(backends()))
    key = _key(settings, backend)
    with _LOCK:
        if key not in _INSTANCES:
            _INSTANCES[key] = factory(settings)
        return _INSTANCES[key]


def forget_readers() -> None:
    """Drop the loaded readers (tests that load another model)."""
    with _LOCK:
        _INSTANCES.clear()
