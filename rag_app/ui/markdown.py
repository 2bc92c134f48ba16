"""Safe text for Streamlit markdown: document text and file names shown literally, never as markup.

Its own module (no Streamlit, no other `ui` module) so that every `ui` module can use it without an
import cycle.
"""

from __future__ import annotations

import re

# `&` too: an entity in a document ("&amp;", "&lt;script&gt;") must show as written, not decoded.
# Bare http(s) URLs still become links (Streamlit autolinks them whatever the escaping);
# a `javascript:` URL never does.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>$~|:#{}&])")
_MD_LINE_START = re.compile(r"^(\s*)([-+>=]|\d+(?=[.)]))", re.MULTILINE)


def escape_md(text: str) -> str:
    """Make any text (document text, file names) display literally in st.markdown and labels."""
    text = _MD_INLINE.sub(r"\\\1", text)

    def line_start(m: re.Match[str]) -> str:
        mark = m.group(2)
        return m.group(1) + (mark + "\\" if mark[0].isdigit() else "\\" + mark)

    return _MD_LINE_START.sub(line_start, text)


def marked_excerpt(text: str, terms: list[str], width: int = 420) -> str:
    """About `width` characters of `text` around its first match of a term, shown literally, each term
    found marked (case and accents as written in the text)."""
    words = sorted({w for w in terms if len(w) >= 2}, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE) if words else None
    first = pattern.search(text) if pattern else None
    start = max(0, first.start() - width // 4) if first else 0
    excerpt = text[start : start + width]
    pieces = pattern.split(excerpt) if pattern else [excerpt]
    shown = "".join(
        f":orange-background[{escape_md(piece)}]" if i % 2 else escape_md(piece) for i, piece in enumerate(pieces)
    )
    return ("… " if start else "") + shown + (" …" if start + width < len(text) else "")
