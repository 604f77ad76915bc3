"""Events as one iCalendar VCALENDAR (``calendar.md`` §3 and §4.7), written by icalendar.

The body is a pure function of its input: no "now" (``DTSTAMP`` is ``LAST-MODIFIED``),
a fixed order, and VTIMEZONEs from the zones' TZif files (``wire.vtimezone``). Each
event is handed with its JSON representation (``wire.events.event_data``), so ``SUMMARY``,
``URL``, the venue, the organizers, the categories and what password protection hides
are exactly what the JSON shows. icalendar is imported on first use only: the CLI and
``serve`` start without it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import typing as t

from ..dates.recurrence import split_line
from ..models import Event
from .plain_text import plain_text
from .vtimezone import Zone, ical_zone, vtimezone, written_zone

if t.TYPE_CHECKING:  # pragma: no cover
    import icalendar

#: post status → (STATUS, CLASS or None)
STATUSES = {
    "publish": ("CONFIRMED", None),
    "private": ("CONFIRMED", "PRIVATE"),
    "future": ("TENTATIVE", None),
    "draft": ("TENTATIVE", None),
    "pending": ("TENTATIVE", None),
    "trash": ("CANCELLED", None),
}
#: recurrence lines a master VEVENT carries as stored
RECURRENCE_NAMES = frozenset({"RRULE", "RDATE", "EXDATE"})
UTC = dt.timezone.utc


@dataclasses.dataclass(frozen=True)
class FeedInfo:
    """The calendar's own properties (§3.1)."""

    name: str
    #: the site zone as configured (an IANA name or a WordPress offset)
    site_zone: str
    refresh_minutes: int
    #: the absolute URL of this feed
    source: str
    version: str


@dataclasses.dataclass(frozen=True)
class FeedEvent:
    """One VEVENT: the row, its JSON representation and its place in a series."""

    event: Event
    data: dict[str, t.Any]
    #: a master's stored ``recurrence`` lines (exported as they are); empty otherwise
    recurrence: tuple[str, ...] = ()
    #: an exception's or a published instance's original start (local, series zone)
    recurrence_id: dt.datetime | None = None
    #: the series zone (the master's), for ``RECURRENCE-ID``
    series_zone: str = ""


