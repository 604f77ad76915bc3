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
    """At most ``max_entries`` values; the least recently used go first."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: t.Callable[[], V]) -> V:
        """The value kept under ``key``, made (outside the lock) and kept if missing."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        made = make()
        with self._lock:
            self._entries[key] = made
            if len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return made

    def __len__(self) -> int:
        return len(self._entries)
