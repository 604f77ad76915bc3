"""The change-log entries of one series write (``sync.md`` §3.9): each row it created,
changed or deleted is reported once, at the end, with the visibility it had before
the write.

"Before" is read from the database when the write starts (:meth:`Journal.of`), never
from the rows as the write goes: a series-wide edit changes the master's status or
author first and re-expands the series afterwards, and a state taken then is already
the state after the write. Reported so, unpublishing a series would tell anonymous
copies to drop every occurrence but its master (§3.6: readable before, not after).
"""

from __future__ import annotations

import datetime as dt

from ..models import Event
from ..queries.lookups.series import series_states
from . import changes, terms


class Journal:
    """The rows one series write touched, with their states before it."""

    def __init__(self, states: dict[int, changes.Seen] | None = None) -> None:
        #: each row of the series as it was when the write began
        self.states: dict[int, changes.Seen] = dict(states or {})
        self.rows: dict[int, Event] = {}
        self.created: set[int] = set()
        self.gone: dict[int, tuple[changes.Seen, dt.datetime]] = {}
        self.term_ids: set[int] = set()

    @classmethod
    def of(cls, event: Event | None) -> Journal:
        """The journal of a write to the series ``event`` belongs to (or to ``event``
        alone, or to nothing yet: None); call it before the write changes a row."""
        if event is None:
            return cls()
        return cls(series_states(event.series_master_id or event.id))

    def note(self, row: Event) -> None:
        """A row of the series that the write changed.

        :raises RuntimeError: the row was not in the series when the write began
            (its entry would have no "before").
        """
        if row.id not in self.states and row.id not in self.created:
            raise RuntimeError(f"event {row.id} is not a row of the series written")
        self.rows[row.id] = row

    def new(self, row: Event) -> None:
        """A row the write created."""
        self.created.add(row.id)
        self.rows[row.id] = row

    def deleted(self, row: Event, when: dt.datetime) -> None:
        """A row the write deleted outright."""
        self.rows.pop(row.id, None)
        if row.id in self.created:
            self.created.discard(row.id)
            return
        self.gone[row.id] = (self.states[row.id], when)

    def flush(self) -> None:
        """Record the entries (the deletions first: SQLite may reuse a deleted ID) and
        recount the terms; what is noted afterwards is measured from here."""
        terms.refresh_term_counts(self.term_ids)
        for row_id, (before, when) in self.gone.items():
            changes.record_change("event", row_id, before, None, when)
            self.states.pop(row_id, None)
        for row_id, row in self.rows.items():
            changes.record_post_change(row, None if row_id in self.created else self.states[row_id])
            self.states[row_id] = changes.seen(row)
        self.rows, self.created, self.gone, self.term_ids = {}, set(), {}, set()
