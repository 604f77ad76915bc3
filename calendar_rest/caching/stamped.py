"""A thread-safe LRU whose entries hold at one write generation only.

Both per-process caches (responses in ``cache.py``, list totals in
``queries/counts.py``) keep what a read computed, stamped with the write generation
the request read at its start; an entry is reused only at that same generation, so a
write in any process makes it stale. A stale response is dropped when met; a stale
total is read with its generation (:meth:`StampedLRU.stamped`) to catch up on the
writes since.
"""

from __future__ import annotations

import threading
import typing as t

from .lru import WeightedLRU

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class StampedLRU(t.Generic[K, V]):
    """At most ``max_entries`` values, and at most ``max_weight`` of their summed
    ``weigh`` (none by default); the least recently used go first (``lru.py``)."""

    def __init__(
        self,
        max_entries: int,
        max_weight: int | None = None,
        weigh: t.Callable[[V], int] | None = None,
    ) -> None:
        self._entries: WeightedLRU[K, tuple[int, V]] = WeightedLRU(
            max_entries, max_weight, (lambda entry: weigh(entry[1])) if weigh else None
        )
        self._lock = threading.Lock()

    def get(self, key: K, generation: int) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] != generation:
                self._entries.pop(key)
                return None
            return entry[1]

    def stamped(self, key: K) -> tuple[int, V] | None:
        """The value kept under ``key`` with its generation, whatever that is (for a
        value that can catch up on the writes since, as list totals do)."""
        with self._lock:
            return self._entries.get(key)

    def put(self, key: K, generation: int, value: V) -> None:
        with self._lock:
            self._entries.put(key, (generation, value))

    def values(self) -> list[V]:
        """The kept values, whatever their generation."""
        with self._lock:
            return [value for _, value in self._entries.values()]

    def __len__(self) -> int:
        return len(self._entries)
