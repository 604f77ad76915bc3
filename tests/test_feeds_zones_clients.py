"""The feeds' VTIMEZONEs read by ical.js (Mozilla's parser, Thunderbird's) with nothing
but the feed's own definitions, through ``tests/clients/icaljs.js`` and
``icaljs_zones.js``: open-ended series in fifteen zones expand into the API's
occurrences over ten years and into zoneinfo's instants over twenty (recurring-ical-events
reads the ten years with the feed's VTIMEZONEs too), and every zone's VTIMEZONE gives
zoneinfo's instant around each offset change of ten years.

Needs Node.js and ``npm ci --prefix tests/clients``; runs under
``CALENDAR_REST_TEST_CLIENTS=1`` (skipped without Node, failed under
``CALENDAR_REST_REQUIRE_CLIENTS=1``).
"""

from __future__ import annotations

import datetime as dt
import json
import typing as t
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from client_servers import node, run_node
from conftest import Api, api_for
from dateutil.rrule import rrulestr
from feed_helpers import NEW_YORK, Instance, icaljs, icaljs_instances, read_feed, stored_uids
from zone_probes import every_zone, expected_unix, probe_walls

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.dates import resolve_timezone
from calendar_rest.wire.vtimezone import Zone, ical_zone, vtimezone

pytestmark = [pytest.mark.clients]
NOW = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
#: the API's rows reach ten years ahead (``recurrence_horizon_days``); the feed's rules
#: are read for twenty, beyond the rows
API_END, RULE_END = NOW.replace(year=2036), NOW.replace(year=2046)
OPEN_SERIES = [
    # zone, rule, first local start: at noon on the weekdays the zone changes its offset
    (NEW_YORK, "RRULE:FREQ=WEEKLY", "2026-03-01 12:00:00"),
    ("Australia/Sydney", "RRULE:FREQ=WEEKLY", "2026-03-01 12:00:00"),
    ("Europe/Paris", "RRULE:FREQ=WEEKLY", "2026-03-01 12:00:00"),
    ("America/Santiago", "RRULE:FREQ=WEEKLY", "2026-03-01 12:00:00"),  # Saturday 24:00
    ("America/Santiago", "RRULE:FREQ=MONTHLY;BYDAY=1SA", "2026-03-07 21:30:00"),
    ("Pacific/Chatham", "RRULE:FREQ=WEEKLY", "2026-03-01 12:00:00"),  # +12:45 and +13:45
    ("Australia/Lord_Howe", "RRULE:FREQ=MONTHLY;BYDAY=1SU", "2026-03-01 12:00:00"),  # 30 min
    ("Europe/Dublin", "RRULE:FREQ=MONTHLY;BYDAY=-1SU", "2026-03-29 12:00:00"),  # DST in winter
    ("Africa/Casablanca", "RRULE:FREQ=WEEKLY;INTERVAL=2", "2026-03-01 12:00:00"),  # Ramadan
    ("Africa/Cairo", "RRULE:FREQ=MONTHLY;BYDAY=-1FR", "2026-03-27 12:00:00"),
    ("Asia/Gaza", "RRULE:FREQ=MONTHLY;BYDAY=-1SA", "2026-03-28 12:00:00"),
    ("America/Nuuk", "RRULE:FREQ=MONTHLY;BYDAY=-1SA", "2026-03-28 12:00:00"),  # Saturday 23:00
    ("Asia/Tehran", "RRULE:FREQ=MONTHLY", "2026-03-01 12:00:00"),  # no DST since 2022
    ("UTC", "RRULE:FREQ=MONTHLY", "2026-03-01 12:00:00"),
    ("UTC+5:30", "RRULE:FREQ=MONTHLY", "2026-03-01 12:00:00"),
]
Instants = dict[str, list[tuple[str, str]]]


class OpenSeries(t.NamedTuple):
    """The archive feed of ``OPEN_SERIES``, and by UID each master's zone, its rule's
    UTC starts and ends per zoneinfo up to ``RULE_END``, and the API's occurrences."""

    body: bytes
    zones: dict[str, str]
    expected: Instants
    listed: Instants


