"""The values of a recurring series (calendar.md §4.1): the base values its master
keeps, the fields each row changed alone, and how a row takes the series' values and
dates. Pure reads and in-memory changes of rows: ``series_rows`` writes them.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import orjson

from ..dates import end_of_day, parse_datetime, resolve_timezone, start_of_day, to_utc
from ..dates.recurrence import Anchor, localise_lines
from ..dates.recurrence_moves import move_lines
from ..models import Event
from ..queries.lookups.series import organizer_ids, term_ids_by_taxonomy
from ..wordpress.taxonomies import CATEGORIES, TAGS
from . import posts
from .posts import WriteContext

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
    "event_status": ("event_status",),
    "event_status_reason": ("event_status_reason",),
    "attendance_mode": ("attendance_mode",),
    "online_url": ("online_url",),
}
LINKS = ("organizer", CATEGORIES.collection, TAGS.collection)
DATES = ("start_date", "end_date")
#: every field an occurrence can change alone (its ``exception_fields``)
OCCURRENCE_FIELDS = frozenset({*COLUMNS, *LINKS, *DATES})
#: fields of the whole series: refused with scope ``this`` (§4.4)
SERIES_FIELDS = ("status", "author", "password", "recurrence")
WORD_FIELDS = frozenset({"title", "description", "excerpt", "password"})
#: the text an occurrence copies from its series (what a series write may copy, and
#: the bound on it, count: ``series_bounds``)
TEXT_FIELDS = ("title", "description", "excerpt")
Base = dict[str, t.Any]


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
    """Set the row's columns from ``values`` (links are set apart, ``series_rows``);
    returns the fields that changed."""
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


def columns_of(fields: t.Iterable[str]) -> list[str]:
    """The columns holding ``fields`` (those of them that are columns)."""
    return [column for field in fields for column in COLUMNS.get(field, ())]


def place(row: Event, start: dt.datetime, anchor: Anchor) -> bool:
    """Give the row an occurrence's dates (its zone's UTC twins too); True if changed."""
    zone = resolve_timezone(row.timezone)
    old = (row.start_local, row.end_local, row.start_utc, row.end_utc)
    if row.id is not None and row.event_status == "rescheduled" and old[0] not in (None, start):
        row.previous_start = old[0]  # schema.org previousStartDate (anchors.md §1)
    row.start_local, row.end_local = start, anchor.end_for(start)
    row.start_utc, row.end_utc = to_utc(row.start_local, zone), to_utc(row.end_local, zone)
    return old != (row.start_local, row.end_local, row.start_utc, row.end_utc)


def restamp(row: Event, ctx: WriteContext) -> None:
    """An update of a row the series write rewrites: ``modified`` and SEQUENCE."""
    posts.stamp_update(row, ctx, {})
    row.sequence += 1


def words_touched(fields: t.Collection[str]) -> bool:
    return bool(WORD_FIELDS & set(fields))


def reexpands(args: t.Mapping[str, t.Any]) -> bool:
    """Whether a series-wide write of ``args`` expands the series again: a new rule,
    start, end, zone or all-day."""
    return bool({"recurrence", *DATES, "timezone", "all_day"} & set(args))


def moved_anchor(
    args: t.Mapping[str, t.Any], ctx: WriteContext, old: Anchor, target: Event, base: Base
) -> Anchor:
    """The anchor after a series-wide edit: moved by the difference between the dates
    sent and ``target``'s, in the (possibly new) zone, whole days in all-day series."""
    zone_name = args.get("timezone", base.get("timezone")) or ctx.site_timezone
    zone = resolve_timezone(zone_name)
    start, end = old.start, old.end
    if "start_date" in args:
        start += ctx.parse_date(args["start_date"], zone) - target.start_local
    if "end_date" in args:
        end += ctx.parse_date(args["end_date"], zone) - target.end_local
    all_day = bool(args.get("all_day", base.get("all_day", old.all_day)))
    if all_day:
        start, end = start_of_day(start), end_of_day(end)
    return Anchor(start, max(start, end), zone, all_day)


def moved_lines(
    args: t.Mapping[str, t.Any], master: Event, base: Base, old: Anchor, anchor: Anchor
) -> list[str]:
    """The series' lines after a series-wide edit: those sent, or the stored ones whose
    dates move with the series (an EXDATE still removes its instance)."""
    if "recurrence" in args:
        return localise_lines(args["recurrence"], anchor.zone, anchor.all_day)
    return move_lines(lines_of(master), old, anchor, base.get("timezone") or master.timezone)
