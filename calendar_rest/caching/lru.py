"""The bounded LRU under both per-process caches (``stamped.py``) and memos
(``memo.py``): at most so many entries and, optionally, at most so much weight.

Not thread-safe on its own: each user holds its own lock around it.
"""

from __future__ import annotations

import typing as t
from collections import OrderedDict

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class WeightedLRU(t.Generic[K, V]):
    """At most ``max_entries`` values, and at most ``max_weight`` of their summed
    ``weigh`` (none by default); the least recently used go first. A value heavier than
    ``max_weight`` on its own is not kept (and drops nothing)."""

    def __init__(
        self,
        max_entries: int,
        max_weight: int | None = None,
        weigh: t.Callable[[V], int] | None = None,
    ) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._weigh = weigh
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.weight = 0

    def get(self, key: K) -> V | None:
        """The value under ``key``, now the most recently used (None: none kept)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` (replacing any), then drop the least recently
        used until both bounds hold."""
        weight = self._weigh(value) if self._weigh else 0
        if self.max_entries < 1 or (self.max_weight is not None and weight > self.max_weight):
            return
        self.pop(key)
        self._entries[key] = (value, weight)
        self.weight += weight
        while len(self._entries) > self.max_entries or (
            self.max_weight is not None and self.weight > self.max_weight
        ):
            self.pop(next(iter(self._entries)))

    def pop(self, key: K) -> None:
        """Drop the value under ``key``, if any."""
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.weight -= entry[1]

    def values(self) -> list[V]:
        """The kept values, least recently used first."""
        return [value for value, _ in self._entries.values()]

    def __len__(self) -> int:
        return len(self._entries)
