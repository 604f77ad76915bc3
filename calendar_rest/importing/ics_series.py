"""The recurring part of an ``.ics`` import (``calendar.md`` §5): a VEVENT's
``RRULE``/``RDATE``/``EXDATE`` checked as the API checks ``recurrence`` (§4.2, §4.6),
and a ``RECURRENCE-ID`` component turned into the exception fields of one occurrence.

Pure comparisons and checks: the importer (``ics``) does the writes through
``repository.series_edits``.
"""

from __future__ import annotations

import datetime as dt
import typing as t

from ..dates import format_datetime, parse_datetime, resolve_timezone, start_of_day
from ..dates.recurrence import Anchor, RecurrenceError, exdate_line, normalise_lines, within
from ..i18n.messages import N_
from ..models import Event
from ..queries.lookups import imports as match
from ..repository.series import SeriesLimits, horizon
from ..repository.series_values import anchor_of, base_of
from ..schemas.messages import PARAM_MESSAGES
from ..wordpress.taxonomies import CATEGORIES, TAGS
from .ics_mapping import IcsEvent, Skip, convert_local

NO_SERIES = N_("RECURRENCE-ID: no recurring series has the UID of this component")
NO_OCCURRENCE = N_("RECURRENCE-ID: the series has no occurrence starting %(start)s")
#: the fields an exception component may change alone, compared with the series' base
EXCEPTION_FIELDS = (
    "title",
    "description",
    "excerpt",
    "website",
    "venue",
    "organizer",
    CATEGORIES.collection,
    TAGS.collection,
)
TEXTS = ("title", "description", "excerpt", "website")
LISTS = ("organizer", CATEGORIES.collection, TAGS.collection)


def checked_lines(event: IcsEvent, now: dt.datetime, limits: SeriesLimits) -> list[str]:
    """The component's recurrence lines, normalised and checked against the cap as a
    write would be. :raises Skip: naming the faulty line and its physical number."""
    if not event.recurrence:
        return []
    try:
        lines = normalise_lines(event.recurrence)
        anchor = args_anchor(event.args)
        within(lines, anchor, horizon(now, anchor, limits)[1], limits.max_occurrences)
    except RecurrenceError as exc:
        values = {"param": "recurrence", "index": exc.index, "line": exc.line, **exc.values}
        skip = Skip(PARAM_MESSAGES[exc.key], event.recurrence_lines[exc.index])
        skip.values = values  # the template's own "line" is the content line
        raise skip from None
    return lines


def args_anchor(args: dict[str, t.Any]) -> Anchor:
    """The anchor a mapped component's values describe."""
    zone = resolve_timezone(args["timezone"])
    start = parse_datetime(args["start_date"], zone)
    end = parse_datetime(args["end_date"], zone)
    return Anchor(start, end, zone, bool(args["all_day"]))


def original_start(event: IcsEvent, zone: str, all_day: bool) -> dt.datetime:
    """The RECURRENCE-ID as a local start in the series zone."""
    assert event.recurrence_id is not None
    local, source, _all_day = event.recurrence_id
    if all_day:
        return start_of_day(local)
    return local if source == zone else convert_local(local, source, zone)


def cancelled_exdates(
    master_event: IcsEvent, exceptions: t.Sequence[IcsEvent], stored: t.Sequence[str]
) -> list[str]:
    """EXDATEs an earlier import of the file's cancelled occurrences appended to the
    stored lines (as DELETE with scope ``this`` does): kept, so that a re-import of the
    same file leaves the series as it is."""
    zone, all_day = master_event.args["timezone"], bool(master_event.args["all_day"])
    kept = []
    for event in exceptions:
        if event.cancelled:
            line = exdate_line(original_start(event, zone, all_day), zone, all_day)
            if line in stored and line not in master_event.recurrence and line not in kept:
                kept.append(line)
    return kept


def series_master(uid: str) -> Event | None:
    """The master of the series with this UID, None when it is not a series."""
    found = match.event_by_uid(uid)
    return found if found is not None and found.recurrence else None


