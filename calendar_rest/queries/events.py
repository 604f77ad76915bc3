"""Event look-ups and the archive query."""

from __future__ import annotations

import dataclasses
import datetime as dt

import peewee as pw

from ..models import Event, User
from .visibility import listable

#: largest id a 32-bit INTEGER primary key can hold; larger path ids cannot exist
MAX_ID = 2**31 - 1


def event_by_id(event_id: int) -> Event | None:
    if not 0 < event_id <= MAX_ID:
        return None
    return Event.get_or_none(Event.id == event_id)


def event_by_slug(slug: str) -> Event | None:
    return Event.get_or_none(Event.slug == slug)


@dataclasses.dataclass(frozen=True)
class ArchiveWindow:
    """The default date window of the archive, as UTC bounds."""

    start_utc: dt.datetime
    end_utc: dt.datetime


def archive_query(user: User | None, window: ArchiveWindow) -> pw.ModelSelect:
    """Events listed by default: visible to ``user``, not hidden, inside the window."""
    return Event.select().where(
        (Event.hide_from_listings == False)  # noqa: E712 - SQL comparison
        & listable(Event, user)
        & (Event.start_utc >= window.start_utc)
        & (Event.end_utc <= window.end_utc)
    )


def archive_page(query: pw.ModelSelect, page: int, per_page: int) -> list[Event]:
    ordered = query.order_by(Event.start_utc, Event.id)
    return list(ordered.limit(per_page).offset((page - 1) * per_page))
