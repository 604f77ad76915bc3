"""Event status on the pages, read by the external JSON-LD validator that
``test_site_clients.py`` uses (``tests/clients/jsonld_events.js``: structured-data-
testing-tool with Google's Event requirements): a cancelled event, an event moved
online (a VirtualLocation) and a mixed one (a Place and a VirtualLocation) are valid
Events with the schema.org status and mode (anchors.md §1).

Needs Node.js and ``npm ci --prefix tests/clients``; runs under
``CALENDAR_REST_TEST_CLIENTS=1``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import typing as t
from pathlib import Path

import pytest
from conftest import Api
from site_checks import structured_data
from site_helpers import page

pytestmark = [pytest.mark.clients]
JOIN = "https://meet.example.org/concert"
BLOCK = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def slot(days: int) -> dict[str, str]:
    start = dt.datetime.now().replace(hour=19, minute=0, second=0, microsecond=0)
    start += dt.timedelta(days=days)
    return {
        "start_date": start.strftime("%Y-%m-%d %H:%M:%S"),
        "end_date": (start + dt.timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S"),
    }


CASES: dict[str, dict[str, t.Any]] = {
    "cancelled": {"event_status": "canceled", "event_status_reason": "The singer is ill."},
    "moved-online": {
        "event_status": "moved_online",
        "attendance_mode": "online",
        "online_url": JOIN,
    },
    "mixed": {"attendance_mode": "mixed", "online_url": JOIN},
}
EXPECTED = {
    "cancelled": ("EventCancelled", "OfflineEventAttendanceMode"),
    "moved-online": ("EventMovedOnline", "OnlineEventAttendanceMode"),
    "mixed": ("EventScheduled", "MixedEventAttendanceMode"),
}


def test_the_validator_accepts_every_status_page(api: Api, tmp_path: Path) -> None:
    files: dict[str, Path] = {}
    shown: dict[str, dict[str, t.Any]] = {}
    for number, (name, fields) in enumerate(CASES.items()):
        event = api.create_event(
            title=f"Concert {name}",
            description="<p>An evening of songs.</p>",
            venue={"venue": "Harbor Hall", "address": "12 Wharf Street", "city": "Boston"},
            organizer=[{"organizer": "Ada"}],
            **fields,
            **slot(3 + number),
        )
        answer = page(api, event["url"].removeprefix("http://localhost"))
        assert answer.status_code == 200
        body = answer.get_data(as_text=True)
        (block,) = BLOCK.findall(body)
        shown[name] = json.loads(block)
        files[name] = tmp_path / f"{name}.html"
        files[name].write_text(body)
    for name, (status, mode) in EXPECTED.items():
        assert shown[name]["eventStatus"] == f"https://schema.org/{status}"
        assert shown[name]["eventAttendanceMode"] == f"https://schema.org/{mode}"
    assert [item["@type"] for item in shown["mixed"]["location"]] == ["Place", "VirtualLocation"]
    checked = structured_data(files)
    for name in CASES:
        assert checked[name]["types"] == ["Event"], checked[name]
        assert checked[name]["errors"] == [], (name, checked[name])
