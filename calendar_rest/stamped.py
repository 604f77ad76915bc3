"""A thread-safe LRU whose entries hold at one write generation only.

Both per-process caches (responses in ``cache.py``, list totals in
``queries/counts.py``) keep what a read computed, stamped with the write generation
the request read at its start; an entry is reused only at that same generation, so a
write in any process makes it stale, and a stale entry is dropped when met.
"""

from __future__ import annotations

import threading
import typing as t
from collections import OrderedDict

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class StampedLRU(t.Generic[K, V]):
    """At most ``max_entries`` values, and at most ``max_weight`` of their summed
    ``weigh`` (none by default); the least recently used go first."""

    def __init__(
        self,
        max_entries: int,
        max_weight: int | None = None,
        weigh: t.Callable[[V], int] | None = None,
    ) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._weigh = weigh
        self._entries: OrderedDict[K, tuple[int, V]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K, generation: int) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] != generation:
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: K, generation: int, value: V) -> None:
        if self.max_entries < 1:
            return
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = (generation, value)
            self._weight += self._weigh(value) if self._weigh else 0
            while len(self._entries) > self.max_entries or (
                self.max_weight is not None and self._weight > self.max_weight
            ):
                self._drop(next(iter(self._entries)))

    def _drop(self, key: K) -> None:
        _, value = self._entries.pop(key)
        self._weight -= self._weigh(value) if self._weigh else 0

    def __len__(self) -> int:
        return len(self._entries)
