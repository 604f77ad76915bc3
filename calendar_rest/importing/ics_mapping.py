"""One VEVENT → the values of an event write (the table of ``calendar.md`` §5).

Each component is parsed on its own by icalendar; anything that cannot be mapped
raises :class:`Skip` naming the faulty property's physical line, so that the importer
skips the component whole and reports where.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import html
import re
import typing as t

import icalendar

from ..dates import from_utc, is_valid_timezone, resolve_timezone
from ..i18n.messages import N_
from ..schemas.fields import MAX_URL, is_url
from .ics_reader import RawComponent

DATE_FIELDS = ("DTSTART", "DTEND", "RECURRENCE-ID")
RECURRENCE_PROPERTIES = ("RRULE", "RDATE", "EXDATE")
PRIVATE_CLASSES = ("PRIVATE", "CONFIDENTIAL")
NO_TITLE = N_("(no title)")
FORMAT = "%Y-%m-%d %H:%M:%S"


class Skip(Exception):
    """A component that cannot be imported: the reason (marked with ``N_``), its
    values, and the physical line of the faulty property (None: the ``BEGIN:``)."""

    def __init__(self, reason: str, line: int | None = None, **values: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.values = values


@dataclasses.dataclass(frozen=True)
class FileZones:
    """The zones a file's times are read in: its ``X-WR-TIMEZONE`` (or the site's) for
    UTC and floating times, and its VTIMEZONEs for non-IANA TZIDs."""

    default: str
    site: str
    vtimezones: dict[str, dt.tzinfo]


@dataclasses.dataclass
class IcsEvent:
    """A VEVENT mapped to API values, plus what the importer matches or creates."""

    uid: str
    begin_line: int
    args: dict[str, t.Any]
    private: bool = False
    cancelled: bool = False
    location: str = ""
    geo: tuple[float, float] | None = None
    organizer: tuple[str, str] | None = None  # (name, e-mail)
    categories: list[str] = dataclasses.field(default_factory=list)
    recurrence: list[str] = dataclasses.field(default_factory=list)
    #: the physical line of each ``recurrence`` line, for skip messages
    recurrence_lines: list[int] = dataclasses.field(default_factory=list)
    #: RECURRENCE-ID as (local wall clock, zone name, all-day), with its line
    recurrence_id: tuple[dt.datetime, str, bool] | None = None
    recurrence_id_line: int = 0


def file_zones(
    properties: dict[str, str], site_timezone: str, vtimezones: list[RawComponent]
) -> FileZones:
    """The file's default zone and the tzinfo of each of its VTIMEZONEs."""
    default = zone_name(properties.get("X-WR-TIMEZONE", "").strip()) or site_timezone
    zones: dict[str, dt.tzinfo] = {}
    for raw in vtimezones:
        try:
            component = t.cast(icalendar.Timezone, icalendar.Timezone.from_ical(raw.text()))
            zones[str(component["TZID"])] = component.to_tz()
        except (ValueError, KeyError, TypeError):
            continue  # an unusable VTIMEZONE is as if absent
    return FileZones(default, site_timezone, zones)


def zone_name(name: str) -> str | None:
    """An IANA (or WordPress offset) name for ``name``: itself, its Windows mapping,
    or the IANA tail of a ``/vendor/…/Europe/Paris`` name."""
    if not name:
        return None
    if is_valid_timezone(name):
        return name
    from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

    if name in WINDOWS_TO_OLSON:
        return WINDOWS_TO_OLSON[name]
    parts = name.strip("/").split("/")
    for start in range(1, len(parts)):
        tail = "/".join(parts[start:])
        if "/" in tail and is_valid_timezone(tail):
            return tail
    return None


