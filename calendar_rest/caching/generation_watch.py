"""Knowing, without a query, that no process has written a SQLite database since this
one last read its write generation.

Every request starts by reading the write generation (``queries.site_state``): the
response cache, the list totals and the publication of scheduled records depend on
it, and any process may have written since. On SQLite that read is one statement per
request, about a third of an answer from the response cache, and more on a busy
server, where each statement hands the interpreter lock to another thread.

All the processes that write a SQLite file run on the machine that holds it, so they
can share memory, as SQLite's own WAL index does: a small file beside the database,
``<file>-generation``, mapped into each process. Every commit on the database writes
a fresh random value into it once the commit is done (:meth:`GenerationWatch.written`),
before the request that wrote answers. A reader reads the value, then the generation
from the database, and keeps both: as long as the value is unchanged, no commit has
finished since, and the kept generation is current (:meth:`GenerationWatch.current`).

A process that dies between its commit and writing the value, or a program that
writes the database without this module, leaves the value unchanged: so a kept
generation is trusted for at most :data:`RECHECK_SECONDS`, then read again. Where the
file cannot be created or mapped (a read-only directory), every request reads the
database, as before.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import random
import struct
import threading
import time
import typing as t

log = logging.getLogger("calendar_rest")

#: how long a kept generation is trusted without reading the database again
RECHECK_SECONDS = 1.0
#: the file beside the database: ``<database file>`` + this
SUFFIX = "-generation"
_VALUE = struct.Struct("<Q")


class SharedValue:
    """A 64-bit value in a file mapped into every process that opens it."""

    def __init__(self, path: str) -> None:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if os.fstat(descriptor).st_size < _VALUE.size:
                os.ftruncate(descriptor, _VALUE.size)  # grown, never shrunk
            self._map = mmap.mmap(descriptor, _VALUE.size)
        finally:
            os.close(descriptor)

    def read(self) -> int:
        value: int = _VALUE.unpack_from(self._map)[0]
        return value

    def write(self, value: int) -> None:
        _VALUE.pack_into(self._map, 0, value)

    def close(self) -> None:
        self._map.close()  # and the descriptor the mapping holds


class GenerationWatch:
    """The shared value of one database file, and what this process last read with it."""

    def __init__(
        self,
        database_path: str,
        recheck: float = RECHECK_SECONDS,
        clock: t.Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = database_path + SUFFIX
        self.recheck = recheck
        self.clock = clock
        self._shared: SharedValue | None = None
        self._opened = False
        self._open_lock = threading.Lock()
        #: (the shared value read before the database, the generation read, trusted until)
        self._kept: tuple[int, int, float] | None = None

    def _value(self) -> SharedValue | None:
        if not self._opened:
            with self._open_lock:
                if not self._opened:
                    try:
                        self._shared = SharedValue(self.path)
                    except (OSError, ValueError) as exc:
                        log.warning(
                            "no shared write signal at %s (%s): reads check", self.path, exc
                        )
                    self._opened = True
        return self._shared

    def current(self, read: t.Callable[[], int]) -> int:
        """The write generation: the one kept, while no commit finished since it was
        read and it is recent enough; else ``read()`` (from the database), then kept."""
        shared = self._value()
        if shared is None:
            return read()
        try:
            seen = shared.read()
        except ValueError:  # closed meanwhile (``close``)
            return read()
        now = self.clock()
        kept = self._kept
        if kept is not None and kept[0] == seen and now < kept[2]:
            return kept[1]
        generation = read()  # after the shared value: a commit after it changes it
        self._kept = (seen, generation, now + self.recheck)
        return generation

    def written(self) -> None:
        """A commit on the database has finished: tell every process (and this one)."""
        self._kept = None
        shared = self._value()
        if shared is not None:
            with contextlib.suppress(ValueError):  # closed meanwhile: nobody to tell here
                shared.write(random.getrandbits(64))

    def close(self) -> None:
        """Unmap the shared file (a process about to fork workers keeps nothing of the
        database open); the next use maps it again."""
        with self._open_lock:
            shared, self._shared, self._opened, self._kept = self._shared, None, False, None
        if shared is not None:
            shared.close()
