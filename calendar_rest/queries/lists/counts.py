"""Exact list totals, counted once per filter and write generation.

A total (``X-WP-Total``) is a COUNT over every matching row: at 100,000 events the
default listing counts ~60,000 rows, most of a cold list's time. Every page of one
filter shares its total, and the total cannot change until a write does, so counts
are kept by the statement that counts (its SQL and parameters: the filter, the
caller's visibility and the resolved dates, so two callers share an entry only when
they would count the same rows) and stamped with the write generation the request
read at its start, as the response cache stamps its entries (``cache.py``). Totals
stay exact: TEC clients page by them.

A write in any process makes every kept total stale. An events total whose filter
judges each event by its own row and links (``ByRanges``) then catches up instead of
counting again: the change log (``queries.changes``) names the events written since
the total was counted, and only their ranges of IDs are counted again, so at
1,000,000 events an edit costs a few thousand rows read, not every match. A filter is
kept by ranges from the first write it outlives; until then one whole COUNT is the
cheaper read. When the log cannot name every change (another kind of record was
written, entries were compacted away, too many changed), the total is counted whole.

Right after a write, every thread that lists the same filter misses at once; one of
them counts and the others wait for its total (a single flight per statement and
generation), so a large table is counted once per write, not once per thread.
"""

from __future__ import annotations

import array
import dataclasses
import threading
import typing as t

import peewee as pw

from ...caching.stamped import StampedLRU
from ..sql.statements import Statement, built
from .changes import changed_events

#: how long a thread waits for another's count of the same rows before counting itself
FLIGHT_SECONDS = 30.0
#: event IDs per range a total is kept by (a range costs about this many rows to
#: count again, and one integer to keep)
ID_RANGE = 1024
#: the most logged changes a kept total catches up on; past it, a whole count is cheaper
MOST_CHANGES = 256


@dataclasses.dataclass(frozen=True)
class ByRanges:
    """How to count an events total by ranges of event IDs. Only for a filter that
    judges each event by its own row and links, never by other events' (so a write
    changes the ranges of the events it wrote, and no other)."""

    #: one row per range holding matches: its number (ID // width), its matches
    grouped: Statement
    #: the matches in one range; its last two parameters are the range's first and last ID
    ranged: Statement
    #: IDs per range (:data:`ID_RANGE` when built)
    width: int = ID_RANGE


#: builds a total's :class:`ByRanges` when first needed (most filters never outlive a write)
RangesOf = t.Callable[[], ByRanges]


@dataclasses.dataclass(frozen=True)
class Kept:
    """A kept total and, when kept by ranges, the matches of each range by its number
    (ID // width): 8 bytes a range, about 8 KB at 1,000,000 events. Never changed once
    kept: catching up makes a new one."""

    total: int
    ranges: array.array[int] | None = None
    width: int = ID_RANGE


@dataclasses.dataclass
class _Flight:
    """A count under way: its total once done (None if it failed)."""

    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    total: int | None = None


class CountCache:
    """Totals for one database (one cache per application)."""

    def __init__(self, max_entries: int = 1024) -> None:
        self.totals: StampedLRU[Statement, Kept] = StampedLRU(max_entries)
        self._flights: dict[tuple[Statement, int], _Flight] = {}
        self._lock = threading.Lock()

    def count(
        self,
        database: pw.Database,
        statement: Statement,
        generation: int | None,
        ranges_of: RangesOf | None = None,
    ) -> int:
        """How many rows the built ``statement`` selects (see :func:`counted_rows`);
        ``generation`` None (unknown) counts afresh. With ``ranges_of``, a total kept
        from an earlier generation catches up on the events written since."""
        if generation is None:
            return count_rows(database, statement)
        try:
            kept = self.totals.stamped(statement)
        except TypeError:  # an unhashable parameter: count without keeping it
            return count_rows(database, statement)
        if kept is not None and kept[0] == generation:
            return kept[1].total
        earlier = kept if kept is not None and kept[0] < generation else None
        return self._counted_once(
            statement,
            generation,
            lambda: _recounted(database, statement, generation, earlier, ranges_of),
            keep=kept is None or earlier is not None,
        )

    def _counted_once(
        self,
        statement: Statement,
        generation: int,
        recount: t.Callable[[], Kept],
        keep: bool,
    ) -> int:
        """Count, unless another thread is counting the same rows at the same
        generation: then its total (or a count of our own if it fails or takes longer
        than :data:`FLIGHT_SECONDS`). ``keep`` False: a newer total is kept already."""
        key = (statement, generation)
        with self._lock:
            flight = self._flights.get(key)
            leading = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
        if not leading:
            if flight.done.wait(FLIGHT_SECONDS) and flight.total is not None:
                return flight.total
            return recount().total
        try:
            fresh = recount()
            if keep:
                self.totals.put(statement, generation, fresh)
            flight.total = fresh.total
            return fresh.total
        finally:
            flight.done.set()
            with self._lock:
                del self._flights[key]


def _recounted(
    database: pw.Database,
    statement: Statement,
    generation: int,
    earlier: tuple[int, Kept] | None,
    ranges_of: RangesOf | None,
) -> Kept:
    """The total at ``generation``: whole, or from the ``earlier`` kept one, counting
    again only the ranges of the events written since (see the module's docstring)."""
    if ranges_of is None or earlier is None:
        return Kept(count_rows(database, statement))
    by_ranges = ranges_of()
    since, before = earlier
    written = changed_events(since, generation, MOST_CHANGES)
    if written is None:  # the log cannot say which events: count whole, as kept
        if before.ranges is None:
            return Kept(count_rows(database, statement))
        return _by_ranges(database, by_ranges)
    if before.ranges is None or before.width != by_ranges.width:
        return _by_ranges(database, by_ranges)  # the first write this filter outlives
    ranges = array.array("q", before.ranges)
    for number in {event_id // by_ranges.width for event_id in written}:
        if number >= len(ranges):
            ranges.extend([0] * (number + 1 - len(ranges)))
        ranges[number] = _range_matches(database, by_ranges, number)
    return Kept(sum(ranges), ranges, by_ranges.width)


def _by_ranges(database: pw.Database, by_ranges: ByRanges) -> Kept:
    sql, params = by_ranges.grouped
    rows = database.execute_sql(sql, list(params)).fetchall()
    ranges = array.array("q", [0] * (max((int(row[0]) for row in rows), default=-1) + 1))
    for number, matches in rows:
        ranges[int(number)] = int(matches)
    return Kept(sum(ranges), ranges, by_ranges.width)


def _range_matches(database: pw.Database, by_ranges: ByRanges, number: int) -> int:
    sql, params = by_ranges.ranged
    bounds = [number * by_ranges.width, (number + 1) * by_ranges.width - 1]
    row = database.execute_sql(sql, [*params[:-2], *bounds]).fetchone()
    return int(row[0]) if row else 0


def counted(key: tuple[t.Any, ...], build: t.Callable[[], pw.ModelSelect[t.Any]]) -> Statement:
    """:func:`~..sql.statements.built` for the rows a list's total counts
    (:func:`counted_rows`)."""
    return built(("count", *key), lambda: counted_rows(build()))


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
