"""The app's own strings, one module per page or area; `ui.i18n.t` reads them.

A new page or feature adds its own module here and lists it below; a key defined twice is an error.
"""

from __future__ import annotations

from rag_app.ui.strings import (
    access,
    ask,
    audit,
    columns,
    errors,
    evaluate,
    home,
    inspect,
    jobs,
    library,
    marks,
    scope,
    search,
    stream,
    tokens,
)

MODULES = (
    home,
    errors,
    library,
    columns,
    inspect,
    ask,
    search,
    access,
    audit,
    evaluate,
    scope,
    jobs,
    stream,
    marks,
    tokens,
)


def merged() -> dict[str, dict[str, str]]:
    """Every module's strings in one mapping; a key defined in two modules raises at import."""
    strings: dict[str, dict[str, str]] = {}
    for module in MODULES:
        clash = strings.keys() & module.STRINGS.keys()
        if clash:
            raise ValueError(f"string keys defined twice: {sorted(clash)}")
        strings.update(module.STRINGS)
    return strings