def base_differs(master: Event, args: dict[str, t.Any], lines: list[str]) -> bool:
    """Whether writing ``args`` and ``lines`` would change the series (its base values
    and rule; the master row itself may hold exception fields)."""
    from ..dates.recurrence import localise_lines
    from ..repository.series_values import lines_of

    base = base_of(master)
    zone = resolve_timezone(args["timezone"])
    if localise_lines(lines, zone, bool(args.get("all_day"))) != lines_of(master):
        return True
    stored = {
        "title": base.get("title"),
        "description": base.get("description") or "",
        "status": master.status,
        "timezone": base.get("timezone"),
        "all_day": bool(base.get("all_day")),
        "start_date": base.get("start_date"),
        "end_date": base.get("end_date"),
        "website": base.get("website") or "",
        "event_status": base.get("event_status", "scheduled"),
        "attendance_mode": base.get("attendance_mode", "offline"),
        "online_url": base.get("online_url", ""),
        "venue": base.get("venue") or 0,
        "organizer": base.get("organizer", []),
        "categories": base.get(CATEGORIES.collection, []),
    }
    wanted = {**args, "website": args.get("website") or "", "description": args.get(
        "description", "")}  # fmt: skip
    return any(stored[key] != wanted[key] for key in stored if key in wanted)


def exception_values(
    master: Event, args: dict[str, t.Any], original: dt.datetime
) -> dict[str, t.Any]:
    """The fields of an exception component that differ from the series: its exception
    fields and their values (dates in the series zone, as an occurrence holds them)."""
    zone = base_of(master).get("timezone") or master.timezone
    if args["timezone"] != zone and not args["all_day"]:
        start = convert_local(_local(args, "start_date"), args["timezone"], zone)
        end = convert_local(_local(args, "end_date"), args["timezone"], zone)
        args = {
            **args,
            "timezone": zone,
            "start_date": format_datetime(start),
            "end_date": format_datetime(end),
        }
    return occurrence_values(master, args, original)


def _local(args: dict[str, t.Any], field: str) -> dt.datetime:
    return parse_datetime(args[field], resolve_timezone(args["timezone"]))


def occurrence_values(
    master: Event, args: dict[str, t.Any], original: dt.datetime
) -> dict[str, t.Any]:
    """The fields of an occurrence's values (API write values, dates in the series
    zone) that differ from the series' base values and its original dates."""
    base = base_of(master)
    anchor = anchor_of(master, base)
    wanted: dict[str, t.Any] = {}
    for field in EXCEPTION_FIELDS:
        value = args.get(field, [] if field in LISTS else "")
        stored = base.get(field)
        if field in TEXTS:
            if field == "description" and not value:
                continue  # the API cannot write an empty description: the series' stays
            stored = stored or ""
        elif field == "venue":
            value, stored = value or 0, stored or 0
        else:
            stored = stored or []
        if value != stored:
            wanted[field] = value
    start = _local(args, "start_date")
    end = _local(args, "end_date")
    if (start, end) != (original, anchor.end_for(original)):
        wanted["start_date"], wanted["end_date"] = args["start_date"], args["end_date"]
    return wanted


def holds(row: Event, values: dict[str, t.Any]) -> bool:
    """Whether the occurrence already has ``values`` (an exception's fields)."""
    current: dict[str, t.Callable[[], t.Any]] = {
        "title": lambda: row.title,
        "description": lambda: row.description,
        "excerpt": lambda: row.excerpt,
        "website": lambda: row.website or "",
        "venue": lambda: row.venue_id or 0,
        "organizer": lambda: match.organizer_ids(row.id),
        "categories": lambda: match.term_ids_in_order(row.id, CATEGORIES),
        "tags": lambda: match.term_ids_in_order(row.id, TAGS),
        "start_date": lambda: format_datetime(row.start_local),
        "end_date": lambda: format_datetime(row.end_local),
    }
    return all(current[field]() == value for field, value in values.items())


def no_occurrence(event: IcsEvent, original: dt.datetime) -> Skip:
    return Skip(NO_OCCURRENCE, event.recurrence_id_line, start=format_datetime(original))


def no_series(event: IcsEvent) -> Skip:
    return Skip(NO_SERIES, event.recurrence_id_line)
