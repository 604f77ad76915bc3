"""Recurring series as rows (calendar.md §4.1, §4.4, §4.6): base values, occurrences
materialised up to the horizon, re-expansion that keeps IDs, and the roll-forward.

A series is its master (the first occurrence, holding ``recurrence``, the base values
in ``series_base`` and ``materialised_until``) and one ``Event`` row per occurrence
(``series_master``, ``original_start``, ``exception_fields``). Every occurrence shares
the master's UID. Expansion is ``dates.recurrence``'s; this module writes the rows and
reports each row it creates, changes or deletes in the change log, once per write
(``series_journal.Journal``).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import typing as t

import orjson

from ..dates import format_datetime, from_utc, parse_datetime, resolve_timezone, to_utc
from ..dates.recurrence import Anchor, RecurrenceError, localise_lines, within
from ..errors import ParamErrors, bad_param
from ..models import SEARCH_KIND, Event, EventOrganizer, SearchWord
from ..queries.series import (
    master_of,
    organizer_ids,
    series_rows,
    term_ids_by_taxonomy,
    terms_by_ids,
)
from ..search import replace_words
from ..settings import Settings
from ..taxonomies import CATEGORIES, TAGS
from . import posts, terms
from .posts import WriteContext
from .series_journal import Journal
from .site_state import note_event_seconds
from .word_index import index_record

#: API field → the columns holding it, for the fields an occurrence takes from the base
COLUMNS: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "description": ("description",),
    "excerpt": ("excerpt",),
    "all_day": ("all_day",),
    "show_map": ("show_map",),
    "show_map_link": ("show_map_link",),
    "hide_from_listings": ("hide_from_listings",),
    "sticky": ("sticky",),
    "featured": ("featured",),
    "ticketed": ("ticketed",),
    "website": ("website",),
    "password": ("password",),
    "status": ("status",),
    "author": ("author_id",),
    "cost": ("cost", "currency_symbol", "currency_position"),
    "image": ("image_id",),
    "venue": ("venue_id",),
    "post_parent": ("post_parent_id",),
    "timezone": ("timezone",),
}
LINKS = ("organizer", CATEGORIES.collection, TAGS.collection)
DATES = ("start_date", "end_date")
#: every field an occurrence can change alone (its ``exception_fields``)
OCCURRENCE_FIELDS = frozenset({*COLUMNS, *LINKS, *DATES})
#: fields of the whole series: refused with scope ``this`` (§4.4)
SERIES_FIELDS = ("status", "author", "password", "recurrence")
WORD_FIELDS = frozenset({"title", "description", "excerpt", "password"})
Base = dict[str, t.Any]


@dataclasses.dataclass(frozen=True)
class SeriesLimits:
    """How far ahead occurrences exist, and the most one write may create (§4.6)."""

    horizon_days: int = 730
    max_occurrences: int = 2000

    @classmethod
    def from_settings(cls, settings: Settings) -> SeriesLimits:
        return cls(settings.recurrence_horizon_days, settings.recurrence_max_occurrences)


# -- base values ----------------------------------------------------------------------


def exceptions_of(row: Event) -> set[str]:
    return set(orjson.loads(row.exception_fields)) if row.exception_fields else set()


def set_exceptions(row: Event, fields: t.Iterable[str]) -> None:
    chosen = sorted(set(fields) & OCCURRENCE_FIELDS)
    row.exception_fields = orjson.dumps(chosen).decode() if chosen else ""


def lines_of(master: Event) -> list[str]:
    return list(orjson.loads(master.recurrence)) if master.recurrence else []


def values_of(row: Event, fields: t.Iterable[str] = (*COLUMNS, *LINKS)) -> Base:
    """The row's values of ``fields`` as stored in a base (links as ID lists)."""
    values: Base = {}
    wanted = set(fields)
    for field, columns in COLUMNS.items():
        if field in wanted:
            found = [getattr(row, column) for column in columns]
            values[field] = found if len(found) > 1 else found[0]
    if "organizer" in wanted:
        values["organizer"] = organizer_ids(row.id)
    if wanted & {CATEGORIES.collection, TAGS.collection}:
        by_taxonomy = term_ids_by_taxonomy(row.id)
        for taxonomy in (CATEGORIES, TAGS):
            if taxonomy.collection in wanted:
                values[taxonomy.collection] = by_taxonomy.get(taxonomy.name, [])
    return values


