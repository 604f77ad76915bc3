"""A bounded, thread-safe memo for pure functions.

Unlike the caches of ``stamped.py``, a memo keeps values that no write can make stale:
each is kept under a key holding everything its value is made from (a built statement
under its filter, a linked record's representation under the record's row), so a
changed input is a different key, and the old entry just ages out.
"""

from __future__ import annotations

import typing as t

from .lru import TaggedLRU

K = t.TypeVar("K", bound=t.Hashable)
V = t.TypeVar("V")


class Memo(TaggedLRU[int, K, V]):
    """Bounded as :class:`~.lru.TaggedLRU` is; a value heavier than ``max_weight`` on
    its own is returned, not kept.

    Values are kept by their key's hash and tagged with the key itself: a lookup hashes
    the (large) key once and compares it once, in C; of two keys with one hash, the
    later one is kept.
    """

    def get(self, key: K, make: t.Callable[[], V]) -> V:
        """The value kept under ``key``, made (outside the lock) and kept if missing."""
        code = hash(key)
        with self._lock:
            entry = self._get(code)
        if entry is not None and entry[0] == key:  # an equal hash alone is not a hit
            return entry[1]
        made = make()
        with self._lock:
            self._put(code, (key, made))
        return made
