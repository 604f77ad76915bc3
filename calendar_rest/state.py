"""Site-wide counters kept in the database (``SiteState``), shared by every process."""

from __future__ import annotations

from .models import SiteState
from .queries.prepared import prepared_sql

GENERATION = "generation"
MAX_EVENT_SECONDS = "max_event_seconds"
KEYS = (GENERATION, MAX_EVENT_SECONDS)


def ensure_state_rows() -> None:
    """Create the counter rows if missing (part of schema creation)."""
    existing = {row.key for row in SiteState.select(SiteState.key)}
    for key in KEYS:
        if key not in existing:
            SiteState.create(key=key, value=0)


def read(key: str) -> int:
    """One counter, by primary key, on prepared SQL (it is read on hot paths)."""
    database = SiteState._meta.database
    sql = prepared_sql(
        database,
        "site_state",
        lambda: SiteState.select(SiteState.value).where(SiteState.key == "k"),
    )
    row = database.execute_sql(sql, [key]).fetchone()
    return int(row[0]) if row else 0


def bump_generation() -> None:
    """Mark every cache stale; runs inside the write's own transaction, so readers in
    other processes see the new generation exactly when they can see the write."""
    SiteState.update(value=SiteState.value + 1).where(SiteState.key == GENERATION).execute()


def note_event_seconds(seconds: int) -> None:
    """Raise the longest-event bound if this event is longer (it never shrinks, which
    keeps it a safe bound)."""
    SiteState.update(value=seconds).where(
        (SiteState.key == MAX_EVENT_SECONDS) & (SiteState.value < seconds)
    ).execute()