def base_of(master: Event) -> Base:
    return dict(orjson.loads(master.series_base)) if master.series_base else {}


def store_base(master: Event, base: Base) -> None:
    master.series_base = orjson.dumps(base).decode()


def anchor_of(master: Event, base: Base) -> Anchor:
    zone = resolve_timezone(base.get("timezone") or master.timezone)
    start = parse_datetime(base["start_date"], zone)
    end = parse_datetime(base["end_date"], zone)
    return Anchor(start, end, zone, bool(base.get("all_day", master.all_day)))


def apply_values(row: Event, values: Base, skip: t.Collection[str] = ()) -> set[str]:
    """Set the row's columns from ``values`` (links too, once the row exists); returns
    the fields that changed."""
    changed = set()
    for field, value in values.items():
        if field in skip or field not in COLUMNS:
            continue
        columns = COLUMNS[field]
        new = value if len(columns) > 1 else [value]
        if [getattr(row, column) for column in columns] != list(new):
            for column, item in zip(columns, new, strict=True):
                setattr(row, column, item)
            changed.add(field)
    return changed


def apply_links(row: Event, values: Base, journal: Journal, skip: t.Collection[str] = ()) -> None:
    """Replace the row's organizers and terms where ``values`` name them."""
    if "organizer" in values and "organizer" not in skip:
        EventOrganizer.delete().where(EventOrganizer.event == row.id).execute()
        if values["organizer"]:
            EventOrganizer.insert_many(
                [
                    {"event": row.id, "organizer": organizer, "position": i}
                    for i, organizer in enumerate(values["organizer"])
                ]
            ).execute()
    for taxonomy in (CATEGORIES, TAGS):
        if taxonomy.collection in values and taxonomy.collection not in skip:
            chosen = terms_by_ids(values[taxonomy.collection])
            journal.term_ids |= terms.set_event_terms(row, taxonomy, chosen)


# -- rows ------------------------------------------------------------------------------


def place(row: Event, start: dt.datetime, anchor: Anchor) -> bool:
    """Give the row an occurrence's dates (its zone's UTC twins too); True if changed."""
    zone = resolve_timezone(row.timezone)
    old = (row.start_local, row.end_local, row.start_utc, row.end_utc)
    row.start_local, row.end_local = start, anchor.end_for(start)
    row.start_utc, row.end_utc = to_utc(row.start_local, zone), to_utc(row.end_local, zone)
    return old != (row.start_local, row.end_local, row.start_utc, row.end_utc)


def restamp(row: Event, ctx: WriteContext) -> None:
    """An update of a row the series write rewrites: ``modified`` and SEQUENCE."""
    posts.stamp_update(row, ctx, {})
    row.sequence += 1


