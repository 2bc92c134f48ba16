"""The façade's verbs for the word lists every search shares: the thesaurus and the bilingual glossary.

Reading which one is in use is open to everyone; replacing the thesaurus or extending the
glossary changes every user's searches, so it takes the principal and needs an administrator.
Re-exported by `rag_core.pipeline`; the checks of the files themselves are in `understanding`.
"""

from __future__ import annotations

from typing import Any

from rag_core import understanding
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.services import permissions as perm
from rag_core.understanding import term_presence


def thesaurus_info(settings: Settings) -> dict[str, Any] | None:
    """The thesaurus in use (name, path, concepts), or None when expansion is off."""
    thesaurus = understanding.load_thesaurus(settings)
    if thesaurus is None:
        return None
    return {
        "name": thesaurus.name,
        "path": str(understanding.thesaurus_path(settings)),
        "concepts": len(thesaurus.concepts),
    }


def upload_thesaurus(data: bytes, settings: Settings, *, principal: Principal) -> int:
    """Check and store the user's thesaurus (it replaces the bundled one, for everyone: administrators
    only); returns its number of concepts."""
    perm.require_admin(principal, "thesaurus")
    concepts = len(understanding.save_uploaded_thesaurus(data, settings).concepts)
    term_presence.refresh(settings)  # its labels are among the terms each document is known to hold
    return concepts


def glossary_info(settings: Settings) -> dict[str, Any] | None:
    """The bilingual glossary in use (name, entries, the user's extension), or None when translation is off."""
    glossary = understanding.load_glossary(settings)
    if glossary is None:
        return None
    extension = understanding.glossary_extension_path(settings)
    return {"name": glossary.name, "entries": len(glossary.entries), "extension": str(extension) if extension else None}


def upload_glossary(data: bytes, settings: Settings, *, principal: Principal) -> int:
    """Check and store the user's glossary (it extends the bundled one, for everyone: administrators
    only); returns its number of entries."""
    perm.require_admin(principal, "glossary")
    entries = len(understanding.save_uploaded_glossary(data, settings).entries)
    term_presence.refresh(settings)  # the new terms, found in every document now rather than on the next question
    return entries
