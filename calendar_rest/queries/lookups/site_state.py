"""Reads of the site-wide counters (``SiteState``) that every process shares.

Both are read on hot paths, so they run on prepared SQL: one primary-key read each.
"""

from __future__ import annotations

import weakref

import peewee as pw

from ...models import SiteState
from ..sql.prepared import prepared_sql

#: bumped by every write transaction: what cached responses are stamped with
GENERATION = "generation"
#: the longest event on record, in seconds: bounds "ends after X" to a start range
MAX_EVENT_SECONDS = "max_event_seconds"
#: the version of the word index's format (``repository.search_index``)
SEARCH_INDEX = "search_index"
#: a random number made once by ``init``: sync tokens name the database they belong to
DATABASE_ID = "database_id"
#: the highest change-log position compaction removed an entry at (``sync.md`` §3.7)
CHANGES_PRUNED = "changes_pruned"
#: when the latest write happened (Unix seconds), set with the generation: the archive
#: feed's ``Last-Modified`` (``calendar.md`` §2.2), deletions included
LAST_WRITE = "last_write"
KEYS = (GENERATION, MAX_EVENT_SECONDS, SEARCH_INDEX, DATABASE_ID, CHANGES_PRUNED, LAST_WRITE)


def read_counter(key: str) -> int:
    """One counter, by primary key; 0 when its row is missing."""
    database = SiteState._meta.database
    sql = prepared_sql(
        database,
        "site_state",
        lambda: SiteState.select(SiteState.value).where(SiteState.key == "k"),
    )
    row = database.execute_sql(sql, [key]).fetchone()
    return int(row[0]) if row else 0


def generation() -> int:
    """The write generation: any write in any process since a read changes it."""
    return read_counter(GENERATION)


def current_generation() -> int:
    """The write generation at the start of a request: :func:`generation`, or on a
    SQLite file the one last read, while no process has committed since
    (``generation_watch``)."""
    watch = getattr(SiteState._meta.database, "generation_watch", None)
    return generation() if watch is None else watch.current(generation)


def last_write() -> int:
    """When the latest write happened, in Unix seconds (0: none recorded yet)."""
    return read_counter(LAST_WRITE)


def database_id() -> int:
    return read_counter(DATABASE_ID)


def max_event_seconds(generation: int | None = None) -> int:
    """The longest event on record, in seconds; at a known write ``generation`` read
    once per generation (only a write changes it), else read now."""
    if generation is None:
        return read_counter(MAX_EVENT_SECONDS)
    database = SiteState._meta.database
    kept = _longest.get(database)
    if kept is not None and kept[0] == generation:
        return kept[1]
    value = read_counter(MAX_EVENT_SECONDS)
    _longest[database] = (generation, value)
    return value


#: ``max_event_seconds`` per database, with the write generation it was read at
_longest: weakref.WeakKeyDictionary[pw.Database, tuple[int, int]] = weakref.WeakKeyDictionary()


def existing_counters() -> set[str]:
    return {row.key for row in SiteState.select(SiteState.key)}
