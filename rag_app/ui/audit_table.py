"""The audit trail as a table in the page's language: its columns named, its events, channels and
yes/no written in words, lists joined; the fields of one kind of event only folded into one column.

The trail itself (rag_core) and its CSV export keep the stored names (`at`, `event`, `True`, `[]`):
they are for tools; this table is for the person reading the page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import pandas as pd

from rag_app.ui.i18n import STRINGS, t
from rag_core.pipeline import AUDIT_COLUMNS, Principal

LOCAL_USER = Principal.local_operator().user  # the local mode's operator, named in the page's language

# the trail's named fields, with who acted through which channel after the user; the rest folded into one
COLUMNS = (*AUDIT_COLUMNS[:4], "admin", "channel", *AUDIT_COLUMNS[4:-1])
FOLDED = AUDIT_COLUMNS[-1]  # every other field, "name: value" (a question, a scope, an event's own details)


def cell(value: Any) -> str:
    """A stored value in words: yes/no for a flag, a list joined, nothing for an empty one."""
    if isinstance(value, bool):
        return t("audit.yes") if value else t("audit.no")
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {cell(v)}" for k, v in value.items() if cell(v))
    return str(value)


def _when(value: Any) -> str:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return cell(value)
    return moment.strftime("%d/%m/%Y %H:%M:%S" if t("audit.date_format").startswith("DD") else "%Y-%m-%d %H:%M:%S")


def _word(kind: str, value: Any) -> str:
    key = f"audit.{kind}.{value}"
    return t(key) if key in STRINGS else cell(value)


def audit_row(event: Mapping[str, Any]) -> dict[str, str]:
    """One event's cells, keyed by the stored names of `COLUMNS` and `FOLDED`."""
    row = {name: cell(event.get(name)) for name in COLUMNS}
    row["at"] = _when(event.get("at", ""))
    row["event"] = _word("event", event.get("event", ""))
    row["channel"] = _word("channel", event.get("channel", ""))
    if event.get("user") == LOCAL_USER:
        row["user"] = t("audit.local_user")
    rest = {k: v for k, v in event.items() if k not in COLUMNS}
    row[FOLDED] = cell(rest)
    return row


def audit_frame(events: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The events as a table whose columns are named in the page's language; a column empty in every
    row is left out."""
    frame = pd.DataFrame([audit_row(e) for e in events], columns=[*COLUMNS, FOLDED])
    frame = frame.loc[:, [c for c in frame.columns if c in ("at", "event") or frame[c].astype(bool).any()]]
    frame.columns = [t(f"audit.col.{c}") for c in frame.columns]
    return frame
