"""Reads of recurring series (calendar.md §4): a series' rows, the links its base
values name, and the masters' lines a page of occurrences shows."""

from __future__ import annotations

import typing as t

import orjson

from ...models import Event, EventOrganizer, EventTerm, SearchWord, Term
from ..sql.prepared import fetch


def is_master(event: Event) -> bool:
    """A master holds the series' lines; an occurrence points to its master."""
    return event.series_master_id is None and bool(event.recurrence)


def master_of(event: Event) -> Event | None:
    """The master of the series ``event`` belongs to (itself for a master), None for a
    stand-alone event."""
    if event.series_master_id is not None:
        return Event.get_or_none(Event.id == event.series_master_id)
    return event if event.recurrence else None


def series_rows(master_id: int) -> list[Event]:
    """Every row of a series, master and trashed occurrences included, by original
    start then ID (instances made by ``prepared``'s loader: a series write reads
    thousands, which Peewee's own took a tenth of a second to make)."""
    found = fetch(
        Event,
        "series_rows",
        lambda: Event.select().where((Event.id == 1) | (Event.series_master == 1)),
        [master_id, master_id],
    )
    rows = [row for row, _ in found]
    return sorted(rows, key=lambda row: (row.original_start or row.start_local, row.id))


def series_states(master_id: int) -> dict[int, tuple[str, int | None]]:
    """Every row's status and author as stored, by ID: a series write reads them
    before it changes anything, as the "before" of its change-log entries."""
    query = Event.select(Event.id, Event.status, Event.author).where(
        (Event.id == master_id) | (Event.series_master == master_id)
    )
    rows = t.cast("t.Iterable[tuple[int, str, int | None]]", query.tuples())
    return {row_id: (status, author) for row_id, status, author in rows}


def live_row_count(master_id: int) -> int:
    """How many rows of a series are not in trash, its master included."""
    live = Event.status != "trash"
    query = Event.select().where(
        ((Event.id == master_id) | (Event.series_master == master_id)) & live
    )
    return int(query.count())


def live_masters() -> list[Event]:
    """Masters of series not in trash (the roll-forward's work list)."""
    return list(
        Event.select().where(
            Event.series_master.is_null(True) & (Event.recurrence != "") & (Event.status != "trash")
        )
    )


def organizer_ids(event_id: int) -> list[int]:
    """An event's organizers, in its order."""
    query = (
        EventOrganizer.select(EventOrganizer.organizer)
        .where(EventOrganizer.event == event_id)
        .order_by(EventOrganizer.position)
    )
    return [link.organizer_id for link in query]


def term_ids_by_taxonomy(event_id: int) -> dict[str, list[int]]:
    """An event's terms per taxonomy name, in its order."""
    query = (
        EventTerm.select(Term.id, Term.taxonomy)
        .join(Term, on=(EventTerm.term == Term.id))
        .where(EventTerm.event == event_id)
        .order_by(EventTerm.position)
    )
    found: dict[str, list[int]] = {}
    for term_id, taxonomy in t.cast("t.Iterable[tuple[int, str]]", query.tuples()):
        found.setdefault(taxonomy, []).append(term_id)
    return found


def terms_by_ids(ids: t.Sequence[int]) -> list[Term]:
    """Terms in the order of ``ids`` (missing ones skipped)."""
    if not ids:
        return []
    rows = {term.id: term for term in Term.select().where(Term.id.in_(list(ids)))}
    return [rows[term_id] for term_id in ids if term_id in rows]


def series_lines(events: t.Iterable[Event]) -> dict[int, list[str]]:
    """``recurrence`` of every series among ``events``, by master ID, in one query."""
    lines: dict[int, list[str]] = {}
    wanted: set[int] = set()
    for event in events:
        if is_master(event):
            lines[event.id] = orjson.loads(event.recurrence)
        elif event.series_master_id is not None:
            wanted.add(event.series_master_id)
    wanted -= set(lines)
    if wanted:
        query = Event.select(Event.id, Event.recurrence).where(Event.id.in_(sorted(wanted)))
        for row in query:
            lines[row.id] = orjson.loads(row.recurrence) if row.recurrence else []
    return lines


def stored_keys(kind: str, low: int, high: int) -> set[int]:
    """The record IDs from ``low`` to ``high`` that have words of ``kind`` stored (the
    keys of a series' shared words, ``repository.series_words``)."""
    query = (
        SearchWord.select(SearchWord.record_id)
        .where((SearchWord.kind == kind) & SearchWord.record_id.between(low, high))
        .distinct()
    )
    return {key for (key,) in t.cast("t.Iterable[tuple[int]]", query.tuples())}
