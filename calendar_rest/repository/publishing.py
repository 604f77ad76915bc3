"""Scheduled publication: a ``future`` record is published once its date has come.

Publication must not depend on a scheduler (the app can be embedded), so it is lazy:
before a request is served, :meth:`Publisher.catch_up` compares the clock with the
earliest pending publication date it keeps in memory (one comparison in the common
case) and, when one is due, publishes every due event, venue and organizer in one
write transaction, which bumps the write generation (so every process drops what it
cached) and recounts the terms of the events published. The earliest date is reloaded
whenever the write generation has changed, since any write may have scheduled one.
"""

from __future__ import annotations

import datetime as dt
import threading

import peewee as pw

from ..clock import Clock, utc_now
from ..dates import from_utc
from ..db import write_transaction
from ..models import Event, Organizer, PostModel, Venue
from ..queries.lists.changes import POST_TYPES
from ..queries.lookups.site_state import generation
from ..queries.lookups.terms import terms_of_events
from .changes import collecting_changes, record_change
from .terms import refresh_term_counts

SCHEDULED = (Event, Venue, Organizer)
UTC = dt.timezone.utc


class Publisher:
    """The lazy publisher of one app (thread-safe; any number of processes)."""

    def __init__(self, database: pw.Database, clock: Clock, site_zone: dt.tzinfo = UTC) -> None:
        self.database = database
        self.clock = clock
        self.site_zone = site_zone
        self._lock = threading.Lock()
        #: the write generation the earliest date was read at (None: never read)
        self._generation: int | None = None
        self._earliest: dt.datetime | None = None

    def due(self, current: int) -> bool:
        """Whether :meth:`catch_up` would publish something now, at the ``current`` write
        generation; reads only (a read replica can answer). Needs an open connection."""
        now = utc_now(self.clock)
        if self._generation == current and (self._earliest is None or self._earliest > now):
            return False
        with self._lock:
            if self._generation != current:
                self._earliest, self._generation = earliest_scheduled(), current
            return self._earliest is not None and self._earliest <= now

    def catch_up(self, current: int) -> int:
        """Publish what is due, given the ``current`` write generation; returns the
        generation after it (changed when something was published). Needs an open
        connection."""
        if self._generation == current and self._earliest is None:
            return current  # nothing is scheduled: no need for the time
        now = utc_now(self.clock)
        if self._generation == current and (self._earliest is None or self._earliest > now):
            return current
        with self._lock:
            if self._generation != current:
                self._earliest, self._generation = earliest_scheduled(), current
            if self._earliest is None or self._earliest > now:
                return current
            with write_transaction(self.database), collecting_changes() as changes:
                publish_due(now, self.site_zone)
                changes.commit()
            current = generation()
            self._earliest, self._generation = earliest_scheduled(), current
            return current


def earliest_scheduled() -> dt.datetime | None:
    """The earliest publication date of a ``future`` record: one statement, an index
    range on ``(status, date_utc)`` per table."""
    selects = [
        model.select(pw.fn.MIN(model.date_utc).alias("due")).where(model.status == "future")
        for model in SCHEDULED
    ]
    union: pw.SelectBase = selects[0]
    for select in selects[1:]:
        union = union + select  # UNION ALL
    dates = [_as_datetime(row[0]) for row in union.tuples() if row[0] is not None]
    return min(dates) if dates else None


def _as_datetime(value: object) -> dt.datetime:
    """A date as the driver returns it (SQLite: text)."""
    return value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))


def publish_due(now: dt.datetime, site_zone: dt.tzinfo = UTC) -> dict[type[PostModel], list[int]]:
    """Publish every ``future`` record dated ``now`` or earlier; returns their IDs.

    Publishing is a write of the status, so it stamps ``modified`` with ``now``:
    a client syncing with ``modified_after`` learns of the record only then.
    """
    stamp = {"modified_utc": now, "modified": from_utc(now, site_zone)}
    published: dict[type[PostModel], list[int]] = {}
    for model in SCHEDULED:
        due = model.select(model.id, model.author).where(
            (model.status == "future") & (model.date_utc <= now)
        )
        rows = [(row.id, row.author_id) for row in due]
        if rows:
            ids = [record_id for record_id, _ in rows]
            model.update(status="publish", **stamp).where(model.id.in_(ids)).execute()
            published[model] = ids
            for record_id, author in rows:  # a change of visibility, for the change feed
                record_change(
                    POST_TYPES[model], record_id, ("future", author), ("publish", author), now
                )
    refresh_term_counts(terms_of_events(published.get(Event, [])))
    return published
