"""What the client knows about an endpoint beyond its dialect: which server it is, whether its chat template
keeps system messages, how many generations it runs at once, and how fast its first token comes.

- `profile`: one `GET /models` per endpoint (local servers say who they are in `owned_by`: llama-cpp-python's
  server answers "me"), remembered for the life of the process once it answered; a listing that timed out or
  could not connect (llama-cpp-python's server answers nothing while it evaluates a long prompt) is asked again
  after `RETRY_S` instead of leaving the server unrecognised for good. llama-cpp-python's server ends a running
  stream when another request arrives, and its Gemma chat format drops system messages.
- `fold_system`: whether instructions go into the first user message (setting, server, or a rejection seen).
- `Gate`: at most `concurrency` generations per endpoint; the others wait in order and see their position.
- `first_token_s` / `slow_for_optional`: the last measured first-token latency, and whether the optional calls
  (follow-up rewrite, router, support check) should be skipped for it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from rag_core.config import Settings

log = logging.getLogger(__name__)

# `owned_by` of /v1/models as each server writes it, and what that server does
_SERVERS = {
    "me": ("llama-cpp-python", True, True),  # (name, ends a running stream on a new request, drops system)
    "llamacpp": ("llama.cpp server", False, False),
    "vllm": ("vLLM", False, False),
    "library": ("Ollama", False, False),
    "ollama": ("Ollama", False, False),
}


@dataclass(frozen=True)
class Profile:
    """What the endpoint reported about itself ('' / False when it reported nothing we know)."""

    server: str = ""
    cancels_running: bool = False
    drops_system: bool = False


_PROFILES: dict[str, Profile] = {}
_FOLDED: set[str] = set()  # endpoints whose template rejected a system message
_LATENCY: dict[str, float] = {}
_GATES: dict[str, Gate] = {}
_UNSURE: dict[str, float] = {}  # endpoints whose /models did not answer, and when it was asked
_LOCK = threading.Lock()
RETRY_S = 30.0


PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama) accept any key


def api_key(settings: Settings) -> str:
    key = settings.llm_key()
    value = key.get_secret_value() if key is not None else ""
    return value or PLACEHOLDER_KEY


def endpoint_key(settings: Settings) -> tuple[str, str]:
    """(address, model) under which an endpoint's dialect is remembered."""
    if settings.llm.provider == "azure":
        address = (settings.azure_endpoint() or "").rstrip("/")
        if settings.llm.azure_api_version:
            deployment = settings.llm.azure_deployment or settings.llm.model
            return f"{address}/openai/deployments/{deployment}", settings.llm.model
        return f"{address}/openai/v1", settings.llm.model
    return (settings.llm_base_url() or "https://api.openai.com/v1").rstrip("/"), settings.llm.model


def _address(settings: Settings) -> str:
    return endpoint_key(settings)[0]


def _detect(settings: Settings) -> Profile | None:
    """The profile the endpoint reports; None when its listing timed out or could not connect (ask again later)."""
    if settings.llm.provider == "azure" or not settings.llm_base_url():
        return Profile("OpenAI" if settings.llm.provider == "openai" else "Azure OpenAI")
    import openai

    try:
        client = openai.OpenAI(
            base_url=settings.llm_base_url(),
            api_key=api_key(settings),
            timeout=min(settings.llm.timeout_s, 5.0),
            max_retries=0,
        )
        owners = {str(getattr(m, "owned_by", "") or "") for m in client.models.list().data}
    except (openai.APITimeoutError, openai.APIConnectionError) as exc:
        log.info("endpoint %s did not list its models in time (%s)", _address(settings), type(exc).__name__)
        return None
    except Exception as exc:  # a server without /models is still usable
        log.info("endpoint %s does not list its models (%s)", _address(settings), type(exc).__name__)
        return Profile()
    for owner in owners:
        if owner in _SERVERS:
            name, cancels, drops = _SERVERS[owner]
            return Profile(name, cancels, drops)
    return Profile()


def profile(settings: Settings) -> Profile:
    """The endpoint's profile, detected once per process."""
    address = _address(settings)
    with _LOCK:
        known = _PROFILES.get(address)
        asked = _UNSURE.get(address)
    if known is not None:
        return known
    if asked is not None and time.monotonic() - asked < RETRY_S:
        return Profile()
    found = _detect(settings)
    with _LOCK:
        if found is None:
            _UNSURE[address] = time.monotonic()
            return Profile()
        _UNSURE.pop(address, None)
        _PROFILES.setdefault(address, found)
        return _PROFILES[address]


