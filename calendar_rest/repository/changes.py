"""The change log's writes: every successful write appends, in its own transaction,
one entry per record it created, changed, trashed or deleted (``sync.md`` §3.9).

A write collects its entries while it runs (:func:`collecting_changes`); its last step
(:meth:`PendingChanges.commit`) takes its position, the write generation it bumps to,
and inserts them. The generation row's lock is held from there to the commit, so
positions commit in order on every backend, a reader that sees generation *H*
committed sees every entry at or before *H*, and writes to different records wait
for each other only for that last step. Compaction keeps every record's latest entry.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import typing as t

import peewee as pw

from ..db import insert_rows
from ..models import ChangeEntry, Event, Organizer, PostModel, SiteState, Term, Venue
from ..queries.lists.changes import RECORD_TYPES, TERM_TYPES, post_type
from ..queries.lookups.site_state import CHANGES_PRUNED, GENERATION, read_counter
from .site_state import claim_position

#: what a caller's visibility of a record depends on: its status and author
Seen = tuple[str, int | None]
#: terms are public while they exist
TERM_SEEN: Seen = ("publish", None)


def seen(record: PostModel) -> Seen:
    """A post's visibility attributes as they are now."""
    return (record.status, record.author_id)


class PendingChanges:
    """The entries of the running write, inserted by its last step."""

    def __init__(self) -> None:
        self.entries: list[ChangeEntry] = []

    def mark(self) -> int:
        """Where a savepoint starts: :meth:`roll_back_to` forgets what came after."""
        return len(self.entries)

    def roll_back_to(self, mark: int) -> None:
        del self.entries[mark:]

    def commit(self, now: dt.datetime | None = None) -> int:
        """The write's last step before its commit: take its position and insert its
        entries there; returns the position (the write generation it produced)."""
        position = claim_position(now)
        fields = [field for field in ChangeEntry._meta.sorted_fields if field.name != "id"]
        stored = [
            [
                position
                if field is ChangeEntry.position
                else field.db_value(entry.__data__.get(field.name))
                for field in fields
            ]
            for entry in self.entries
        ]
        # a series write has an entry per row (thousands): plain multi-row statements
        insert_rows(ChangeEntry, [field.name for field in fields], stored)
        self.entries = []
        return position


_pending: contextvars.ContextVar[PendingChanges | None] = contextvars.ContextVar(
    "pending_changes", default=None
)


@contextlib.contextmanager
def collecting_changes() -> t.Iterator[PendingChanges]:
    """Collect the entries of the write run inside; the caller ends it with
    :meth:`PendingChanges.commit` in the same transaction."""
    pending = PendingChanges()
    token = _pending.set(pending)
    try:
        yield pending
    finally:
        _pending.reset(token)


def record_change(
    record_type: str,
    record_id: int,
    before: Seen | None,
    after: Seen | None,
    when: dt.datetime,
) -> None:
    """Add one entry to the running write's; ``None`` before: created, ``None`` after:
    deleted, and ``trash`` after counts as deleted (§4.2's kinds).

    :raises RuntimeError: outside :func:`collecting_changes` (a write that would
        leave no trace in the log).
    """
    pending = _pending.get()
    if pending is None:
        raise RuntimeError("a change was recorded outside collecting_changes()")
    if after is None or after[0] == "trash":
        kind = "deleted"
    else:
        kind = "created" if before is None else "updated"
    pending.entries.append(
        ChangeEntry(
            record_type=record_type,
            record_id=record_id,
            kind=kind,
            changed_utc=when.replace(microsecond=0, tzinfo=None),
            before_status=before[0] if before else None,
            before_author=before[1] if before else None,
            after_status=after[0] if after else None,
            after_author=after[1] if after else None,
        )
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
    "PendingChanges",
    "RECORD_TYPES",
    "Seen",
    "TERM_SEEN",
    "collecting_changes",
    "prune_changes",
    "record_change",
    "record_post_change",
    "record_term_change",
    "seed_change_log",
    "seen",
]
