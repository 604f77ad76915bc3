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
        weigh_entry = (lambda entry: weigh(entry[1])) if weigh is not None else None
        #: by the key's hash, each with its key: a lookup hashes the (large) key once and
        #: compares it once, in C; of two keys with one hash, the later one is kept
        self._entries: WeightedLRU[int, tuple[K, V]] = WeightedLRU(
            max_entries, max_weight, weigh_entry
        )
        self._lock = threading.Lock()

    def get(self, key: K, make: t.Callable[[], V]) -> V:
        """The value kept under ``key``, made (outside the lock) and kept if missing."""
        code = hash(key)
        with self._lock:
            entry = self._entries.get(code)
        if entry is not None and entry[0] == key:  # an equal hash alone is not a hit
            return entry[1]
        made = make()
        with self._lock:
            self._entries.put(code, (key, made))
        return made

    @property
    def weight(self) -> int:
        """The summed weight of the kept values."""
        return self._entries.weight

    def __len__(self) -> int:
        return len(self._entries)
