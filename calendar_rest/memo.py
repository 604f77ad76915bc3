"""A bounded, thread-safe memo for pure functions.

Unlike the caches of ``stamped.py``, a memo keeps values that no write can make stale:
each is kept under a key holding everything its value is made from (a built statement
under its filter, a linked record's representation under the record's row), so a
changed input is a different key, and the old entry just ages out.
"""

from __future__ import annotations

import threading
import typing as t

from .lru import WeightedLRU

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class _Hashed:
    """A key whose hash is computed once: a memo's keys are large tuples (a record's
    whole row), and a lookup hashes its key up to four times."""

    __slots__ = ("key", "hash")

    def __init__(self, key: t.Hashable) -> None:
        self.key = key
        self.hash = hash(key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Hashed) and self.hash == other.hash and self.key == other.key


class Memo(t.Generic[K, V]):
    """At most ``max_entries`` values, and at most ``max_weight`` of their summed
    ``weigh`` (none by default); the least recently used go first (``lru.py``). A value
    heavier than ``max_weight`` on its own is returned, not kept."""

    def __init__(
        self,
        max_entries: int,
        max_weight: int | None = None,
        weigh: t.Callable[[V], int] | None = None,
    ) -> None:
        self._entries: WeightedLRU[_Hashed, V] = WeightedLRU(max_entries, max_weight, weigh)
        self._lock = threading.Lock()

    def get(self, key: K, make: t.Callable[[], V]) -> V:
        """The value kept under ``key``, made (outside the lock) and kept if missing."""
        hashed = _Hashed(key)
        with self._lock:
            found = self._entries.get(hashed)
        if found is not None:
            return found
        made = make()
        with self._lock:
            self._entries.put(hashed, made)
        return made

    @property
    def weight(self) -> int:
        """The summed weight of the kept values."""
        return self._entries.weight

    def __len__(self) -> int:
        return len(self._entries)
