"""Event look-ups by ID and by slug, on prepared SQL (the single-event hot path)."""

from __future__ import annotations

from ..models import Event
from .prepared import fetch

#: largest id a 32-bit INTEGER primary key can hold; larger path ids cannot exist
MAX_ID = 2**31 - 1


def event_by_id(event_id: int) -> Event | None:
    if not 0 < event_id <= MAX_ID:
        return None
    rows = fetch(Event, "event_by_id", lambda: Event.select().where(Event.id == 1), [event_id])
    return rows[0][0] if rows else None


def event_by_slug(slug: str) -> Event | None:
    rows = fetch(Event, "event_by_slug", lambda: Event.select().where(Event.slug == "x"), [slug])
    return rows[0][0] if rows else None
