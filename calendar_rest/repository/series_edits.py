"""Writes and deletes with a ``scope`` (calendar.md §4.4, §4.5): the entry points the
API and the importers call for events that may belong to a series.

- :func:`save_event_write` creates or updates an event: a stand-alone event, a new
  series (``recurrence`` sent), an exception (one occurrence), a series-wide edit or a
  split ("this and following").
- :func:`save_series` creates a series from an already validated write (importers).
- :func:`apply_exception` changes one occurrence alone.
- :func:`reset_exceptions` gives an occurrence the series' values back (importers).
- :func:`delete_event_write` trashes by scope.

Each runs inside the caller's transaction, after ``check_event_write``; each row it
creates, changes, trashes or deletes gets one change-log entry.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t
import uuid

import orjson

from ..dates import format_datetime
from ..dates.recurrence import ends_before, exdate_line, split_lines
from ..models import Event
from ..queries.lookups.series import master_of, series_rows
from .events import EventWrite, trash_event, write_event
from .posts import WriteContext
from .series import SeriesLimits, end_series, extend_series, resync, start_series
from .series_journal import Journal
from .series_rows import save_rows, set_links, trash_rows, update_alike
from .series_values import (
    DATES,
    OCCURRENCE_FIELDS,
    anchor_of,
    apply_values,
    base_of,
    exceptions_of,
    lines_of,
    moved_anchor,
    moved_lines,
    place,
    reexpands,
    restamp,
    set_exceptions,
    store_base,
    values_of,
    words_touched,
)
from .series_words import (
    has_own_text,
    keys_in_use,
    move_shared_words,
    moved_key,
    rekey,
    store_shared_words,
)
from .word_index import index_record, shared_fields

#: what moving rows to another series changes on each (a split, a promotion)
MOVED_COLUMNS = ("series_master", "uid", "words_from", "modified", "modified_utc", "sequence")

NOT_FIELDS = frozenset({"scope", "recurrence"})


def _without(write: EventWrite, names: t.Collection[str]) -> EventWrite:
    return dataclasses.replace(write, args={k: v for k, v in write.args.items() if k not in names})


def save_event_write(
    write: EventWrite, ctx: WriteContext, event: Event | None, limits: SeriesLimits
) -> Event:
    """Create (``event`` None) or update an event with the series semantics of §4.4;
    returns what the API answers: the edited occurrence, or the master after a
    series-wide edit or a split. :raises InvalidParams: a rule over the cap."""
    args = write.args
    scope = args.get("scope")
    master = master_of(event) if event is not None else None
    if event is None or master is None:
        return save_series(_without(write, ("scope",)), ctx, limits, event)
    if event.id != master.id and scope == "following":
        return split_series(write, ctx, master, event, limits)
    if (event.id == master.id and scope != "this") or scope in ("all", "following"):
        return update_series(write, ctx, master, event, limits)
    return apply_exception(write, ctx, event, limits)


def save_series(
    write: EventWrite, ctx: WriteContext, limits: SeriesLimits, event: Event | None = None
) -> Event:
    """Create an event, or update a stand-alone one, and start a series when the write
    has ``recurrence`` lines: the event becomes the master and its occurrences are
    created up to the horizon. For importers, ``write`` comes from
    ``check_event_write`` like an API write."""
    journal = Journal.of(event)
    lines = write.args.get("recurrence") or []
    creating = event is None
    event = write_event(_without(write, NOT_FIELDS), ctx, event)
    if creating:
        journal.new(event)
    else:
        journal.note(event)
    if lines:
        start_series(event, lines, ctx, journal, limits)
    journal.flush()
    return event


def apply_exception(
    write: EventWrite, ctx: WriteContext, occurrence: Event, limits: SeriesLimits
) -> Event:
    """Change one occurrence alone (scope ``this``): the fields sent become its
    exception fields, which later series-wide edits leave alone. An occurrence whose
    ``start_date`` differs from its ``original_start`` is a moved one."""
    journal = Journal.of(occurrence)
    trimmed = _without(write, NOT_FIELDS)
    set_exceptions(occurrence, exceptions_of(occurrence) | set(trimmed.args))
    _share_words(occurrence)  # the text it changes alone becomes its own words
    occurrence = write_event(trimmed, ctx, occurrence)
    journal.note(occurrence)
    journal.flush()
    master = master_of(occurrence)
    if master is not None:
        extend_series(ctx, limits, [master])
    return occurrence


def reset_exceptions(occurrence: Event, ctx: WriteContext, keep: t.Collection[str] = ()) -> Event:
    """Give an occurrence the series' values back for its exception fields not in
    ``keep``: its base values, its original dates (an import's exception that is
    missing from the file, calendar.md §5). Nothing is written when none is reset."""
    master = master_of(occurrence)
    fields = exceptions_of(occurrence) - set(keep)
    if master is None or not fields:
        return occurrence
    journal = Journal.of(occurrence)
    base = base_of(master)
    values = {field: base[field] for field in fields - set(DATES) if field in base}
    apply_values(occurrence, values)
    if fields & set(DATES):
        original = occurrence.original_start or occurrence.start_local
        place(occurrence, original, anchor_of(master, base))
    set_exceptions(occurrence, exceptions_of(occurrence) - fields)
    _share_words(occurrence)
    restamp(occurrence, ctx)
    occurrence.save()
    set_links([occurrence], values, journal)
    if words_touched(fields):
        index_record(occurrence)
    journal.note(occurrence)
    journal.flush()
    return occurrence


def _share_words(row: Event) -> None:
    """The row shares the words of the series' text it did not change alone (the words
    of a key no row used are made now); its own words follow when it is indexed."""
    master = master_of(row)
    if master is None:
        return
    if rekey(row, master.id, exceptions_of(row)) and row.words_from is not None:
        store_shared_words(master.id, base_of(master), {row.words_from}, prune=False)


def update_series(
    write: EventWrite,
    ctx: WriteContext,
    master: Event,
    target: Event,
    limits: SeriesLimits,
    journal: Journal | None = None,
) -> Event:
    """A series-wide edit sent to ``target`` (the master or an occurrence): the base
    values change, each occurrence takes the new values of the fields it did not change
    alone, and a new rule, start or end re-expands the series (IDs kept by original
    start). Dates sent move the series by their difference from ``target``'s."""
    journal = journal or Journal.of(master)
    args = write.args
    if "recurrence" in args and not args["recurrence"]:
        end_series(master, ctx, journal)
        master = write_event(_without(write, NOT_FIELDS), ctx, master)
        journal.note(master)
        journal.flush()
        return master
    base = base_of(master)
    old = anchor_of(master, base)
    sent = set(args) & OCCURRENCE_FIELDS
    anchor = moved_anchor(args, ctx, old, target, base)
    fields = sent - set(DATES)
    snapshot = values_of(master, fields & exceptions_of(master))
    master = write_event(_without(write, {*NOT_FIELDS, *DATES}), ctx, master)
    values = values_of(master, fields)
    if snapshot:
        apply_values(master, snapshot)
        set_links([master], snapshot, journal)
        if words_touched(snapshot):
            index_record(master)  # its own text again
    base.update(values)
    base.update(
        start_date=format_datetime(anchor.start),
        end_date=format_datetime(anchor.end),
        all_day=anchor.all_day,
    )
    store_base(master, base)
    lines = moved_lines(args, master, base, old, anchor)
    master.recurrence = orjson.dumps(lines).decode()
    rows = series_rows(master.id)
    alike: dict[frozenset[str], list[Event]] = {}
    for row in rows:
        changed = fields - exceptions_of(row)
        if row.id != master.id and row.status != "trash" and changed:
            alike.setdefault(frozenset(changed), []).append(row)
    for taken, group in alike.items():  # rows that take the same values: in bulk
        update_alike(group, {field: values[field] for field in taken}, ctx, journal)
        for row in group:  # the text they changed alone, under a new password
            if has_own_text(row) and words_touched(taken - shared_fields(row.words_from)):
                index_record(row)
    if words_touched(fields):  # the series' text: one copy of its words, not one a row
        store_shared_words(master.id, base, keys_in_use(rows), rewrite=True)
    shift = anchor.start - old.start
    reexpand = reexpands(args)
    resync(master, anchor, shift, ctx, journal, limits, cap=reexpand, rows=rows)
    master.save()
    journal.note(master)
    journal.flush()
    return master


