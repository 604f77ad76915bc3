"""What the feed tests share (``tests/test_feeds*.py``): reading a feed as a calendar
client does (icalendar with recurring-ical-events, or ical.js through
``tests/clients/icaljs.js``), the same facts read off the JSON API, and a recurring
series built as rows (the fields of ``calendar.md`` §4.1), so the export is tested
whatever writes series.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import typing as t
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events
from client_servers import run_node

from calendar_rest.app import Application
from calendar_rest.models import Event

UTC = dt.timezone.utc
#: far enough for every test's dates (the default window is two years from today)
WINDOW = {"start_date": "2020-01-01 00:00:00", "end_date": "2035-12-31 23:59:59"}
NEW_YORK = "America/New_York"


class Instance(t.NamedTuple):
    """One instance as a client shows it: UTC instants (``Y-m-d H:i:s``) of a timed
    one, first and exclusive last day (``Y-m-d``) of an all-day one."""

    uid: str
    summary: str
    start: str
    end: str
    all_day: bool


def read_feed(
    body: bytes, until: dt.date = dt.date(2035, 12, 31), *, own_zones: bool = False
) -> list[Instance]:
    """Every instance of a feed, series expanded (python recurring-ical-events); with
    ``own_zones``, its times read with the feed's VTIMEZONEs (``renamed_zones``)."""
    calendar = icalendar.Calendar.from_ical(renamed_zones(body) if own_zones else body)
    components = recurring_ical_events.of(calendar).between(dt.date(2000, 1, 1), until)
    return sorted(_instance(component) for component in components)


def renamed_zones(body: bytes) -> bytes:
    """The feed with each TZID renamed after a digest of its VTIMEZONE: icalendar
    reads an IANA name with its own zoneinfo, a name it does not know with the
    feed's definition (and keeps it for the process: the digest keeps two
    definitions apart)."""
    text = body.replace(b"\r\n ", b"").decode()
    names = {
        name: "feed-zone-" + hashlib.sha256(block.encode()).hexdigest()[:16]
        for block, name in re.findall(
            r"(BEGIN:VTIMEZONE\r\nTZID:([^\r]+)\r\n.*?END:VTIMEZONE)", text, re.S
        )
    }

    def renamed(name: str) -> str:
        return names.get(name, name)

    text = re.sub(r"\nTZID:([^\r]+)", lambda match: "\nTZID:" + renamed(match[1]), text)
    text = re.sub(r';TZID="([^"]+)"', lambda match: f';TZID="{renamed(match[1])}"', text)
    text = re.sub(r";TZID=([^\";:]+)", lambda match: ";TZID=" + renamed(match[1]), text)
    return text.encode()


def icaljs(body: bytes, until: dt.datetime, folder: Path) -> dict[str, t.Any]:
    """What ``icaljs.js`` reads in ``body``, series expanded up to ``until`` (aware;
    handed in a file: a long feed does not fit a command line)."""
    plan = folder / "icaljs-plan.json"
    plan.write_text(json.dumps({"ics": body.decode(), "until": until.isoformat()}))
    return t.cast(dict[str, t.Any], run_node("icaljs.js", {"file": str(plan)}))


def icaljs_instances(report: dict[str, t.Any]) -> list[Instance]:
    """The instances ``icaljs.js`` reported, as ``read_feed`` gives them."""
    found = []
    for item in report["instances"]:
        if item["allDay"]:
            span = (item["startDate"], item["endDate"])
        else:
            span = tuple(
                dt.datetime.fromisoformat(item[key].replace("Z", "+00:00")).strftime(
                    "%Y-%m-%d %H:%M:%S"
                )
                for key in ("start", "end")
            )
        found.append(Instance(item["uid"], item["summary"], *span, item["allDay"]))
    return sorted(found)


def _instance(component: t.Any) -> Instance:
    start, end = component.decoded("DTSTART"), component.decoded("DTEND")
    all_day = not isinstance(start, dt.datetime)
    if all_day:
        first, last = start.isoformat(), end.isoformat()
    else:
        first, last = _utc(start), _utc(end)
    return Instance(str(component["UID"]), str(component["SUMMARY"]), first, last, all_day)


def _utc(when: dt.datetime) -> str:
    assert when.tzinfo is not None, f"a floating time: {when}"
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def json_instances(events: t.Iterable[dict[str, t.Any]], uids: dict[int, str]) -> list[Instance]:
    """The same facts read off JSON events: UTC start and end, or for all-day events
    the first day and the day after the last (RFC 5545's exclusive end)."""
    found = []
    for event in events:
        if event["all_day"]:
            first = dt.date.fromisoformat(event["start_date"][:10])
            last = dt.date.fromisoformat(event["end_date"][:10]) + dt.timedelta(days=1)
            span = (first.isoformat(), last.isoformat())
        else:
            span = (event["utc_start_date"], event["utc_end_date"])
        found.append(Instance(uids[event["id"]], event["title"], *span, event["all_day"]))
    return sorted(found)


def stored_uids(app: Application) -> dict[int, str]:
    with app.database.connection_context():
        return {event.id: event.uid for event in Event.select(Event.id, Event.uid)}


def descriptions(body: bytes) -> dict[str, str | None]:
    """``SUMMARY`` → ``DESCRIPTION`` (None when absent) of every VEVENT."""
    calendar = icalendar.Calendar.from_ical(body)
    return {
        str(event["SUMMARY"]): (str(event["DESCRIPTION"]) if "DESCRIPTION" in event else None)
        for event in calendar.walk("VEVENT")
    }


def make_series(
    app: Application,
    master_id: int,
    lines: list[str],
    dates: list[dt.datetime],
    *,
    moved: dict[dt.datetime, tuple[dt.datetime, str]] | None = None,
    deleted: t.Sequence[dt.datetime] = (),
) -> dict[dt.datetime, int]:
    """Turn event ``master_id`` into the master of a series as stored rows: its
    ``recurrence`` lines, and one occurrence per further local start in ``dates`` (the
    first is the master's own). ``moved`` maps an original start to its new start and
    title (an exception); ``deleted`` dates are trashed occurrences. Returns the
    occurrence IDs by original start."""
    moved = moved or {}
    ids = {}
    with app.database.connection_context():
        master = Event.get_by_id(master_id)
        zone = ZoneInfo(master.timezone)
        length = master.end_local - master.start_local
        master.recurrence = json.dumps(lines)
        master.original_start = dates[0]
        master.save()
        ids[dates[0]] = master.id
        for original in dates[1:]:
            start, title = moved.get(original, (original, master.title))
            row = dict(master.__data__)
            row.pop("id")
            row.update(
                series_master=master.id,
                recurrence="",
                original_start=original,
                slug=f"{master.slug}-{original:%Y-%m-%d}",
                title=title,
                start_local=start,
                end_local=start + length,
                start_utc=_naive_utc(start, zone),
                end_utc=_naive_utc(start + length, zone),
                exception_fields=json.dumps(["title", "start_date"]) if original in moved else "",
                status="trash" if original in deleted else master.status,
            )
            ids[original] = Event.create(**row).id
    return ids


def _naive_utc(local: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    return local.replace(tzinfo=zone).astimezone(UTC).replace(tzinfo=None)
