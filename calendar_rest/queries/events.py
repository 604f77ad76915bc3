"""Event look-ups by ID and by slug, on prepared SQL (the single-event hot path)."""

from __future__ import annotations

import typing as t

from ..models import Event, PostModel, User, could_exist
from ..permissions import can_read
from .prepared import fetch
from .visibility import readable


def event_by_id(event_id: int) -> Event | None:
    if not could_exist(event_id):
        return None
    rows = fetch(Event, "event_by_id", lambda: Event.select().where(Event.id == 1), [event_id])
    return rows[0][0] if rows else None


def event_by_slug(slug: str) -> Event | None:
    rows = fetch(Event, "event_by_slug", lambda: Event.select().where(Event.slug == "x"), [slug])
    return rows[0][0] if rows else None


def readable_event(event_id: int, user: User | None) -> Event | None:
    """The event ``event_id`` if ``user`` may read it: a hidden event is answered as a
    missing one, so that its existence is not revealed."""
    event = event_by_id(event_id)
    return event if event is not None and can_read(user, event) else None


def readable_ids(model: type[PostModel], ids: t.Sequence[int], user: User | None) -> set[int]:
    """Which of ``ids`` name a record of ``model`` that ``user`` may read."""
    wanted = [record_id for record_id in ids if could_exist(record_id)]
    if not wanted:
        return set()
    query = model.select(model.id).where(model.id.in_(wanted) & readable(model, user))
    return {row.id for row in query}
