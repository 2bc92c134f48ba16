"""The search channels, by name, in the order they were registered, each checked when it registers.

`register(channel)` adds a channel to every search (the package's own are registered, in the
order written in `retrieval.builtin.BUILT_IN`, when `rag_core.retrieval` is imported; a test or a
plug-in may add its own); it refuses a channel whose declaration is wrong (`ChannelError`: an
unknown unit, group or role, a weight setting that is not a float field of `RetrievalSettings`, a
second channel with the same role in a group...), so a misspelt setting fails at import, not at
the first search. `unregister(name)` removes it; `channels()` lists them; `with_role` finds the
channel a rule reads by its role (`base.ROLES`); `only(...)` runs a block with other channels
(tests of the fusion's mechanics). The order matters: it is the order in which the channels'
votes are added in each fusion (a float sum), and the order of their columns.
This module runs no query.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterator
from typing import get_args

from rag_core.config import RetrievalSettings
from rag_core.models import RetrievedParent
from rag_core.retrieval.base import ROLES, Channel, Group, Role, Unit

_CHANNELS: dict[str, Channel] = {}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class ChannelError(ValueError):
    """A channel declared wrongly (a developer's mistake, refused when it registers)."""


def register(channel: Channel) -> Channel:
    """Make `channel` part of every search (replacing a channel of the same name, in its place)."""
    check(channel)
    _CHANNELS[channel.name] = channel
    return channel


def check(channel: Channel) -> None:
    """Raise `ChannelError` saying what is wrong with the channel's declaration, if anything is."""
    name = getattr(channel, "name", None)
    if not isinstance(name, str) or not _NAME.match(name):
        raise ChannelError(f"a channel's name must be lower-case letters, digits and '_': got {name!r}")
    missing = [a for a in _DECLARED if not hasattr(channel, a)] + [
        m for m in ("applies", "run") if not callable(getattr(channel, m, None))
    ]
    if missing:
        raise ChannelError(f"channel {name!r} does not declare {', '.join(missing)}")
    if name in RetrievedParent.model_fields:  # the CLI's JSON also puts each hit under its channel's name
        raise ChannelError(f"a channel cannot be called {name!r}: a field of RetrievedParent has that name")
    _check_value(name, "unit", channel.unit, get_args(Unit))
    _check_value(name, "group", channel.group, get_args(Group))
    _check_value(name, "role", channel.role, (None, *ROLES))
    _check_weight(name, channel.weight_setting)
    for attribute in ("label_key", "report_name"):
        if not isinstance(getattr(channel, attribute), str) or not getattr(channel, attribute):
            raise ChannelError(f"channel {name!r}: {attribute} must be a non-empty string")
    if not isinstance(channel.passage_priority, int):
        raise ChannelError(f"channel {name!r}: passage_priority must be an integer")
    holder = with_role(channel.role, channel.group) if channel.role is not None else None
    if holder is not None and holder.name != name:
        raise ChannelError(
            f"channel {name!r}: the {channel.group!r} group already has a {channel.role!r} channel "
            f"({holder.name!r}); a rule reads one channel per role and group"
        )


_DECLARED = ("unit", "group", "weight_setting", "label_key", "role", "report_name", "passage_priority")


def _check_value(name: str, attribute: str, value: object, allowed: tuple[object, ...]) -> None:
    if value not in allowed:
        raise ChannelError(f"channel {name!r}: unknown {attribute} {value!r} (one of {', '.join(map(repr, allowed))})")


def _check_weight(name: str, setting: object) -> None:
    """The weight setting names a float field of `RetrievalSettings` (None: the channel weighs 1.0)."""
    if setting is None:
        return
    numbers = sorted(f for f, info in RetrievalSettings.model_fields.items() if info.annotation is float)
    if setting not in numbers:
        close = difflib.get_close_matches(str(setting), numbers, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (float fields: {', '.join(numbers)})"
        raise ChannelError(
            f"channel {name!r}: weight setting {setting!r} is not a float field of RetrievalSettings{hint}"
        )


def unregister(name: str) -> None:
    """Remove the channel called `name` (nothing happens when there is none)."""
    _CHANNELS.pop(name, None)


def channels(unit: Unit | None = None) -> list[Channel]:
    """The registered channels in registration order, those ranking `unit` only when given."""
    return [c for c in _CHANNELS.values() if unit is None or c.unit == unit]


def channel(name: str) -> Channel | None:
    return _CHANNELS.get(name)


def with_role(role: Role, group: Group = "question") -> Channel | None:
    """The registered channel that has `role` in `group` (`base.ROLES`), None when none has."""
    return next((c for c in _CHANNELS.values() if c.role == role and c.group == group), None)


@contextlib.contextmanager
def only(*replacements: Channel) -> Iterator[None]:
    """Run the block with exactly these channels registered (in this order), then restore the registry."""
    saved = dict(_CHANNELS)
    _CHANNELS.clear()
    try:
        for c in replacements:
            register(c)
        yield
    finally:
        _CHANNELS.clear()
        _CHANNELS.update(saved)
