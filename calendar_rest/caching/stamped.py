"""A thread-safe LRU whose entries hold at one write generation only.

Both per-process caches (responses in ``edge/cache.py``, list totals in
``queries/lists/counts.py``) keep what a read computed, stamped with the write generation
the request read at its start; an entry is reused only at that same generation, so a
write in any process makes it stale. A stale response is dropped when met; a stale
total is read with its generation (:meth:`StampedLRU.stamped`) to catch up on the
writes since.
"""

from __future__ import annotations

import typing as t

from .lru import TaggedLRU

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class StampedLRU(TaggedLRU[K, int, V]):
    """Bounded as :class:`~.lru.TaggedLRU` is; each value tagged with the write
    generation it was computed at."""

    def get(self, key: K, generation: int) -> V | None:
        with self._lock:
            entry = self._get(key)
            if entry is None:
                return None
            if entry[0] != generation:
                self._pop(key)
                return None
            return entry[1]

    def stamped(self, key: K) -> tuple[int, V] | None:
        """The value kept under ``key`` with its generation, whatever that is (for a
        value that can catch up on the writes since, as list totals do)."""
        with self._lock:
            return self._get(key)

    def put(self, key: K, generation: int, value: V) -> None:
        with self._lock:
            self._put(key, (generation, value))

    def values(self) -> list[V]:
        """The kept values, whatever their generation."""
        with self._lock:
            return self._values()
