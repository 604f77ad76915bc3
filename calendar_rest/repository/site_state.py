"""Writes of the site-wide counters (``SiteState``); see ``queries.site_state``."""

from __future__ import annotations

import datetime as dt
import secrets
import time

from ..models import SiteState
from ..queries.lookups.site_state import (
    DATABASE_ID,
    GENERATION,
    KEYS,
    LAST_WRITE,
    MAX_EVENT_SECONDS,
    existing_counters,
    read_counter,
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
    """Mark every cache stale, inside the write's own transaction, so readers in other
    processes see the new generation exactly when they can see the write; also record
    when the write happened (``now``, else the system clock).

    The update takes the generation row's lock until the commit: writers that bump
    commit one after the other, in the order of their generations.
    """
    SiteState.update(value=SiteState.value + 1).where(SiteState.key == GENERATION).execute()
    seconds = int(now.timestamp()) if now is not None else int(time.time())
    SiteState.update(value=seconds).where(SiteState.key == LAST_WRITE).execute()


def claim_position(now: dt.datetime | None = None) -> int:
    """A write's position, taken as its last step before it logs its changes and
    commits (``sync.md`` §3.8): the generation it bumps to. Until the commit no other
    writer can take the next one, so positions commit in order, and the lock is held
    for the end of the write only: writes to different records run side by side."""
    bump_generation(now)
    return read_counter(GENERATION)


def note_event_seconds(seconds: int) -> None:
    """Raise the longest-event bound if this event is longer (it never shrinks, which
    keeps it a safe bound). A value read from an older snapshot is never above the
    stored one, so skipping the update when it already covers ``seconds`` is safe."""
    if seconds <= read_counter(MAX_EVENT_SECONDS):
        return  # the usual case: no update, so no row lock that other writers would queue on
    SiteState.update(value=seconds).where(
        (SiteState.key == MAX_EVENT_SECONDS) & (SiteState.value < seconds)
    ).execute()