def map_event(raw: RawComponent, zones: FileZones) -> IcsEvent:
    """The event values of one VEVENT.

    :raises Skip: a malformed line, a value icalendar could not parse, no DTSTART, an
        unknown TZID without VTIMEZONE.
    """
    malformed = raw.first_malformed()
    if malformed is not None:
        raise Skip(N_("malformed content line"), malformed)
    try:
        component = icalendar.Event.from_ical(raw.text())
    except ValueError as exc:
        raise Skip(N_("cannot be parsed: %(error)s"), None, error=str(exc)) from None
    for name, _error in getattr(component, "errors", []):
        prop = str(name).upper()
        kind = N_("invalid date-time") if prop in (*DATE_FIELDS, "DTSTAMP") else None
        if prop in ("DTSTAMP", "LAST-MODIFIED", "CREATED", "SEQUENCE") or prop.startswith("X-"):
            continue  # ignored properties (§5) may be broken
        if prop in RECURRENCE_PROPERTIES:
            continue  # checked as the API checks ``recurrence``, naming the line (§4.2)
        raise Skip(
            N_("%(property)s: %(kind)s '%(value)s'"),
            raw.line_of(prop),
            property=prop,
            kind=kind or N_("invalid value"),
            value=raw.value(prop) or "",
        )
    summary = str(component.get("SUMMARY", "")).strip()
    if "DTSTART" not in component:
        raise Skip(N_("no DTSTART"))
    start, zone, all_day = _moment(component["DTSTART"], "DTSTART", raw, zones)
    end = _end(component, start, zone, all_day, raw, zones)
    uid = str(component.get("UID", "")).strip() or _derived_uid(raw.value("DTSTART"), summary)
    args: dict[str, t.Any] = {
        "title": summary,
        "description": _description(component),
        "timezone": zone,
        "all_day": all_day,
        "start_date": start.strftime(FORMAT),
        "end_date": end.strftime(FORMAT),
    }
    url = str(component.get("URL", "")).strip()
    if url:
        args["website"] = url
    event = IcsEvent(uid, raw.begin_line, args)
    event.private = str(component.get("CLASS", "")).strip().upper() in PRIVATE_CLASSES
    event.cancelled = str(component.get("STATUS", "")).strip().upper() == "CANCELLED"
    event.location = str(component.get("LOCATION", "")).strip()
    geo = component.get("GEO")
    if geo is not None:
        event.geo = (float(geo.latitude), float(geo.longitude))
    event.organizer = _organizer(component.get("ORGANIZER"))
    event.categories = _categories(component.get("CATEGORIES"))
    recurring = [
        (number, line.strip())
        for number, line in raw.lines
        if re.split(r"[;:]", line, maxsplit=1)[0].upper() in RECURRENCE_PROPERTIES
    ]
    event.recurrence = [line for _number, line in recurring]
    event.recurrence_lines = [number for number, _line in recurring]
    if "RECURRENCE-ID" not in component:
        _add_status(args, component, event)
    if "RECURRENCE-ID" in component:
        event.recurrence_id = _moment(component["RECURRENCE-ID"], "RECURRENCE-ID", raw, zones)
        event.recurrence_id_line = raw.line_of("RECURRENCE-ID")
    return event


def _moment(
    prop: t.Any, name: str, raw: RawComponent, zones: FileZones
) -> tuple[dt.datetime, str, bool]:
    """A DTSTART-like value as (local wall clock, zone name, all-day)."""
    value = prop.dt
    if not isinstance(value, dt.datetime):
        if isinstance(value, dt.date):
            return dt.datetime.combine(value, dt.time()), zones.default, True
        raise Skip(N_("%(property)s: %(kind)s '%(value)s'"), raw.line_of(name), property=name,
                   kind=N_("invalid date-time"), value=raw.value(name) or "")  # fmt: skip
    tzid = prop.params.get("TZID")
    mapped = zone_name(str(tzid)) if tzid else None
    if mapped is not None:  # IANA, Windows or vendor-prefixed: the wall clock is kept
        return value.replace(tzinfo=None), mapped, False
    if value.tzinfo is None:
        if not tzid:  # floating: read in the file's zone
            return value, zones.default, False
        custom = zones.vtimezones.get(tzid)
        if custom is None:
            raise Skip(N_("%(property)s: unknown TZID '%(tzid)s' with no VTIMEZONE"),
                       raw.line_of(name), property=name, tzid=tzid)  # fmt: skip
        value = value.replace(tzinfo=custom)
    if tzid and tzid not in zones.vtimezones:  # resolved from another file's VTIMEZONE
        raise Skip(N_("%(property)s: unknown TZID '%(tzid)s' with no VTIMEZONE"),
                   raw.line_of(name), property=name, tzid=tzid)  # fmt: skip
    # UTC (``Z``) goes to the file's zone; other named zones to the site's (§5)
    target = zones.default if not tzid else zones.site
    utc = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return from_utc(utc, resolve_timezone(target)), target, False


