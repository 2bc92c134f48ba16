"""Greetings and thanks get a short direct reply, with no search (docs/method.md).

A message is a greeting only when every word in it is a greeting word or a small filler
word ("bonjour à tous", "Merci beaucoup !", "hello there"); anything with real content
("bonjour, qu'est-ce que l'IBNR ?") is a question and returns None.
"""

from __future__ import annotations

import re

from rag_core.text import fold

# Greeting phrases (accent-folded, lower case), by kind and language. Multi-word phrases are
# matched before single words.
_PHRASES: dict[tuple[str, str], tuple[str, ...]] = {
    ("hello", "fr"): ("bonjour", "bonsoir", "salut", "coucou", "bonne journee", "bonne soiree", "rebonjour"),
    ("hello", "en"): ("hello", "hi", "hey", "good morning", "good afternoon", "good evening", "greetings", "howdy"),
    ("thanks", "fr"): ("merci", "je vous remercie", "je te remercie", "parfait merci", "super merci"),
    ("thanks", "en"): ("thanks", "thank you", "thx", "many thanks", "cheers"),
    ("bye", "fr"): ("au revoir", "a bientot", "bonne fin de journee", "bonne nuit", "a plus"),
    ("bye", "en"): ("bye", "goodbye", "good bye", "see you", "good night"),
}

# Small words that may accompany a greeting without making it a question.
_FILLERS = frozenset(
    "a tous toutes vous toi beaucoup bien infiniment encore madame monsieur mesdames messieurs "
    "cher chere chers l equipe et ok oui daccord d accord parfait super tres "
    "there all everyone you so much very a lot again team folks guys and ok okay yes great "
    "the assistant bot".split()
)

_REPLIES = {
    ("hello", "fr"): "Bonjour ! Posez-moi une question sur vos documents : "
    "je répondrai en citant les passages utilisés.",
    ("hello", "en"): "Hello! Ask me a question about your documents: I will answer and cite the passages I used.",
    ("thanks", "fr"): "Avec plaisir ! N'hésitez pas si vous avez une autre question sur vos documents.",
    ("thanks", "en"): "You're welcome! Ask another question about your documents whenever you like.",
    ("bye", "fr"): "Au revoir, et à bientôt !",
    ("bye", "en"): "Goodbye, see you soon!",
}

_PRIORITY = ("thanks", "bye", "hello")  # "bonjour, merci !" is a thank-you


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", fold(text))


def greeting_reply(question: str) -> str | None:
    """A short reply in the message's language when it is only a greeting or thanks; else None."""
    words = _words(question)
    if not words or len(words) > 8:
        return None
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        match = None
        for (kind, lang), phrases in _PHRASES.items():
            for phrase in phrases:
                parts = phrase.split()
                if words[i : i + len(parts)] == parts and (match is None or len(parts) > len(match[2])):
                    match = (kind, lang, parts)
        if match is not None:
            found.append((match[0], match[1]))
            i += len(match[2])
        elif words[i] in _FILLERS:
            i += 1
        else:
            return None
    if not found:
        return None
    kinds = {kind for kind, _ in found}
    kind = next(k for k in _PRIORITY if k in kinds)
    lang = "fr" if any(lang == "fr" for _, lang in found) else "en"
    return _REPLIES[(kind, lang)]