def split_series(
    write: EventWrite, ctx: WriteContext, master: Event, target: Event, limits: SeriesLimits
) -> Event:
    """ "This and following" (§4.4): the old series ends before ``target``, which
    becomes the master of a new series (new UID) taking the later occurrences with
    their IDs and exception fields; the write then applies to the new series."""
    journal = Journal.of(master)
    base = base_of(master)
    anchor = anchor_of(master, base)
    cut = target.original_start or target.start_local
    old_lines, new_lines = split_lines(lines_of(master), cut, anchor)
    master.recurrence = orjson.dumps(old_lines).decode()
    restamp(master, ctx)
    master.save()
    journal.note(master)
    rows = series_rows(master.id)
    later = [
        row
        for row in rows
        if row.id not in (master.id, target.id) and (row.original_start or cut) > cut
    ]
    target.series_master = None
    target.uid = str(uuid.uuid4())
    target.recurrence = orjson.dumps(new_lines).decode()
    new_base = dict(base)
    new_base.update(start_date=format_datetime(cut), end_date=format_datetime(anchor.end_for(cut)))
    new_base["slug"] = target.slug
    store_base(target, new_base)
    target.materialised_until = master.materialised_until
    set_exceptions(target, exceptions_of(target) - set(write.args))
    if rekey(target, target.id, exceptions_of(target)):
        index_record(target)
    target.save()
    journal.note(target)
    _move_rows(later, target, ctx, journal)
    moved = {target.id, *(row.id for row in later)}
    store_shared_words(target.id, new_base, keys_in_use([target, *later]))
    store_shared_words(master.id, base, keys_in_use(r for r in rows if r.id not in moved))
    return update_series(_without(write, ("scope",)), ctx, target, target, limits, journal)