@pytest.fixture
def open_series(api: Api, sibling_app: t.Callable[..., Application]) -> OpenSeries:
    """``OPEN_SERIES`` written through the API, their occurrences ten years ahead."""
    node()
    ten_years = sibling_app(clock=ManualClock(NOW), recurrence_horizon_days=3700, max_per_page=600)
    client = api_for(ten_years, api)
    window = {"start_date": "2026-01-01 00:00:00", "end_date": "2046-12-31 23:59:59"}
    masters = []
    for zone, rule, start in OPEN_SERIES:
        first = dt.datetime.fromisoformat(start)
        master = client.create_event(
            title=f"{zone} {rule}",
            timezone=zone,
            start_date=start,
            end_date=f"{first + dt.timedelta(hours=1):%Y-%m-%d %H:%M:%S}",
            recurrence=[rule],
        )
        masters.append((master["id"], zone, rule, first))
    uids = stored_uids(ten_years)
    zones, expected, listed = {}, {}, {}
    for master_id, zone, rule, first in masters:
        uid = uids[master_id]
        zones[uid], expected[uid] = zone, rule_instants(rule, first, zone)
        occurrences = client.get(
            f"/events/{master_id}/occurrences", query_string={**window, "per_page": 600}
        ).json["events"]
        listed[uid] = [(item["utc_start_date"], item["utc_end_date"]) for item in occurrences]
    body = client.get("/events.ics", query_string=window).get_data()
    return OpenSeries(body, zones, expected, listed)


def rule_instants(rule: str, first: dt.datetime, zone: str) -> list[tuple[str, str]]:
    """UTC start and end (an hour later on the wall clock) of each of the rule's local
    starts before ``RULE_END`` (dateutil), converted by Python's zoneinfo."""
    tzinfo = resolve_timezone(zone)
    walls = rrulestr(rule.removeprefix("RRULE:"), dtstart=first)
    assert walls[0] == first, "the first start is a date of the rule"
    instants = []
    for wall in walls:
        start = wall.replace(tzinfo=tzinfo).astimezone(dt.timezone.utc)
        if start >= RULE_END:
            break
        end = (wall + dt.timedelta(hours=1)).replace(tzinfo=tzinfo).astimezone(dt.timezone.utc)
        instants.append((f"{start:%Y-%m-%d %H:%M:%S}", f"{end:%Y-%m-%d %H:%M:%S}"))
    return instants


def by_uid(instances: t.Iterable[Instance]) -> Instants:
    found: Instants = {}
    for item in sorted(instances):
        found.setdefault(item.uid, []).append((item.start, item.end))
    return found


def before(instants: Instants, end: dt.datetime) -> Instants:
    """The instants that start before ``end``."""
    limit = f"{end:%Y-%m-%d %H:%M:%S}"
    return {uid: [pair for pair in pairs if pair[0] < limit] for uid, pairs in instants.items()}


def test_open_ended_series_read_with_the_feeds_zones_are_the_apis_for_ten_years_and_beyond(
    open_series: OpenSeries, tmp_path: Path
) -> None:
    """Every instant ical.js reads with the feed's own VTIMEZONEs: the API's
    occurrences over ten years, and zoneinfo's for each rule over twenty (a VTIMEZONE
    listing the changes of a span of years put New York an hour off after its end).
    recurring-ical-events reads the same ten years, icalendar using the feed's
    VTIMEZONEs too (the TZIDs renamed; it expands their rules up to 2038)."""
    report = icaljs(open_series.body, RULE_END, tmp_path)
    tzids = {uid: ical_zone(zone).tzid for uid, zone in open_series.zones.items()}
    assert sorted(report["zones"]) == sorted(set(tzids.values()))
    for item in report["instances"]:
        assert item["zones"] == [f"feed:{tzids[item['uid']]}"] * 2
    read = by_uid(icaljs_instances(report))
    listed = before(open_series.listed, API_END)
    assert before(read, API_END) == listed
    assert before(open_series.expected, API_END) == listed
    for uid, zone in open_series.zones.items():
        assert read[uid] == open_series.expected[uid], zone
    python = read_feed(open_series.body, API_END.date(), own_zones=True)
    assert before(by_uid(python), API_END) == listed


def test_icaljs_reads_every_zone_as_zoneinfo_for_ten_years(tmp_path: Path) -> None:
    """The VTIMEZONE of every zone the API accepts, from 2026 on, read by ical.js: an
    hour either side of every change zoneinfo makes up to 2036, and noon twice a month."""
    node()
    zones, expected = [], {}
    for name in every_zone():
        walls = probe_walls(ZoneInfo(name), 2026, 2036)
        text = vtimezone(Zone(name), 2026).to_ical().decode()
        zones.append({"tzid": name, "vtimezone": text, "walls": [w.isoformat() for w in walls]})
        expected[name] = expected_unix(ZoneInfo(name), walls)
    plan = tmp_path / "zones.json"
    plan.write_text(json.dumps({"zones": zones}))
    assert run_node("icaljs_zones.js", {"file": str(plan)}) == expected
