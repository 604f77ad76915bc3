"""The bounded LRU under both per-process caches (``stamped.py``) and memos
(``memo.py``): at most so many entries and, optionally, at most so much weight.

Each value is kept with a tag that says when it may be served: a memo's whole key,
a stamped entry's write generation. The lock is the subclass's to hold, because each
holds it differently: a memo makes a missing value outside it, a stamped cache drops
a stale entry inside it.
"""

from __future__ import annotations

import threading
import typing as t
from collections import OrderedDict

K = t.TypeVar("K", bound=t.Hashable)
T = t.TypeVar("T")
V = t.TypeVar("V")


class TaggedLRU(t.Generic[K, T, V]):
    """At most ``max_entries`` values, each with its tag, and at most ``max_weight`` of
    the values' summed ``weigh`` (none by default); the least recently used go first.
    A value heavier than ``max_weight`` on its own is not kept (and drops nothing).

    The ``_get``, ``_put`` and ``_pop`` helpers take no lock: subclasses hold ``_lock``
    around them.
    """

    def __init__(
        self,
        max_entries: int,
        max_weight: int | None = None,
        weigh: t.Callable[[V], int] | None = None,
    ) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._weigh = weigh
        self._entries: OrderedDict[K, tuple[tuple[T, V], int]] = OrderedDict()
        #: the summed weight of the kept values
        self.weight = 0
        self._lock = threading.Lock()

    def _get(self, key: K) -> tuple[T, V] | None:
        """The tag and value under ``key``, now the most recently used (None: none)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def _put(self, key: K, tagged: tuple[T, V]) -> None:
        """Keep ``tagged`` under ``key`` (replacing any), then drop the least recently
        used until both bounds hold."""
        weight = self._weigh(tagged[1]) if self._weigh else 0
        if self.max_entries < 1 or (self.max_weight is not None and weight > self.max_weight):
            return
        self._pop(key)
        self._entries[key] = (tagged, weight)
        self.weight += weight
        while len(self._entries) > self.max_entries or (
            self.max_weight is not None and self.weight > self.max_weight
        ):
            self._pop(next(iter(self._entries)))

    def _pop(self, key: K) -> None:
        """Drop the value under ``key``, if any."""
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.weight -= entry[1]

    def _values(self) -> list[V]:
        """The kept values, least recently used first."""
        return [tagged[1] for tagged, _ in self._entries.values()]

    def __len__(self) -> int:
        return len(self._entries)