def _end(
    component: t.Any,
    start: dt.datetime,
    zone: str,
    all_day: bool,
    raw: RawComponent,
    zones: FileZones,
) -> dt.datetime:
    """The API end: DTEND (or DTSTART + DURATION) in the start's zone; for all-day
    events 23:59:59 of the last day (RFC 5545's end is exclusive)."""
    if "DTEND" in component:
        end, end_zone, end_all_day = _moment(component["DTEND"], "DTEND", raw, zones)
        if not all_day and end_zone != zone:
            end = convert_local(end, end_zone, zone)
    elif "DURATION" in component and isinstance(component["DURATION"].dt, dt.timedelta):
        end = start + component["DURATION"].dt
    else:
        end = start + (dt.timedelta(days=1) if all_day else dt.timedelta())
    if all_day:
        last = max(end - dt.timedelta(days=1), start)
        return dt.datetime.combine(last.date(), dt.time(23, 59, 59))
    return max(end, start)


def convert_local(local: dt.datetime, source: str, target: str) -> dt.datetime:
    """A wall-clock time of zone ``source`` as wall-clock time of zone ``target``."""
    aware = local.replace(tzinfo=resolve_timezone(source))
    utc = aware.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return from_utc(utc, resolve_timezone(target))


def _add_status(args: dict[str, t.Any], component: t.Any, event: IcsEvent) -> None:
    """anchors.md §1: ``STATUS:CANCELLED`` marks the event canceled (it stays listed,
    as the feed writes it); RFC 7986 ``CONFERENCE`` (the first http or https URI) is
    where attendees join, online only or, with a ``LOCATION``, mixed. A cancelled
    RECURRENCE-ID component still deletes its occurrence (§5)."""
    args["event_status"] = "canceled" if event.cancelled else "scheduled"
    found = component.get("CONFERENCE")
    for conference in found if isinstance(found, list) else [found] if found else []:
        url = str(conference).strip()
        if is_url(url) and len(url) <= MAX_URL:
            args["online_url"] = url
            args["attendance_mode"] = "mixed" if event.location else "online"
            return


def _description(component: t.Any) -> str:
    """X-ALT-DESC's HTML when given (filtered later as untrusted), else DESCRIPTION's
    text escaped: blank lines make paragraphs, line breaks ``<br />``."""
    alternative = component.get("X-ALT-DESC")
    if alternative is not None and str(alternative.params.get("FMTTYPE", "")).lower() == (
        "text/html"
    ):
        return str(alternative).strip()
    text = str(component.get("DESCRIPTION", "")).replace("\r\n", "\n").strip()
    if not text:
        return ""
    paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n".join(
        "<p>" + "<br />\n".join(html.escape(line, quote=False) for line in p.split("\n")) + "</p>"
        for p in paragraphs
    )


def _organizer(prop: t.Any) -> tuple[str, str] | None:
    if prop is None:
        return None
    if isinstance(prop, list):
        prop = prop[0]
    value = str(prop).strip()
    email = value[7:] if value.lower().startswith("mailto:") else ""
    name = str(prop.params.get("CN", "")).strip() or email or value
    return (name, email) if name else None


def _categories(prop: t.Any) -> list[str]:
    items = prop if isinstance(prop, list) else [prop] if prop is not None else []
    names: list[str] = []
    for item in items:
        for name in getattr(item, "cats", [item]):
            text = str(name).strip()
            if text and text.lower() not in {n.lower() for n in names}:
                names.append(text)
    return names


def _derived_uid(dtstart: str | None, summary: str) -> str:
    """A stable UID for a component without one, so re-imports still match (§5)."""
    digest = hashlib.sha256(f"{dtstart}\n{summary}".encode()).hexdigest()[:32]
    return f"{digest}@calendar-rest.import"
