"""Exact list totals, counted once per filter and write generation.

A total (``X-WP-Total``) is a COUNT over every matching row: at 100,000 events the
default listing counts ~60,000 rows, most of a cold list's time. Every page of one
filter shares its total, and the total cannot change until a write does, so counts
are kept by the statement that counts (its SQL and parameters: the filter, the
caller's visibility and the resolved dates, so two callers share an entry only when
they would count the same rows) and stamped with the write generation the request
read at its start, as the response cache stamps its entries (``cache.py``): any
write, in any process, makes every count stale. Totals stay exact: TEC clients page
by them.

Right after a write, every thread that lists the same filter misses at once; one of
them counts and the others wait for its total (a single flight per statement and
generation), so a large table is counted once per write, not once per thread.
"""

from __future__ import annotations

import dataclasses
import threading
import typing as t

import peewee as pw

from ..stamped import StampedLRU

#: a built select: its SQL and parameters (also the key its total is kept under)
Statement = tuple[str, tuple[t.Any, ...]]
#: how long a thread waits for another's count of the same rows before counting itself
FLIGHT_SECONDS = 30.0


@dataclasses.dataclass
class _Flight:
    """A count under way: its total once done (None if it failed)."""

    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    total: int | None = None


class CountCache:
    """Totals for one database (one cache per application)."""

    def __init__(self, max_entries: int = 1024) -> None:
        self.totals: StampedLRU[Statement, int] = StampedLRU(max_entries)
        self._flights: dict[tuple[Statement, int], _Flight] = {}
        self._lock = threading.Lock()

    def count(self, database: pw.Database, statement: Statement, generation: int | None) -> int:
        """How many rows the built ``statement`` selects (see :func:`counted_rows`);
        ``generation`` None (unknown) counts afresh."""
        if generation is None:
            return count_rows(database, statement)
        try:
            found = self.totals.get(statement, generation)
        except TypeError:  # an unhashable parameter: count without keeping it
            return count_rows(database, statement)
        if found is None:
            found = self._counted_once(database, statement, generation)
        return found

    def _counted_once(self, database: pw.Database, statement: Statement, generation: int) -> int:
        """Count, unless another thread is counting the same rows at the same
        generation: then its total (or a count of our own if it fails or takes longer
        than :data:`FLIGHT_SECONDS`)."""
        key = (statement, generation)
        with self._lock:
            flight = self._flights.get(key)
            leading = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
        if not leading:
            if flight.done.wait(FLIGHT_SECONDS) and flight.total is not None:
                return flight.total
            return count_rows(database, statement)
        try:
            flight.total = count_rows(database, statement)
            self.totals.put(statement, generation, flight.total)
            return flight.total
        finally:
            flight.done.set()
            with self._lock:
                del self._flights[key]


def counted_rows(query: pw.ModelSelect[t.Any]) -> pw.ModelSelect[t.Any]:
    """What Peewee's ``count()`` wraps: the rows, unordered, as a constant column (so
    an index that covers the filter serves the count alone)."""
    plain = query.order_by()
    shaping = ("_group_by", "_having", "_windows", "_simple_distinct", "_distinct")
    if any(getattr(plain, name, None) for name in shaping):
        return plain  # the selected columns decide what is counted
    return plain.select(pw.SQL("1"))


def count_rows(database: pw.Database, statement: Statement) -> int:
    """Peewee's ``count()`` of a built statement: the selection wrapped in a COUNT."""
    sql, params = statement
    cursor = database.execute_sql(f"SELECT COUNT(1) FROM ({sql}) AS _counted", list(params))
    row = cursor.fetchone()
    return int(row[0]) if row else 0
