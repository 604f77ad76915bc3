"""Recurring series as rows (calendar.md §4.1, §4.4, §4.6): occurrences materialised
up to the horizon, re-expansion that keeps IDs, and the roll-forward.

A series is its master (the first occurrence, holding ``recurrence``, the base values
in ``series_base`` and ``materialised_until``) and one ``Event`` row per occurrence
(``series_master``, ``original_start``, ``exception_fields``). Every occurrence shares
the master's UID, and the search words of the text it did not change alone
(``series_words``). Expansion is ``dates.recurrence``'s; this module decides which
rows a write creates, moves or deletes (``series_rows`` writes them in bulk) and
reports each in the change log, once per write (``series_journal.Journal``).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import typing as t

import orjson

from ..caching.memo import Memo
from ..dates import format_datetime, from_utc, resolve_timezone, to_utc
from ..dates.recurrence import Anchor, RecurrenceError, localise_lines, within
from ..errors import ParamErrors, bad_param
from ..models import Event
from ..queries.lookups.series import master_of, series_rows
from ..settings import Settings
from .posts import WriteContext
from .series_journal import Journal
from .series_rows import delete_rows, insert_occurrences, occurrence_rows, save_dates
from .series_values import (
    DATES,
    SERIES_FIELDS,
    anchor_of,
    base_of,
    exceptions_of,
    lines_of,
    place,
    restamp,
    set_exceptions,
    store_base,
    values_of,
)
from .series_words import adopt_words, keys_in_use, reclaim_words, sharing_key, store_shared_words
from .site_state import note_event_seconds
from .word_index import index_record


@dataclasses.dataclass(frozen=True)
class SeriesLimits:
    """How far ahead occurrences exist, and the most one write may create (§4.6)."""

    horizon_days: int = 730
    max_occurrences: int = 2000

    @classmethod
    def from_settings(cls, settings: Settings) -> SeriesLimits:
        return cls(settings.recurrence_horizon_days, settings.recurrence_max_occurrences)


def occurrence_slugs(series_slug: str, starts: t.Sequence[dt.datetime]) -> dict[dt.datetime, str]:
    """``<series slug>-<YYYY-MM-DD>``, plus ``-<HHMM>`` on days with several."""
    per_day = collections.Counter(start.date() for start in starts)
    return {
        start: f"{series_slug}-{start:%Y-%m-%d}"
        + (f"-{start:%H%M}" if per_day[start.date()] > 1 else "")
        for start in starts
    }


def horizon(
    now: dt.datetime, anchor: Anchor, limits: SeriesLimits
) -> tuple[dt.datetime, dt.datetime]:
    """The horizon in UTC and as local time of the series zone."""
    until = now + dt.timedelta(days=limits.horizon_days)
    return until, from_utc(until, anchor.zone)


def expand(
    lines: t.Sequence[str], anchor: Anchor, now: dt.datetime, limits: SeriesLimits, *, cap: bool
) -> list[dt.datetime]:
    """The series' starts up to the horizon; ``cap`` refuses too many with the 400 of
    §4.2 naming the RRULE line (a write's; the roll-forward never refuses). Kept for
    the same inputs: a write's checks expand the series before the lock, and the write
    itself again under it."""
    _, until = horizon(now, anchor, limits)
    most = limits.max_occurrences if cap else None
    try:
        return list(
            _EXPANDED.get(
                (tuple(lines), anchor, until, most), lambda: within(lines, anchor, until, most)
            )
        )
    except RecurrenceError as exc:
        raise bad_param(
            "recurrence", exc.key, index=exc.index, line=exc.line, **exc.values
        ) from None


#: the series expanded lately, by everything an expansion is made of
_EXPANDED: Memo[tuple[t.Any, ...], list[dt.datetime]] = Memo(max_entries=8)


def resync(
    master: Event,
    anchor: Anchor,
    shift: dt.timedelta,
    ctx: WriteContext,
    journal: Journal,
    limits: SeriesLimits,
    *,
    cap: bool = True,
    rows: t.Sequence[Event] = (),
) -> None:
    """Re-expand the series and make the rows match: existing occurrences are matched
    by original start (moved by ``shift``, the anchor's move) and keep their IDs and
    exception fields; unmatched ones are deleted outright; new dates get new rows.
    ``rows``: the series' rows as the write left them, if it read them already."""
    base = base_of(master)
    starts = expand(lines_of(master), anchor, ctx.now, limits, cap=cap)
    rows = [master if row.id == master.id else row for row in rows or series_rows(master.id)]
    live = [row for row in rows if row.status != "trash" or row.id == master.id]
    wanted = set(starts)
    by_start: dict[dt.datetime, Event] = {}
    for row in live:
        key = (row.original_start or row.start_local) + shift
        if key in wanted and key not in by_start:
            by_start[key] = row
    if master.id not in {row.id for row in by_start.values()} and starts:
        by_start.pop(starts[0], None)
        by_start[starts[0]] = master
    kept = {row.id for row in by_start.values()}
    delete_rows([row for row in live if row.id not in kept], journal, ctx.now)
    slugs = occurrence_slugs(base.get("slug") or master.slug, starts)
    new: list[dt.datetime] = []
    moved: list[Event] = []
    for start in starts:
        found = by_start.get(start)
        if found is None:
            new.append(start)
            continue
        row = found
        changed = row.original_start != start
        row.original_start = start
        if not exceptions_of(row) & set(DATES):
            changed = place(row, start, anchor) or changed
        else:
            zone = resolve_timezone(row.timezone)
            row.start_utc, row.end_utc = to_utc(row.start_local, zone), to_utc(row.end_local, zone)
        if row is master:
            master.save()
            journal.note(master)
        elif changed:
            restamp(row, ctx)
            moved.append(row)
            journal.note(row)
    save_dates(moved)
    created = occurrence_rows(master, base, new, anchor, ctx)
    remaining = [row for row in rows if row.id in kept or row.status == "trash"]
    store_shared_words(master.id, base, keys_in_use([*remaining, *created]))
    insert_occurrences(created, [slugs[start] for start in new], base, journal)
    set_materialised(master, ctx.now, anchor, limits)
    note_event_seconds(
        int((to_utc(anchor.end, anchor.zone) - to_utc(anchor.start, anchor.zone)).total_seconds())
    )


def set_materialised(master: Event, now: dt.datetime, anchor: Anchor, limits: SeriesLimits) -> None:
    master.materialised_until = horizon(now, anchor, limits)[0].replace(microsecond=0, tzinfo=None)


def start_series(
    master: Event, lines: list[str], ctx: WriteContext, journal: Journal, limits: SeriesLimits
) -> None:
    """Make a saved event the master of a new series and create its occurrences up to
    the horizon (in the write's transaction). :raises InvalidParams: over the cap."""
    zone = resolve_timezone(master.timezone)
    master.recurrence = orjson.dumps(localise_lines(lines, zone, master.all_day)).decode()
    master.series_master = None
    master.original_start = master.start_local
    set_exceptions(master, ())
    base = values_of(master)
    base.update(
        start_date=format_datetime(master.start_local),
        end_date=format_datetime(master.end_local),
        slug=master.slug,
    )
    store_base(master, base)
    key = sharing_key(master.id, ())
    assert key is not None
    adopt_words(master, key)  # its words are the series' now
    resync(master, anchor_of(master, base), dt.timedelta(0), ctx, journal, limits)
    master.save()


def end_series(master: Event, ctx: WriteContext, journal: Journal) -> None:
    """``recurrence: []`` on a master: it becomes one event again and its other
    occurrences are deleted outright (§4.4); its words are its own again."""
    rows = series_rows(master.id)
    delete_rows([row for row in rows if row.id != master.id], journal, ctx.now)
    reclaimed = reclaim_words(master)
    store_shared_words(master.id, {}, ())
    if not reclaimed:
        index_record(master)
    master.recurrence = ""
    master.series_base = ""
    master.original_start = None
    master.materialised_until = None
    set_exceptions(master, ())


def extend_series(ctx: WriteContext, limits: SeriesLimits, masters: t.Iterable[Event]) -> int:
    """The roll-forward (§4.6): add the occurrences that came within the horizon since
    the last write; never changes existing rows and never refuses. Returns how many
    rows were added. Idempotent: a second run adds nothing."""
    added = 0
    journal = Journal()
    for master in masters:
        base = base_of(master)
        anchor = anchor_of(master, base)
        after = master.materialised_until
        starts = expand(lines_of(master), anchor, ctx.now, limits, cap=False)
        rows = series_rows(master.id)
        known = {row.original_start for row in rows}
        slugs = occurrence_slugs(base.get("slug") or master.slug, starts)
        new = [
            start
            for start in starts
            if start not in known and (after is None or to_utc(start, anchor.zone) > after)
        ]
        created = occurrence_rows(master, base, new, anchor, ctx)
        if created:
            store_shared_words(master.id, base, keys_in_use([*rows, *created]))
            insert_occurrences(created, [slugs[start] for start in new], base, journal)
        added += len(created)
        until = horizon(ctx.now, anchor, limits)[0].replace(microsecond=0, tzinfo=None)
        if after is None or until > after:
            Event.update(materialised_until=until).where(Event.id == master.id).execute()
    journal.flush()
    return added


def check_series_write(args: dict[str, t.Any], event: Event | None) -> None:
    """Validation phase of an update (§4.4): ``status``, ``author``, ``password`` and
    ``recurrence`` belong to the series and are refused with scope ``this`` on an
    occurrence; a ``recurrence`` equal to the current lines is dropped, so that
    read-modify-write round trips work. Never writes.

    :raises InvalidParams: naming each series field sent with scope ``this``.
    """
    master = master_of(event) if event is not None else None
    if event is None or master is None:
        return
    if "recurrence" in args and args["recurrence"] == lines_of(master):
        del args["recurrence"]
    scope = args.get("scope")
    if scope == "this" or (scope is None and event.id != master.id):
        errors = ParamErrors()
        for name in SERIES_FIELDS:
            if name in args:
                errors.add(name, "series_field")
        errors.raise_if_any()
