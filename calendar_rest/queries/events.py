"""Event look-ups by ID and by slug, on prepared SQL (the single-event hot path)."""

from __future__ import annotations

from ..models import Event, could_exist
from .prepared import fetch


def event_by_id(event_id: int) -> Event | None:
    if not could_exist(event_id):
        return None
    rows = fetch(Event, "event_by_id", lambda: Event.select().where(Event.id == 1), [event_id])
    return rows[0][0] if rows else None


def event_by_slug(slug: str) -> Event | None:
    rows = fetch(Event, "event_by_slug", lambda: Event.select().where(Event.slug == "x"), [slug])
    return rows[0][0] if rows else None
