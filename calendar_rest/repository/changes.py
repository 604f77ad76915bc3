"""The change log's writes: every successful write appends, in its own transaction,
one entry per record it created, changed, trashed or deleted (``sync.md`` §3.9).

An entry's position is the write generation its transaction took first
(``bump_generation``): the generation row lock queues writers, so positions commit in
order on every backend, and a reader that sees generation *H* committed sees every
entry at or before *H*. Compaction keeps every record's latest entry.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import peewee as pw

from ..models import ChangeEntry, Event, Organizer, PostModel, SiteState, Term, Venue
from ..queries.changes import RECORD_TYPES, TERM_TYPES, post_type
from ..queries.site_state import CHANGES_PRUNED, GENERATION, read_counter
from .site_state import write_position

#: what a caller's visibility of a record depends on: its status and author
Seen = tuple[str, int | None]
#: terms are public while they exist
TERM_SEEN: Seen = ("publish", None)


def seen(record: PostModel) -> Seen:
    """A post's visibility attributes as they are now."""
    return (record.status, record.author_id)


def record_change(
    record_type: str,
    record_id: int,
    before: Seen | None,
    after: Seen | None,
    when: dt.datetime,
) -> None:
    """Append one entry at the running write's position; ``None`` before: created,
    ``None`` after: deleted, and ``trash`` after counts as deleted (§4.2's kinds)."""
    if after is None or after[0] == "trash":
        kind = "deleted"
    else:
        kind = "created" if before is None else "updated"
    ChangeEntry.create(
        position=write_position(),
        record_type=record_type,
        record_id=record_id,
        kind=kind,
        changed_utc=when.replace(microsecond=0, tzinfo=None),
        before_status=before[0] if before else None,
        before_author=before[1] if before else None,
        after_status=after[0] if after else None,
        after_author=after[1] if after else None,
    )


def record_post_change(record: PostModel, before: Seen | None) -> None:
    """A post's change, timed by its own ``modified_utc`` (the feed shows the same
    value as the record)."""
    record_change(post_type(record), record.id, before, seen(record), record.modified_utc)


def record_term_change(
    term: Term, before: Seen | None, after: Seen | None, when: dt.datetime
) -> None:
    record_change(TERM_TYPES[term.taxonomy], term.id, before, after, when)


def seed_change_log(now: dt.datetime) -> int:
    """One ``created`` entry for every record that has none (``calendar-rest init`` on
    a database written before the log existed, or by hand); returns how many."""
    position = read_counter(GENERATION)
    added = 0
    for record_type, model in (("event", Event), ("venue", Venue), ("organizer", Organizer)):
        logged = ChangeEntry.select(ChangeEntry.record_id).where(
            ChangeEntry.record_type == record_type
        )
        rows = model.select(model.id, model.status, model.author, model.modified_utc).where(
            model.id.not_in(logged)
        )
        for row in rows:
            _seed(position, record_type, row.id, (row.status, row.author_id), row.modified_utc)
            added += 1
    for record_type in TERM_TYPES.values():
        taxonomy = next(name for name, kind in TERM_TYPES.items() if kind == record_type)
        logged = ChangeEntry.select(ChangeEntry.record_id).where(
            ChangeEntry.record_type == record_type
        )
        terms = Term.select(Term.id).where((Term.taxonomy == taxonomy) & Term.id.not_in(logged))
        for term in terms:
            _seed(position, record_type, term.id, TERM_SEEN, now)
            added += 1
    return added


def _seed(position: int, record_type: str, record_id: int, after: Seen, when: t.Any) -> None:
    ChangeEntry.create(
        position=position,
        record_type=record_type,
        record_id=record_id,
        kind="created",
        changed_utc=when,
        after_status=after[0],
        after_author=after[1],
    )


def prune_changes(before: dt.datetime) -> int:
    """Compact the log (§3.7): of the entries changed before ``before``, drop the
    ``deleted`` ones and those a later entry of the same record supersedes, never a
    record's latest entry; remember the highest position dropped, below which tokens
    are refused. Returns how many entries were dropped."""
    later = ChangeEntry.alias("later")
    superseded = pw.fn.EXISTS(
        later.select(pw.SQL("1")).where(
            (later.record_type == ChangeEntry.record_type)
            & (later.record_id == ChangeEntry.record_id)
            & (later.id > ChangeEntry.id)
        )
    )
    old = ChangeEntry.changed_utc < before
    doomed = [
        (row.id, row.position)
        for row in ChangeEntry.select(ChangeEntry.id, ChangeEntry.position).where(
            old & ((ChangeEntry.kind == "deleted") | superseded)
        )
    ]
    if not doomed:
        return 0
    highest = max(position for _, position in doomed)
    for start in range(0, len(doomed), 500):
        ids = [entry_id for entry_id, _ in doomed[start : start + 500]]
        ChangeEntry.delete().where(ChangeEntry.id.in_(ids)).execute()
    SiteState.update(value=highest).where(
        (SiteState.key == CHANGES_PRUNED) & (SiteState.value < highest)
    ).execute()
    return len(doomed)


__all__ = [
    "RECORD_TYPES",
    "Seen",
    "TERM_SEEN",
    "prune_changes",
    "record_change",
    "record_post_change",
    "record_term_change",
    "seed_change_log",
    "seen",
]
