"""Writes of the site-wide counters (``SiteState``); see ``queries.site_state``."""

from __future__ import annotations

import datetime as dt
import secrets
import time

from ..models import SiteState
from ..queries.site_state import (
    DATABASE_ID,
    GENERATION,
    KEYS,
    LAST_WRITE,
    MAX_EVENT_SECONDS,
    existing_counters,
)


def ensure_counters() -> None:
    """Create the counter rows if missing (part of schema creation); the database ID
    is random, so tokens of one database are refused by another."""
    existing = existing_counters()
    for key in KEYS:
        if key not in existing:
            value = secrets.randbits(48) + 1 if key == DATABASE_ID else 0
            SiteState.create(key=key, value=value)


def bump_generation(now: dt.datetime | None = None) -> None:
    """Mark every cache stale; runs inside the write's own transaction, so readers in
    other processes see the new generation exactly when they can see the write.

    As the first statement of a write it also takes the row lock that queues writers
    (as SQLite's IMMEDIATE does), so unique slugs are chosen one writer at a time.
    It also records when the write happened (``now``, else the system clock).
    """
    SiteState.update(value=SiteState.value + 1).where(SiteState.key == GENERATION).execute()
    seconds = int(now.timestamp()) if now is not None else int(time.time())
    SiteState.update(value=seconds).where(SiteState.key == LAST_WRITE).execute()


def write_position() -> int:
    """The position of the running write: the generation its first statement took
    (``bump_generation``), which no other writer can take or commit before it."""
    row = SiteState.get(SiteState.key == GENERATION)
    return int(row.value)


def note_event_seconds(seconds: int) -> None:
    """Raise the longest-event bound if this event is longer (it never shrinks, which
    keeps it a safe bound)."""
    SiteState.update(value=seconds).where(
        (SiteState.key == MAX_EVENT_SECONDS) & (SiteState.value < seconds)
    ).execute()