def new_occurrence(
    master: Event, base: Base, start: dt.datetime, anchor: Anchor, slug: str, ctx: WriteContext
) -> Event:
    """A new occurrence row: the master's post fields, the base values, its dates."""
    row = Event(
        language=master.language,
        uid=master.uid,
        series_master=master.id,
        original_start=start,
        date=master.date,
        date_utc=master.date_utc,
        modified_utc=ctx.now,
        modified=from_utc(ctx.now, ctx.site_zone),
        status=master.status,
        author=master.author_id,
        timezone=base.get("timezone") or master.timezone,
    )
    apply_values(row, base)
    place(row, start, anchor)
    row.slug = posts.free_slug(Event, slug)
    row.save(force_insert=True)
    return row


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
    §4.2 naming the RRULE line (a write's; the roll-forward never refuses)."""
    _, until = horizon(now, anchor, limits)
    try:
        return within(lines, anchor, until, limits.max_occurrences if cap else None)
    except RecurrenceError as exc:
        raise bad_param(
            "recurrence", exc.key, index=exc.index, line=exc.line, **exc.values
        ) from None


def delete_row(row: Event, journal: Journal, now: dt.datetime) -> None:
    """Delete an occurrence outright (no user deleted it: a rule change removed its
    date); its links go with it (foreign keys cascade), its words explicitly."""
    journal.term_ids |= set(term_ids_by_taxonomy(row.id).get(CATEGORIES.name, []))
    journal.term_ids |= set(term_ids_by_taxonomy(row.id).get(TAGS.name, []))
    replace_words(SearchWord, SEARCH_KIND[Event], row.id, {})
    Event.delete().where(Event.id == row.id).execute()
    journal.deleted(row, now)


def resync(
    master: Event,
    anchor: Anchor,
    shift: dt.timedelta,
    ctx: WriteContext,
    journal: Journal,
    limits: SeriesLimits,
    *,
    cap: bool = True,
) -> None:
    """Re-expand the series and make the rows match: existing occurrences are matched
    by original start (moved by ``shift``, the anchor's move) and keep their IDs and
    exception fields; unmatched ones are deleted outright; new dates get new rows."""
    base = base_of(master)
    starts = expand(lines_of(master), anchor, ctx.now, limits, cap=cap)
    live = [
        master if row.id == master.id else row
        for row in series_rows(master.id)
        if row.status != "trash" or row.id == master.id
    ]
    wanted = set(starts)
    by_start: dict[dt.datetime, Event] = {}
    for row in live:
        key = (row.original_start or row.start_local) + shift
        if key in wanted and key not in by_start:
            by_start[key] = row
    if master not in by_start.values() and starts:
        by_start.pop(starts[0], None)
        by_start[starts[0]] = master
    for row in live:
        if row not in by_start.values():
            delete_row(row, journal, ctx.now)
    slugs = occurrence_slugs(base.get("slug") or master.slug, starts)
    for start in starts:
        found = by_start.get(start)
        if found is None:
            created = new_occurrence(master, base, start, anchor, slugs[start], ctx)
            apply_links(created, base, journal)
            index_record(created)
            journal.new(created)
            continue
        row = found
        changed = row.original_start != start
        row.original_start = start
        if not exceptions_of(row) & set(DATES):
            changed = place(row, start, anchor) or changed
        else:
            zone = resolve_timezone(row.timezone)
            row.start_utc, row.end_utc = to_utc(row.start_local, zone), to_utc(row.end_local, zone)
        if changed or row is master:
            if row is not master:
                restamp(row, ctx)
            row.save()
            journal.note(row)
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
    master.recurrence = orjson.dumps(localise_lines(lines, zone)).decode()
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
    resync(master, anchor_of(master, base), dt.timedelta(0), ctx, journal, limits)
    master.save()


def end_series(master: Event, ctx: WriteContext, journal: Journal) -> None:
    """``recurrence: []`` on a master: it becomes one event again and its other
    occurrences are deleted outright (§4.4)."""
    for row in series_rows(master.id):
        if row.id != master.id:
            delete_row(row, journal, ctx.now)
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
        known = {row.original_start for row in series_rows(master.id)}
        slugs = occurrence_slugs(base.get("slug") or master.slug, starts)
        for start in starts:
            if start in known or (after is not None and to_utc(start, anchor.zone) <= after):
                continue
            row = new_occurrence(master, base, start, anchor, slugs[start], ctx)
            apply_links(row, base, journal)
            index_record(row)
            journal.new(row)
            added += 1
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


def words_touched(fields: t.Collection[str]) -> bool:
    return bool(WORD_FIELDS & set(fields))
