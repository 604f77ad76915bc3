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
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ..stamped import StampedLRU

#: a built select: its SQL and parameters (also the key its total is kept under)
Statement = tuple[str, tuple[t.Any, ...]]


class CountCache:
    """Totals for one database (one cache per application)."""

    def __init__(self, max_entries: int = 1024) -> None:
        self.totals: StampedLRU[Statement, int] = StampedLRU(max_entries)

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
            found = count_rows(database, statement)
            self.totals.put(statement, generation, found)
        return found


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
