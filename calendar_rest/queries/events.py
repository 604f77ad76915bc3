"""Event look-ups by ID and by slug."""

from __future__ import annotations

from ..models import Event

#: largest id a 32-bit INTEGER primary key can hold; larger path ids cannot exist
MAX_ID = 2**31 - 1


def event_by_id(event_id: int) -> Event | None:
    if not 0 < event_id <= MAX_ID:
        return None
    return Event.get_or_none(Event.id == event_id)


def event_by_slug(slug: str) -> Event | None:
    return Event.get_or_none(Event.slug == slug)
