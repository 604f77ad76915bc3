"""Event look-ups by ID and by slug, on prepared SQL (the single-event hot path)."""

from __future__ import annotations

import typing as t

import peewee as pw

from ...models import ChangeEntry, Event, PostModel, User, Venue, could_exist
from ...rules.permissions import can_read
from ..sql.linked_json import Linked, carries_linked, linked_columns, split_linked
from ..sql.prepared import fetch
from ..sql.rows import as_row, fetch_rows
from ..sql.visibility import readable


class ShownEvent(t.NamedTuple):
    """An event as a single read shows it, read in one statement: its venue (None:
    it has none), its revision (the position of its latest change, 0: none) and its
    organizers and terms (``linked_json.py``; None: the backend reads them apart).
    The records are read-only rows (``rows.py``)."""

    event: Event
    venue: Venue | None
    revision: int
    linked: Linked | None


def event_by_id(event_id: int) -> Event | None:
    if not could_exist(event_id):
        return None
    rows = fetch(Event, "event_by_id", lambda: Event.select().where(Event.id == 1), [event_id])
    return rows[0][0] if rows else None


def shown_event(event_id: int) -> ShownEvent | None:
    """The event ``event_id`` with its venue and revision, and its organizers and terms
    where the backend aggregates them (``linked_json.py``), in one statement."""
    if not could_exist(event_id):
        return None
    database = Event._meta.database
    carried = carries_linked(database)
    rows = fetch_rows(
        Event, ("shown_event", carried), lambda: _shown_event_query(carried), ["event", event_id]
    )
    if not rows:
        return None
    event, (revision, *rest) = rows[0]
    venue_row, linked = split_linked(database, rest)
    venue = as_row(Venue, venue_row) if venue_row[0] is not None else None
    return ShownEvent(event, venue, int(revision or 0), linked)


def shown_events(event_ids: t.Sequence[int]) -> dict[int, ShownEvent]:
    """:func:`shown_event` of each ID that names an event, a statement per batch of
    :data:`SHOWN_BATCH` (a series write announces thousands to its webhooks)."""
    database = Event._meta.database
    carried = carries_linked(database)
    wanted = sorted({event_id for event_id in event_ids if could_exist(event_id)})
    shown: dict[int, ShownEvent] = {}
    for start in range(0, len(wanted), SHOWN_BATCH):
        batch = wanted[start : start + SHOWN_BATCH]
        size = len(batch)
        rows = fetch_rows(
            Event,
            ("shown_events", carried, size),
            lambda: _shown_event_query(carried, Event.id.in_([0] * size)),  # noqa: B023
            ["event", *batch],
        )
        for event, (revision, *rest) in rows:
            venue_row, linked = split_linked(database, rest)
            venue = as_row(Venue, venue_row) if venue_row[0] is not None else None
            shown[event.id] = ShownEvent(event, venue, int(revision or 0), linked)
    return shown


#: events :func:`shown_events` reads per statement
SHOWN_BATCH = 500


def _shown_event_query(carried: bool, which: pw.Expression | None = None) -> pw.Select:
    revision = ChangeEntry.select(pw.fn.MAX(ChangeEntry.position)).where(
        (ChangeEntry.record_type == "event") & (ChangeEntry.record_id == Event.id)
    )
    linked = linked_columns(Event._meta.database) if carried else ()
    return (
        Event.select(Event, revision.alias("revision"), Venue, *linked)
        .join(Venue, pw.JOIN.LEFT_OUTER, on=(Venue.id == Event.venue_id))
        .where(Event.id == 1 if which is None else which)
    )


def event_by_slug(slug: str) -> Event | None:
    rows = fetch(Event, "event_by_slug", lambda: Event.select().where(Event.slug == "x"), [slug])
    return rows[0][0] if rows else None


def readable_event(event_id: int, user: User | None) -> Event | None:
    """The event ``event_id`` if ``user`` may read it: a hidden event is answered as a
    missing one, so that its existence is not revealed."""
    event = event_by_id(event_id)
    return event if event is not None and can_read(user, event) else None


def readable_ids(model: type[PostModel], ids: t.Sequence[int], user: User | None) -> set[int]:
    """Which of ``ids`` name a record of ``model`` that ``user`` may read."""
    wanted = [record_id for record_id in ids if could_exist(record_id)]
    if not wanted:
        return set()
    query = model.select(model.id).where(model.id.in_(wanted) & readable(model, user))
    return {row.id for row in query}
