"""schema.org JSON-LD for single reads (TEC's ``Tribe__JSON_LD__*``), without its quirks:
e-mails are not entity-scrambled and descriptions carry no stray ``\\n``."""

from __future__ import annotations

import typing as t

from ..models import Attachment, Event, Organizer, Venue
from ..wordpress.text import json_ld_escape, wpautop

SCHEMA = "https://schema.org/"
#: ``event_status`` → schema.org EventStatusType
EVENT_STATUSES = {
    "scheduled": "EventScheduled",
    "canceled": "EventCancelled",
    "postponed": "EventPostponed",
    "rescheduled": "EventRescheduled",
    "moved_online": "EventMovedOnline",
}
#: ``attendance_mode`` → schema.org EventAttendanceModeEnumeration
ATTENDANCE_MODES = {
    "offline": "OfflineEventAttendanceMode",
    "online": "OnlineEventAttendanceMode",
    "mixed": "MixedEventAttendanceMode",
}


def _thing(
    kind: str, record: Venue | Organizer | Event, image: Attachment | None
) -> dict[str, t.Any]:
    """What every schema.org object starts with: type, name, description, image."""
    data: dict[str, t.Any] = {
        "@type": kind,
        "name": record.title,
        "description": json_ld_escape(wpautop(record.excerpt or record.description)),
    }
    if image is not None:
        data["image"] = image.url
    return data


def venue_json_ld(
    venue: Venue, image: Attachment | None, *, geolocation: bool = True
) -> dict[str, t.Any]:
    data = _thing("Place", venue, image)
    data["url"] = ""
    address = {
        "@type": "PostalAddress",
        "streetAddress": venue.address,
        "addressLocality": venue.city,
        "addressRegion": venue.state or venue.province,
        "postalCode": venue.zip,
        "addressCountry": venue.country,
    }
    data["address"] = {key: value for key, value in address.items() if value}
    if geolocation and venue.geo_lat is not None and venue.geo_lng is not None:
        data["geo"] = {
            "@type": "GeoCoordinates",
            "latitude": venue.geo_lat,
            "longitude": venue.geo_lng,
        }
    data["telephone"] = venue.phone
    data["sameAs"] = venue.website
    return data


def organizer_json_ld(organizer: Organizer, image: Attachment | None) -> dict[str, t.Any]:
    data = _thing("Person", organizer, image)
    data["url"] = organizer.website
    data["telephone"] = organizer.phone
    data["email"] = organizer.email
    data["sameAs"] = organizer.website
    return data


def event_json_ld(
    event: Event,
    *,
    url: str,
    start: str,
    end: str,
    image: Attachment | None,
    venue: dict[str, t.Any] | None,
    organizers: list[dict[str, t.Any]],
    price: str | None,
    currency_code: str,
    previous_start: str | None = None,
) -> dict[str, t.Any]:
    """The event's JSON-LD; ``venue``/``organizers`` are already-built JSON-LD parts,
    ``previous_start`` the start a rescheduling moved it from (ISO 8601).

    A scheduled event has no ``eventStatus``, key for key as TEC's REST answer (its
    pages say ``EventScheduled``: ``site.structured``); any other status is said."""
    data = {"@context": "http://schema.org", **_thing("Event", event, image)}
    data["url"] = url
    if event.event_status != "scheduled":
        data["eventStatus"] = SCHEMA + EVENT_STATUSES.get(event.event_status, "EventScheduled")
    data["eventAttendanceMode"] = SCHEMA + ATTENDANCE_MODES.get(
        event.attendance_mode, "OfflineEventAttendanceMode"
    )
    data["startDate"] = start
    data["endDate"] = end
    if previous_start is not None:
        data["previousStartDate"] = previous_start
    location = _location(event, venue)
    if location is not None:
        data["location"] = location
    if organizers:
        data["organizer"] = organizers[0] if len(organizers) == 1 else organizers
    if price is not None:
        data["offers"] = {
            "@type": "Offer",
            "price": price,
            "priceCurrency": currency_code,
            "url": url,
            "category": "primary",
            "availability": "inStock",
        }
    data["performer"] = "Organization"
    return data


def _location(event: Event, venue: dict[str, t.Any] | None) -> t.Any:
    """The venue's Place; for online events a VirtualLocation, for mixed ones both
    (schema.org's ``location`` takes a list); an event moved online is online."""
    online = event.attendance_mode in ("online", "mixed") or event.event_status == "moved_online"
    if not online or not event.online_url:
        return venue
    virtual = {"@type": "VirtualLocation", "url": event.online_url}
    if event.attendance_mode == "mixed" and venue is not None:
        return [venue, virtual]
    return virtual
