"""Reads of the change log (``models.ChangeEntry``): record revisions, the entries of
one write, and the change feed's walks (``sync.md`` §3).

A walk is read between two positions, both committed: entries at or before the
head *H* a reader saw committed all are, since the generation row orders commits
(``repository.changes``). Visibility is judged per caller from the attributes each
entry stored before and after its change, with the rule of a single read
(``visibility.readable_state``).
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ...models import ChangeEntry, Event, Organizer, PostModel, User, Venue
from ...wordpress.taxonomies import CATEGORIES, TAGS
from ..loaded import FEED_COLLECTIONS, FeedEntry
from ..lookups.site_state import CHANGES_PRUNED, read_counter
from ..sql.prepared import prepared_sql
from ..sql.visibility import readable, readable_state

COLLECTIONS = FEED_COLLECTIONS
RECORD_TYPES = tuple(COLLECTIONS)
#: a term's record type by its stored taxonomy name
TERM_TYPES = {CATEGORIES.name: "category", TAGS.name: "tag"}
POST_TYPES: dict[type[PostModel], str] = {Event: "event", Venue: "venue", Organizer: "organizer"}


def post_type(record: PostModel) -> str:
    return POST_TYPES[type(record)]


def revision(record_type: str, record_id: int) -> int:
    """The position of the record's latest change (0: none logged): every successful
    write of the record changes it, even twice in one second."""
    database = ChangeEntry._meta.database
    sql = prepared_sql(
        database,
        "revision",
        lambda: ChangeEntry.select(pw.fn.MAX(ChangeEntry.position)).where(
            (ChangeEntry.record_type == "t") & (ChangeEntry.record_id == 0)
        ),
    )
    row = database.execute_sql(sql, [record_type, record_id]).fetchone()
    return int(row[0] or 0) if row else 0


def changed_events(since: int, until: int, most: int) -> set[int] | None:
    """The IDs of the events written after position ``since`` up to ``until`` (both
    committed), or None when the log cannot name them all: a write there also changed
    another kind of record (a term, venue or organizer an event filter may look at), a
    write logged nothing, compaction dropped entries there, or more than ``most``
    entries were logged (``queries.counts`` catches list totals up with this)."""
    if until - since > most:
        return None
    database = ChangeEntry._meta.database
    sql = prepared_sql(
        database,
        "changed_records",
        lambda: (
            ChangeEntry.select(ChangeEntry.position, ChangeEntry.record_type, ChangeEntry.record_id)
            .where((ChangeEntry.position > 0) & (ChangeEntry.position <= 0))
            .limit(1)
        ),
    )
    rows = database.execute_sql(sql, [since, until, most + 1]).fetchall()
    if len(rows) > most or any(record_type != "event" for _, record_type, _ in rows):
        return None
    if len({position for position, _, _ in rows}) != until - since:
        return None  # a write that logged nothing: what it changed is not known here
    if read_counter(CHANGES_PRUNED) > since:  # read after the entries (compaction)
        return None
    return {record_id for _, _, record_id in rows}


def _type_filter(types: t.Sequence[str]) -> pw.Node:
    if len(types) == len(RECORD_TYPES):
        return pw.SQL("1 = 1")
    return ChangeEntry.record_type.in_(list(types))


def _after_readable(user: User | None) -> pw.Node:
    return readable_state(ChangeEntry.after_status, ChangeEntry.after_author, user)


def _before_readable(user: User | None) -> pw.Node:
    return readable_state(ChangeEntry.before_status, ChangeEntry.before_author, user)


def _initial_query(position: int, types: t.Sequence[str], user: User | None) -> pw.Select:
    """The state at ``position``: each record's latest entry at or before it, kept
    when this caller may read its after-state (§3.4)."""
    latest = (
        ChangeEntry.select(pw.fn.MAX(ChangeEntry.id))
        .where((ChangeEntry.position <= position) & _type_filter(types))
        .group_by(ChangeEntry.record_type, ChangeEntry.record_id)
    )
    return ChangeEntry.select().where(ChangeEntry.id.in_(latest) & _after_readable(user))


def _type_rank() -> pw.Node:
    return pw.Case(
        ChangeEntry.record_type, [(name, rank) for rank, name in enumerate(RECORD_TYPES)]
    )


def initial_walk(
    position: int, types: t.Sequence[str], user: User | None, offset: int, limit: int
) -> tuple[int, list[FeedEntry]]:
    """The total and one page of an initial sync at ``position``: ``upsert`` only,
    by record type then ID."""
    query = _initial_query(position, types, user)
    total = query.count()
    rows = query.order_by(_type_rank(), ChangeEntry.record_id).offset(offset).limit(limit)
    return total, [
        FeedEntry(row.record_type, row.record_id, "upsert", row.changed_utc) for row in rows
    ]


def incremental_walk(
    since: int,
    position: int,
    types: t.Sequence[str],
    user: User | None,
    offset: int,
    limit: int,
) -> tuple[int, list[FeedEntry]]:
    """The total and one page of the changes after ``since`` up to ``position``,
    oldest first: ``upsert`` when readable after, ``delete`` when readable only
    before, nothing when never readable (§3.5, §3.6)."""
    after = _after_readable(user)
    action = pw.Case(None, [(after, "upsert")], "delete")
    seen_by_caller = pw.Expression(after, "OR", _before_readable(user))
    query = ChangeEntry.select(
        ChangeEntry.record_type, ChangeEntry.record_id, action, ChangeEntry.changed_utc
    ).where(
        (ChangeEntry.position > since)
        & (ChangeEntry.position <= position)
        & _type_filter(types)
        & seen_by_caller
    )
    total = query.count()
    rows = query.order_by(ChangeEntry.position, ChangeEntry.id).offset(offset).limit(limit)
    return total, [FeedEntry(*t.cast(tuple[t.Any, ...], row)) for row in rows.tuples()]


def protected_events(ids: t.Collection[int], user: User | None) -> dict[int, str]:
    """Which of the events ``ids`` are password-protected now and readable by ``user``
    (not trashed), with their languages: their ``upsert`` entries name the list that
    shows them to this caller (``wire.changes.protected_keys``). The current state,
    not the entry's: it is what fetching a URL of the entry gives."""
    if not ids:
        return {}
    query = Event.select(Event.id, Event.language).where(
        Event.id.in_(sorted(ids))
        & (Event.password != "")
        & (Event.status != "trash")
        & readable(Event, user)
    )
    return {row.id: row.language for row in query}


__all__ = [
    "COLLECTIONS",
    "FeedEntry",
    "POST_TYPES",
    "RECORD_TYPES",
    "TERM_TYPES",
    "changed_events",
    "incremental_walk",
    "initial_walk",
    "post_type",
    "protected_events",
    "revision",
]