def fold_system(settings: Settings) -> bool:
    """Whether the instructions go into the first user message instead of a system message."""
    mode = settings.llm.system_role
    if mode != "auto":
        return mode == "fold"
    with _LOCK:
        if _address(settings) in _FOLDED:
            return True
    return profile(settings).drops_system


def remember_folding(settings: Settings) -> None:
    with _LOCK:
        _FOLDED.add(_address(settings))


def concurrency(settings: Settings) -> int:
    """Most generations at once at this endpoint (0: no limit)."""
    if settings.llm.concurrency:
        return settings.llm.concurrency
    return 1 if profile(settings).cancels_running else 0


def record_first_token(settings: Settings, seconds: float) -> None:
    with _LOCK:
        _LATENCY[_address(settings)] = seconds


def first_token_s(settings: Settings) -> float | None:
    """The last measured time to the first token at this endpoint (None before any call)."""
    with _LOCK:
        return _LATENCY.get(_address(settings))


def slow_for_optional(settings: Settings) -> float | None:
    """The measured first-token latency when it exceeds `optional_max_latency_s` (the optional calls are then
    skipped); None when they may run."""
    limit = settings.llm.optional_max_latency_s
    seen = first_token_s(settings)
    if not limit or seen is None or seen <= limit:
        return None
    return seen


class Gate:
    """At most `limit` holders at once; the others wait first come, first served."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0
        self.waiting: list[object] = []
        self.cond = threading.Condition()

    def enter(self) -> Iterator[int]:
        """Wait for a turn, yielding the queue position (1: next) each time it changes; returns once admitted.
        Closing the generator while waiting leaves the queue."""
        ticket = object()
        admitted = False
        shown = 0
        with self.cond:
            self.waiting.append(ticket)
        try:
            while True:
                with self.cond:
                    position = self.waiting.index(ticket) + 1
                    if position == 1 and self.running < self.limit:
                        self.waiting.pop(0)
                        self.running += 1
                        admitted = True
                        self.cond.notify_all()
                        return
                    if position == shown:
                        self.cond.wait(0.5)
                        continue
                shown = position
                yield position
        finally:
            if not admitted:
                with self.cond:
                    if ticket in self.waiting:
                        self.waiting.remove(ticket)
                    self.cond.notify_all()

    def leave(self) -> None:
        with self.cond:
            self.running -= 1
            self.cond.notify_all()


def gate(settings: Settings) -> Gate | None:
    """This endpoint's gate; None when it runs any number of generations at once."""
    limit = concurrency(settings)
    if not limit:
        return None
    address = _address(settings)
    with _LOCK:
        found = _GATES.get(address)
        if found is None or found.limit != limit:
            found = _GATES[address] = Gate(limit)
        return found


def forget(settings: Settings | None = None) -> None:
    """Forget what was learnt about one endpoint (all when None): tests start from a clean slate."""
    with _LOCK:
        if settings is None:
            for table in (_PROFILES, _FOLDED, _LATENCY, _GATES, _UNSURE):
                table.clear()
            return
        address = _address(settings)
        _PROFILES.pop(address, None)
        _UNSURE.pop(address, None)
        _LATENCY.pop(address, None)
        _GATES.pop(address, None)
        _FOLDED.discard(address)


_SKIPPED = {
    "en": {
        "rewrite": "The model's follow-up rewrite",
        "router": "The model's question router",
        "support": "The model's support check",
        "line": "{what} was skipped: the endpoint's first token took {seen:.0f} s (over {limit:g} s); {then}",
        "rules": "the rules were used.",
        "none": "the paragraphs are not judged.",
    },
    "fr": {
        "rewrite": "La reformulation des questions de suivi par le modèle",
        "router": "L'aiguillage des questions par le modèle",
        "support": "Le contrôle d'appui par le modèle",
        "line": "{what} a été sautée : le premier jeton du point d'accès a mis {seen:.0f} s (plus de {limit:g} s) ; "
        "{then}",
        "rules": "les règles ont été appliquées.",
        "none": "les paragraphes ne sont pas jugés.",
    },
}


def skipped_note(settings: Settings, call: str, language: str) -> str | None:
    """The note for an optional call (`rewrite`, `router`, `support`) skipped because the endpoint is slow; None
    when it may run."""
    seen = slow_for_optional(settings)
    if seen is None:
        return None
    words = _SKIPPED.get(language, _SKIPPED["en"])
    then = words["none"] if call == "support" else words["rules"]
    return words["line"].format(what=words[call], seen=seen, limit=settings.llm.optional_max_latency_s, then=then)