def _move_rows(rows: t.Sequence[Event], master: Event, ctx: WriteContext, journal: Journal) -> None:
    """Rows of a series that another master leads from now on (a split, a promotion):
    its ID, its UID, the keys of its words; a deleted one follows its series, but is
    not changed again."""
    for row in rows:
        row.series_master = master.id
        row.uid = master.uid
        row.words_from = moved_key(row.words_from, master.id)
        if row.status != "trash":
            restamp(row, ctx)
            journal.note(row)
    save_rows(rows, MOVED_COLUMNS)


def delete_event_write(
    event: Event, ctx: WriteContext, scope: str | None, limits: SeriesLimits
) -> Event:
    """Trash by scope (§4.5); returns ``event`` as trashed. A deleted date becomes an
    EXDATE of the series; deleting the master alone promotes the next occurrence."""
    master = master_of(event)
    if master is None:
        return trash_event(event, ctx)
    is_master = event.id == master.id
    if scope == "all" or (is_master and scope in (None, "all", "following")):
        return _trash_rows(event, master.id, ctx, None)
    base = base_of(master)
    anchor = anchor_of(master, base)
    original = event.original_start or event.start_local
    journal = Journal.of(master)
    if scope == "following":
        master.recurrence = orjson.dumps(ends_before(lines_of(master), original, anchor)).decode()
        restamp(master, ctx)
        master.save()
        journal.note(master)
        journal.flush()
        return _trash_rows(event, master.id, ctx, original)
    line = exdate_line(original, base.get("timezone") or master.timezone, anchor.all_day)
    master.recurrence = orjson.dumps([*lines_of(master), line]).decode()
    if not is_master:
        restamp(master, ctx)
        master.save()
        journal.note(master)
        journal.flush()
        return trash_event(event, ctx)
    return _promote_next(master, ctx, journal)


def _trash_rows(
    event: Event, master_id: int, ctx: WriteContext, since: dt.datetime | None
) -> Event:
    """Trash the series' live rows (from original start ``since`` on, if given)."""
    trash_rows(
        [
            event if row.id == event.id else row
            for row in series_rows(master_id)
            if row.status != "trash"
            and (since is None or (row.original_start or row.start_local) >= since)
        ],
        ctx,
    )
    return event


def _promote_next(master: Event, ctx: WriteContext, journal: Journal) -> Event:
    """The master's date was deleted: the next remaining occurrence becomes the master
    (UID and anchor kept), and the old master goes to trash as an occurrence of it."""
    rows = [row for row in series_rows(master.id) if row.id != master.id]
    heir = next((row for row in rows if row.status != "trash"), None)
    if heir is None:
        return trash_event(master, ctx)
    heir.series_master = None
    heir.recurrence, heir.series_base = master.recurrence, master.series_base
    heir.materialised_until = master.materialised_until
    heir.words_from = moved_key(heir.words_from, heir.id)
    move_shared_words(master.id, heir.id)
    restamp(heir, ctx)
    heir.save()
    journal.note(heir)
    _move_rows([row for row in rows if row.id != heir.id], heir, ctx, journal)
    master.series_master = heir.id
    master.recurrence = master.series_base = ""
    master.materialised_until = None
    master.words_from = moved_key(master.words_from, heir.id)
    master.save()
    journal.flush()
    return trash_event(master, ctx)
