"""What a failed model call tells the user, and what it keeps out of the logs.

`describe_failure` turns any failure of a call (timeout, refused connection, HTTP status, broken stream, refusal,
output that is not the schema) into a message in the user's language, built from the error's type and status
only, never its text; `redact` removes the API key from a text meant for logs. The exceptions below are the
client's own failures (`rag_core.llm`), described the same way.
"""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from rag_core.config import Settings


def redact(text: str, settings: Settings) -> str:
    """Remove the API key (and anything shaped like an OpenAI key) from a text meant for logs."""
    key = settings.llm_key()
    if key is not None and key.get_secret_value():
        text = text.replace(key.get_secret_value(), "[redacted]")
    return re.sub(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*]{6,}", "[redacted]", text)


FAILURES = {
    "en": {
        "timeout": "The language model could not be reached (no connection within {timeout:g} s); showing an "
        "extractive answer.",
        "first_token": "The language model accepted the request but sent no first token within {timeout:g} s (a model "
        "on a CPU may still be reading the prompt: raise RAG_LLM__TIMEOUT_S); showing an extractive answer.",
        "stalled": "The language model's reply stopped coming: nothing for {timeout:g} s after it began, so it was "
        "cut there; showing an extractive answer.",
        "connection": "The language model could not be reached (connection failed); showing an extractive answer.",
        "401": "The language model refused the API key (401); check the key in the settings. Showing an extractive "
        "answer.",
        "403": "The language model endpoint denied access (403); showing an extractive answer.",
        "404": "The language model endpoint does not know the model '{model}' or the address is wrong (404); showing "
        "an extractive answer.",
        "429": "The language model is rate-limited or out of quota (429); try again in a moment. Showing an extractive "
        "answer.",
        "400": "The language model endpoint rejected the request ({status}); showing an extractive answer.",
        "5xx": "The language model endpoint failed (HTTP {status}); showing an extractive answer.",
        "format": "The language model returned an answer that does not follow the required format; showing an "
        "extractive answer.",
        "stream": "The language model's answer broke off while it was being written (the stream was cut or malformed); "
        "showing an extractive answer.",
        "dialects": "The language model endpoint accepts none of the structured-output forms tried (JSON schema, JSON "
        "object, tools, plain text); showing an extractive answer.",
        "refusal": "The language model declined to answer; showing an extractive answer.",
        "cut_off": "The language model's reply was cut off at its token limit ({limit} tokens), also when asked again "
        "for a shorter answer; showing an extractive answer.",
        "other": "The language model call failed ({kind}); showing an extractive answer.",
    },
    "fr": {
        "timeout": "Le modèle de langage n'a pas pu être joint (aucune connexion en {timeout:g} s) ; voici une réponse "
        "extractive.",
        "first_token": "Le modèle de langage a accepté la requête mais n'a envoyé aucun premier jeton en {timeout:g} s "
        "(un modèle sur CPU lit peut-être encore le prompt : augmentez RAG_LLM__TIMEOUT_S) ; voici une réponse "
        "extractive.",
        "stalled": "La réponse du modèle de langage s'est arrêtée : plus rien pendant {timeout:g} s après son début, "
        "elle a donc été coupée là ; voici une réponse extractive.",
        "connection": "Le modèle de langage n'a pas pu être joint (connexion impossible) ; voici une réponse "
        "extractive.",
        "401": "Le modèle de langage a refusé la clé d'API (401) ; vérifiez la clé dans les réglages. Voici une "
        "réponse extractive.",
        "403": "Le point d'accès du modèle de langage a refusé l'accès (403) ; voici une réponse extractive.",
        "404": "Le point d'accès ne connaît pas le modèle « {model} » ou son adresse est erronée (404) ; voici une "
        "réponse extractive.",
        "429": "Le modèle de langage est limité en débit ou en quota (429) ; réessayez dans un instant. Voici une "
        "réponse extractive.",
        "400": "Le point d'accès du modèle de langage a rejeté la requête ({status}) ; voici une réponse extractive.",
        "5xx": "Le point d'accès du modèle de langage a échoué (HTTP {status}) ; voici une réponse extractive.",
        "format": "Le modèle de langage a rendu une réponse qui ne respecte pas le format demandé ; voici une réponse "
        "extractive.",
        "stream": "La réponse du modèle de langage s'est interrompue pendant sa rédaction (flux coupé ou illisible) ; "
        "voici une réponse extractive.",
        "dialects": "Le point d'accès du modèle de langage n'accepte aucune des formes de sortie structurée essayées "
        "(schéma JSON, objet JSON, outils, texte) ; voici une réponse extractive.",
        "refusal": "Le modèle de langage a refusé de répondre ; voici une réponse extractive.",
        "cut_off": "La réponse du modèle de langage a été coupée à sa limite de jetons ({limit} jetons), même "
        "redemandée plus courte ; voici une réponse extractive.",
        "other": "L'appel au modèle de langage a échoué ({kind}) ; voici une réponse extractive.",
    },
}


class StreamBroken(Exception):
    """The stream ended without a finish reason, or a chunk could not be read."""


class StreamTimedOut(StreamBroken):
    """The stream began, then no chunk came within the timeout: the connection was closed."""


class Refusal(Exception):
    """The model declined (a refusal instead of the object)."""


class Truncated(Exception):
    """The reply stopped at its token limit (`finish_reason: length`): a budget problem, not a format error."""

    def __init__(self, text: str, limit: int = 0) -> None:
        super().__init__("the reply stopped at its token limit")
        self.text, self.limit = text, limit


class FormatError(Exception):
    """The reply, repaired once, still does not validate (`text`: the model's reply)."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


def describe_failure(exc: BaseException, settings: Settings, language: str) -> str:
    """A user message for a failed call; built from the error's type and status only, never its text."""
    import openai

    msgs = FAILURES.get(language, FAILURES["en"])
    fmt = {"timeout": settings.llm.timeout_s, "model": settings.llm.model, "kind": type(exc).__name__, "status": 0}
    if isinstance(exc, openai.APITimeoutError):  # nothing came back: no connection, or no first token
        connecting = type(exc.__cause__).__name__ in ("ConnectTimeout", "PoolTimeout")
        return msgs["timeout" if connecting else "first_token"].format(**fmt)
    if isinstance(exc, openai.APIConnectionError):
        return msgs["connection"].format(**fmt)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        fmt["status"] = status
        if status in (401, 403, 404, 429):
            return msgs[str(status)].format(**fmt)
        if status >= 500:
            return msgs["5xx"].format(**fmt)
        return msgs["400"].format(**fmt)
    if isinstance(exc, StreamTimedOut):
        return msgs["stalled"].format(**fmt)
    if isinstance(exc, StreamBroken):
        return msgs["stream"].format(**fmt)
    if isinstance(exc, Truncated):
        return msgs["cut_off"].format(**fmt, limit=exc.limit or "?")
    if isinstance(exc, openai.LengthFinishReasonError):
        return msgs["cut_off"].format(**fmt, limit="?")
    if isinstance(exc, Refusal) or type(exc).__name__ == "OpenAIRefusalError":
        return msgs["refusal"].format(**fmt)
    if isinstance(
        exc,
        (
            FormatError,
            ValidationError,
            json.JSONDecodeError,
            ValueError,
            KeyError,
            TypeError,
            openai.LengthFinishReasonError,
        ),
    ):
        return msgs["format"].format(**fmt)
    return msgs["other"].format(**fmt)