def calendar_bytes(info: FeedInfo, events: t.Sequence[FeedEvent]) -> bytes:
    """The VCALENDAR of ``events`` in the order given (CRLF, folded, escaped)."""
    import icalendar

    calendar = icalendar.Calendar()
    calendar.add("version", "2.0")
    calendar.add("prodid", f"-//calendar_rest//calendar-rest {info.version}//EN")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", info.name)
    calendar.add("name", info.name)
    site = ical_zone(info.site_zone)
    if site.fixed is None:
        calendar.add("x-wr-timezone", site.tzid)
    refresh = dt.timedelta(minutes=info.refresh_minutes)
    calendar.add("refresh-interval", refresh, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", icalendar.vDuration(refresh))
    calendar.add("source", icalendar.vUri(info.source), parameters={"VALUE": "URI"})
    components = [_vevent(item) for item in events]
    for zone, first_year in sorted(_first_years(events).items(), key=lambda item: item[0].tzid):
        calendar.add_component(vtimezone(zone, first_year))
    for component in components:
        calendar.add_component(component)
    return t.cast(bytes, calendar.to_ical())


def _first_years(events: t.Sequence[FeedEvent]) -> dict[Zone, int]:
    """Each TZID the feed writes, with the first year of its dates: its VTIMEZONE
    covers every time from January 1 of that year on, open-ended rules included."""
    years: dict[Zone, int] = {}

    def cover(zone: Zone, year: int) -> None:
        years[zone] = min(year, years.get(zone, year))

    for item in events:
        event = item.event
        if not event.all_day:
            cover(ical_zone(event.timezone), event.start_local.year)
        if item.recurrence_id is not None and not event.all_day:
            cover(ical_zone(item.series_zone or event.timezone), item.recurrence_id.year)
        for line in item.recurrence:
            parsed = split_line(0, line)
            if parsed.name == "RRULE":
                continue
            first = min(int(value.strip()[:4]) for value in parsed.value.split(","))
            if "TZID" in parsed.params:
                cover(written_zone(parsed.params["TZID"]), first)
            if not event.all_day:
                cover(ical_zone(event.timezone), first)
    return years


def _vevent(item: FeedEvent) -> icalendar.Event:
    """One VEVENT with every property of §3.2, in a fixed order."""
    import icalendar

    event, data = item.event, item.data
    component = icalendar.Event()
    modified = event.modified_utc.replace(tzinfo=UTC)
    component.add("uid", event.uid or str(event.id))
    component.add("dtstamp", modified)
    if event.all_day:
        component.add("dtstart", event.start_local.date())
        component.add("dtend", event.end_local.date() + dt.timedelta(days=1))
    else:
        tzid = ical_zone(event.timezone).tzid
        component.add("dtstart", _wall_clock(event.start_local, tzid))
        component.add("dtend", _wall_clock(event.end_local, tzid))
    if item.recurrence_id is not None:
        if event.all_day:
            component.add("recurrence-id", item.recurrence_id.date())
        else:
            tzid = ical_zone(item.series_zone or event.timezone).tzid
            component.add("recurrence-id", _wall_clock(item.recurrence_id, tzid))
    component.add("summary", data["title"])
    description = plain_text(data["description"] or "")
    if description:
        component.add("description", description)
    component.add("url", icalendar.vUri(data["url"]))
    _add_place(component, data["venue"])
    _add_organizers(component, data["organizer"])
    categories = [term["name"] for term in data["categories"]]
    if categories:
        component.add("categories", categories)
    status, privacy = STATUSES.get(event.status, ("CONFIRMED", None))
    if event.event_status == "canceled":
        status = "CANCELLED"  # still in the feed: calendar apps strike it through
    component.add("status", status)
    if privacy:
        component.add("class", privacy)
    component.add("last-modified", modified)
    component.add("sequence", event.sequence)
    _add_recurrence(component, item.recurrence)
    _add_conference(component, data.get("online_url"))
    return component


def _add_conference(component: icalendar.Event, online_url: t.Any) -> None:
    """RFC 7986 ``CONFERENCE`` for where attendees join (``URL`` stays the event's
    page: RFC 5545 allows one); empty when the JSON hides it."""
    import icalendar

    if not online_url:
        return
    conference = icalendar.vUri(online_url)
    conference.params["VALUE"] = "URI"
    conference.params["FEATURE"] = "VIDEO"
    component.add("conference", conference)


def _add_place(component: icalendar.Event, venue: t.Any) -> None:
    """``LOCATION`` from the venue name and address; ``GEO`` when it has both
    coordinates (as the JSON shows them)."""
    if not isinstance(venue, dict) or not venue:
        return
    region = venue.get("stateprovince") or venue.get("state") or venue.get("province")
    parts = [venue.get("venue"), venue.get("address"), venue.get("city"), region]
    parts += [venue.get("zip"), venue.get("country")]
    location = ", ".join(str(part) for part in parts if part)
    if location:
        component.add("location", location)
    if venue.get("geo_lat") is not None and venue.get("geo_lng") is not None:
        component.add("geo", (float(venue["geo_lat"]), float(venue["geo_lng"])))


def _add_organizers(component: icalendar.Event, organizers: t.Any) -> None:
    """The first organizer as ``ORGANIZER;CN=…:mailto:…`` (its JSON ``url`` without
    an e-mail), each further one as ``CONTACT:<name> <email>``."""
    import icalendar

    for position, organizer in enumerate(organizers or ()):
        name, email = organizer.get("organizer", ""), organizer.get("email", "")
        if position == 0:
            value = f"mailto:{email}" if email else organizer.get("url", "")
            parameters = {"CN": name} if name else {}
            component.add("organizer", icalendar.vCalAddress(value), parameters=parameters)
        else:
            component.add("contact", " ".join(part for part in (name, email) if part))


def _add_recurrence(component: icalendar.Event, lines: t.Sequence[str]) -> None:
    """A master's ``RRULE``/``RDATE``/``EXDATE`` lines as stored, read and written
    by icalendar (never re-derived)."""
    if not lines:
        return
    import icalendar

    text = "\r\n".join(["BEGIN:VEVENT", *lines, "END:VEVENT", ""])
    parsed = icalendar.Event.from_ical(text)
    for name, value in parsed.property_items(recursive=False, sorted=False):
        if name in RECURRENCE_NAMES:
            component.add(name, value, encode=False)


def _wall_clock(local: dt.datetime, tzid: str) -> t.Any:
    """``;TZID=<tzid>:YYYYMMDDTHHMMSS``, ``TZID=UTC`` included (icalendar writes UTC
    in the ``Z`` form, which §3.2 rules out)."""
    return _wall_clock_type()(local.replace(tzinfo=None), tzid)


@functools.cache
def _wall_clock_type() -> type:
    """icalendar's DATE-TIME value, kept in the event's own zone whatever it is."""
    import icalendar
    from icalendar.parser import Parameters, param_value

    class ZoneParameters(Parameters):
        def to_ical(self, sorted: bool = True) -> bytes:  # noqa: A002 - icalendar's name
            others = Parameters({key: value for key, value in self.items() if key != "TZID"})
            tzid = b"TZID=" + str(param_value(self["TZID"])).encode()
            rest = others.to_ical(sorted)
            return tzid + b";" + rest if rest else tzid

    class WallClock(icalendar.vDatetime):
        def __init__(self, local: dt.datetime, tzid: str) -> None:
            super().__init__(local)
            self.params = ZoneParameters({"TZID": tzid})

        def is_utc(self) -> bool:
            return False

    return WallClock
