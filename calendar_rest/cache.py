"""A response cache that stays correct across processes sharing one database.

Entries are stamped with the database's write generation (``state.GENERATION``),
which every write bumps inside its own transaction. A request reads the current
generation (one primary-key read) and only reuses an entry stamped with it, so a
write made by any process invalidates everything every process cached.
"""

from __future__ import annotations

import threading
import typing as t
from collections import OrderedDict

Key = tuple[t.Hashable, ...]


class CachedResponse(t.NamedTuple):
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


class ResponseCache:
    """A thread-safe LRU of response bodies, bounded by entries and by bytes."""

    def __init__(self, max_entries: int = 2048, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Key, tuple[int, CachedResponse]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Key, generation: int) -> CachedResponse | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] != generation:
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: Key, generation: int, response: CachedResponse) -> None:
        size = len(response.body)
        if self.max_entries < 1 or size > self.max_bytes // 4:
            return
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = (generation, response)
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                self._drop(next(iter(self._entries)))

    def _drop(self, key: Key) -> None:
        _, response = self._entries.pop(key)
        self._bytes -= len(response.body)

    def __len__(self) -> int:
        return len(self._entries)
