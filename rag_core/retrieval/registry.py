"""The search channels, by name, in the order they were registered.

`register(channel)` adds a channel to every search (the package's own are registered, in the
order written in `retrieval.builtin.BUILT_IN`, when `rag_core.retrieval` is imported; a test or a
plug-in may add its own);
`unregister(name)` removes it; `channels()` lists them. The order matters: it is the order in
which the channels' votes are added in each fusion (a float sum), and the order of their columns.
This module runs no query.
"""

from __future__ import annotations

from rag_core.models import RetrievedParent
from rag_core.retrieval.base import Channel, Unit

_CHANNELS: dict[str, Channel] = {}


def register(channel: Channel) -> Channel:
    """Make `channel` part of every search (replacing a channel of the same name, in its place)."""
    if channel.unit not in ("children", "pages") or channel.group not in ("question", "other_language"):
        raise ValueError(f"channel {channel.name!r}: unknown unit {channel.unit!r} or group {channel.group!r}")
    if channel.name in RetrievedParent.model_fields:  # the CLI's JSON also puts each hit under its channel's name
        raise ValueError(f"a channel cannot be called {channel.name!r}: a field of RetrievedParent has that name")
    _CHANNELS[channel.name] = channel
    return channel


def unregister(name: str) -> None:
    """Remove the channel called `name` (nothing happens when there is none)."""
    _CHANNELS.pop(name, None)


def channels(unit: Unit | None = None) -> list[Channel]:
    """The registered channels in registration order, those ranking `unit` only when given."""
    return [c for c in _CHANNELS.values() if unit is None or c.unit == unit]


def channel(name: str) -> Channel | None:
    return _CHANNELS.get(name)
