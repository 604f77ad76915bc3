"""An event's "Add to calendar" links (``site.md`` §2 "Event"): a Google Calendar
template, an Outlook compose link and the event's own ``.ics`` (the API's feed).

Times go in UTC (``…Z``), so the calendars place the event right whatever their
own zone; an all-day event is given by its days (Google's end day is exclusive).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t
from urllib.parse import urlencode

from ..wire.plain_text import plain_text

STAMP = "%Y-%m-%d %H:%M:%S"


@dataclasses.dataclass(frozen=True)
class CalendarLinks:
    google: str
    outlook: str
    ics: str


def calendar_links(data: t.Mapping[str, t.Any], ics: str) -> CalendarLinks:
    """The links of the event the API renders as ``data``."""
    start = dt.datetime.strptime(data["utc_start_date"], STAMP)
    end = dt.datetime.strptime(data["utc_end_date"], STAMP)
    local_start = dt.datetime.strptime(data["start_date"], STAMP)
    local_end = dt.datetime.strptime(data["end_date"], STAMP)
    details = plain_text(data.get("description") or "")[:1000]
    where = place(data.get("venue"))
    if data.get("all_day"):
        last = local_end.date() + dt.timedelta(days=1)
        dates = f"{local_start:%Y%m%d}/{last:%Y%m%d}"
        start_text, end_text = local_start.date().isoformat(), last.isoformat()
    else:
        dates = f"{start:%Y%m%dT%H%M%SZ}/{end:%Y%m%dT%H%M%SZ}"
        start_text, end_text = f"{start:%Y-%m-%dT%H:%M:%SZ}", f"{end:%Y-%m-%dT%H:%M:%SZ}"
    google = {"action": "TEMPLATE", "text": data["title"], "dates": dates, "details": details}
    outlook = {
        "path": "/calendar/action/compose",
        "rru": "addevent",
        "subject": data["title"],
        "startdt": start_text,
        "enddt": end_text,
        "body": details,
    }
    if where:
        google["location"] = outlook["location"] = where
    if data.get("all_day"):
        outlook["allday"] = "true"
    return CalendarLinks(
        "https://calendar.google.com/calendar/render?" + urlencode(google),
        "https://outlook.live.com/calendar/0/deeplink/compose?" + urlencode(outlook),
        ics,
    )


def place(venue: t.Any) -> str:
    """A venue's name and address on one line ("" without a venue)."""
    if not isinstance(venue, dict) or not venue:
        return ""
    parts = [venue.get(key) for key in ("venue", "address", "city", "stateprovince", "zip")]
    parts.append(venue.get("country"))
    return ", ".join(str(part) for part in parts if part)


def map_link(venue: t.Mapping[str, t.Any]) -> str | None:
    """OpenStreetMap at the venue's coordinates, else a search for its address (a
    link only: no third-party script or embed on the page)."""
    lat, lng = venue.get("geo_lat"), venue.get("geo_lng")
    if lat is not None and lng is not None:
        query = urlencode({"mlat": lat, "mlon": lng})
        return f"https://www.openstreetmap.org/?{query}#map=16/{lat}/{lng}"
    address = ", ".join(
        str(venue[key]) for key in ("address", "city", "zip", "country") if venue.get(key)
    )
    if not address:
        return None
    return "https://www.openstreetmap.org/search?" + urlencode({"query": address})
