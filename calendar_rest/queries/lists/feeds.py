"""Reads of the iCalendar feeds (``calendar.md`` §1.2, §1.3, §4.7).

A feed lists events and whole series: the archive's matches are walked in its order
(UTC start, then ID) and each series is named once, by its master, at the place of its
first matching occurrence; a series is then loaded as its master and its exceptions.
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ...models import Event

#: IDs per ``IN`` list (well within every backend's limit on bound parameters)
CHUNK = 500
#: ``exception_fields`` of an occurrence that is no exception
NO_EXCEPTION = ("", "[]")


class FeedKeys(t.NamedTuple):
    #: the stand-alone events and series masters to export, in feed order
    ids: list[int]
    #: whether more than the cap matched (the feed was cut)
    cut: bool


def feed_keys(query: pw.ModelSelect[Event], cap: int) -> FeedKeys:
    """The first ``cap`` events or series the archive ``query`` matches, in its order:
    an occurrence names its master, at the place of the series' first match."""
    rows = query.select(Event.id, Event.series_master).order_by(Event.start_utc, Event.id)
    seen: dict[int, None] = {}
    for event_id, master_id in t.cast("t.Iterable[tuple[int, int | None]]", rows.tuples()):
        key = master_id or event_id
        if key in seen:
            continue
        if len(seen) == cap:
            return FeedKeys(list(seen), True)
        seen[key] = None
    return FeedKeys(list(seen), False)


def feed_units(keys: t.Sequence[int]) -> list[list[Event]]:
    """Each key's events in order: the event, or a master followed by its exceptions
    (by original start, then ID); keys whose row is gone are left out."""
    rows: dict[int, Event] = {}
    for start in range(0, len(keys), CHUNK):
        chunk = list(keys[start : start + CHUNK])
        rows.update((event.id, event) for event in Event.select().where(Event.id.in_(chunk)))
    masters = [key for key in keys if key in rows and is_master(rows[key])]
    exceptions: dict[int, list[Event]] = {}
    for start in range(0, len(masters), CHUNK):
        for event in _exceptions(masters[start : start + CHUNK]):
            exceptions.setdefault(t.cast(int, event.series_master_id), []).append(event)
    return [[rows[key], *_alive(rows[key], exceptions.get(key, []))] for key in keys if key in rows]


def series_of(event: Event) -> list[Event]:
    """A master and its exceptions; any other event alone."""
    if not is_master(event):
        return [event]
    return [event, *_alive(event, list(_exceptions([event.id])))]


def is_master(event: Event) -> bool:
    """Whether ``event`` is a series master (it has the recurrence lines, no master)."""
    return event.series_master_id is None and event.recurrence not in NO_EXCEPTION


def _exceptions(master_ids: list[int]) -> pw.ModelSelect[Event]:
    return (
        Event.select()
        .where(
            Event.series_master.in_(master_ids) & Event.exception_fields.not_in(list(NO_EXCEPTION))
        )
        .order_by(Event.original_start, Event.id)
    )


def _alive(master: Event, exceptions: list[Event]) -> list[Event]:
    """Exceptions on dates that still exist: a deleted date (a trashed occurrence) is
    an EXDATE of the master, unless the whole series is in the trash."""
    if master.status == "trash":
        return exceptions
    return [event for event in exceptions if event.status != "trash"]
