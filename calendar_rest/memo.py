"""A bounded, thread-safe memo for pure functions.

Unlike the caches of ``stamped.py``, a memo keeps values that no write can make stale:
each is kept under a key holding everything its value is made from (a built statement
under its filter, a linked record's representation under the record's row), so a
changed input is a different key, and the old entry just ages out.
"""

from __future__ import annotations

import threading
import typing as t
from collections import OrderedDict

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class Memo(t.Generic[K, V]):
    """At most ``max_entries`` values, and at most ``max_weight`` of their summed
    ``weigh`` (none by default); the least recently used go first. A value heavier than
    ``max_weight`` on its own is returned, not kept."""

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
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K, make: t.Callable[[], V]) -> V:
        """The value kept under ``key``, made (outside the lock) and kept if missing."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found[0]
        made = make()
        weight = self._weigh(made) if self._weigh else 0
        if self.max_weight is not None and weight > self.max_weight:
            return made
        with self._lock:
            replaced = self._entries.pop(key, None)
            self._weight -= replaced[1] if replaced else 0
            self._entries[key] = (made, weight)
            self._weight += weight
            while len(self._entries) > self.max_entries or (
                self.max_weight is not None and self._weight > self.max_weight
            ):
                self._weight -= self._entries.popitem(last=False)[1][1]
        return made

    @property
    def weight(self) -> int:
        """The summed weight of the kept values."""
        return self._weight

    def __len__(self) -> int:
        return len(self._entries)
