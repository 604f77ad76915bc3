"""The rows of a recurring series written in bulk (calendar.md §4.1).

A series write reaches every row of the series (up to ``recurrence_max_occurrences``
of them, 2,000 by default), all while it holds the write lock. Built and run row by
row, as Peewee writes one record, that took half a minute for a series of 2,000; here
a statement serves a batch of rows: new occurrences are inserted by multi-row INSERTs
(their slugs checked, their IDs read back, in a statement per batch), their organizer
and term links copied from the first one's by ``INSERT ... SELECT``, rows that take
the same values updated by one ``UPDATE ... WHERE id IN``, rows with values of their
own (dates) by one prepared statement, and deleted or trashed rows in batches.

The rows stay Peewee instances that match what is stored, so that the write goes on
with them (the change log reads their states, ``series_journal``).
"""

from __future__ import annotations

import datetime as dt
import typing as t

import peewee as pw

from ..dates import from_utc
from ..dates.recurrence import Anchor
from ..db import among, in_batches, insert_rows, update_rows
from ..models import SEARCH_KIND, Event, EventLink, EventOrganizer, EventTerm, SearchWord
from ..queries.lookups.posts import slugs_of
from ..queries.lookups.series import terms_by_ids
from ..queries.lookups.terms import terms_of_events
from ..rules.search import replace_words
from ..wordpress.taxonomies import CATEGORIES, TAGS
from . import changes, posts, terms
from .posts import WriteContext
from .series_journal import Journal
from .series_values import Base, apply_values, columns_of, place, restamp
from .series_words import has_own_text, sharing_key

#: the columns of a new row (all but the ID the database gives it)
ROW_COLUMNS = tuple(field.name for field in Event._meta.sorted_fields if field.name != "id")
#: what a move of the series changes on each row, to values of its own
DATE_COLUMNS = (
    "original_start",
    "start_local",
    "end_local",
    "start_utc",
    "end_utc",
    "modified",
    "modified_utc",
    "sequence",
    "previous_start",
)
TRASH_COLUMNS = ("status", "status_before_trash", "slug", "modified", "modified_utc", "sequence")


def field_names(columns: t.Iterable[str]) -> list[str]:
    """The field names of ``Event`` attributes (``author_id`` is the field ``author``)."""
    fields = Event._meta.fields
    return [name if name in fields else name.removesuffix("_id") for name in columns]


def stored(row: Event, columns: t.Iterable[str]) -> list[t.Any]:
    """The row's values of ``columns`` (field names) as the database stores them."""
    fields = Event._meta.fields
    return [fields[name].db_value(row.__data__.get(name)) for name in columns]


def stored_alike(rows: t.Sequence[Event], columns: t.Sequence[str]) -> list[list[t.Any]]:
    """:func:`stored` of each row, converting only the values that are not the very
    objects the first row holds (rows copied from one, :func:`occurrence_rows`)."""
    if not rows:
        return []
    first = rows[0].__data__
    template = stored(rows[0], columns)
    fields = [Event._meta.fields[name] for name in columns]
    made = [template]
    for row in rows[1:]:
        data = row.__data__
        made.append(
            [
                same
                if data.get(field.name) is first.get(field.name)
                else field.db_value(data.get(field.name))
                for field, same in zip(fields, template, strict=True)
            ]
        )
    return made


def occurrence_row(
    master: Event, base: Base, start: dt.datetime, anchor: Anchor, ctx: WriteContext
) -> Event:
    """A new occurrence, not inserted yet: the master's post fields, the base values,
    its dates, and the series' words (it changed nothing alone)."""
    row = Event(
        language=master.language,
        uid=master.uid,
        series_master=master.id,
        original_start=start,
        date=master.date,
        date_utc=master.date_utc,
        modified_utc=ctx.now,
        modified=from_utc(ctx.now, ctx.site_zone),
        status=master.status,
        author=master.author_id,
        timezone=base.get("timezone") or master.timezone,
        words_from=sharing_key(master.id, ()),
    )
    apply_values(row, base)
    place(row, start, anchor)
    return row


def occurrence_rows(
    master: Event, base: Base, starts: t.Sequence[dt.datetime], anchor: Anchor, ctx: WriteContext
) -> list[Event]:
    """:func:`occurrence_row` for each of ``starts``: the first made field by field, the
    others copied from it with their own dates (a Peewee instance is built a field at
    a time, and thousands of them made a series write wait)."""
    if not starts:
        return []
    first = occurrence_row(master, base, starts[0], anchor, ctx)
    rows = [first]
    for start in starts[1:]:
        row = Event(__no_default__=True)
        row.__data__.update(first.__data__)
        row.original_start = start
        place(row, start, anchor)
        rows.append(row)
    return rows


def insert_occurrences(
    rows: t.Sequence[Event], slugs: t.Sequence[str], base: Base, journal: Journal
) -> None:
    """Insert new occurrences (``slugs``: the slug each asks for) with the base's links,
    and report them to the journal."""
    if not rows:
        return
    taken = set(slugs_of(Event, slugs))
    chosen: set[str] = set()
    for row, slug in zip(rows, slugs, strict=True):
        if slug in taken or slug in chosen:  # rare: a slug of another record
            slug = posts.free_slug(Event, slug, chosen=chosen)
        row.slug = slug
        chosen.add(slug)
    insert_rows(Event, ROW_COLUMNS, stored_alike(rows, ROW_COLUMNS))
    ids = slugs_of(Event, [row.slug for row in rows])
    for row in rows:
        row.id = ids[row.slug]
        journal.new(row)
    set_links(rows, base, journal, fresh=True)


def set_links(
    rows: t.Sequence[Event], values: Base, journal: Journal, *, fresh: bool = False
) -> None:
    """Replace the rows' organizers and terms where ``values`` name them (``fresh``:
    new rows, which have none yet); the first row's links are inserted, the others'
    copied from them."""
    ids = [row.id for row in rows]
    if not ids:
        return
    if "organizer" in values:
        if not fresh:
            for batch in in_batches(ids):
                EventOrganizer.delete().where(among(EventOrganizer.event, batch)).execute()
        _link(EventOrganizer, EventOrganizer.organizer, ids, list(values["organizer"]))
    for taxonomy in (CATEGORIES, TAGS):
        if taxonomy.collection not in values:
            continue
        chosen = [term.id for term in terms_by_ids(values[taxonomy.collection])]
        current = set() if fresh else terms_of_events(ids, taxonomy)
        if current:
            for batch in in_batches(ids):
                EventTerm.delete().where(
                    among(EventTerm.event, batch) & among(EventTerm.term, sorted(current))
                ).execute()
        _link(EventTerm, EventTerm.term, ids, chosen)
        journal.term_ids |= current | set(chosen)


def _link(model: type[EventLink], target: pw.Field, ids: list[int], chosen: list[int]) -> None:
    """Link every event of ``ids`` to ``chosen`` in order: the first by a multi-row
    INSERT, the others by copying its links (``INSERT ... SELECT``, a statement per
    batch of events)."""
    if not chosen:
        return
    first, others = ids[0], ids[1:]
    insert_rows(
        model, ("event", target.name, "position"), [(first, c, i) for i, c in enumerate(chosen)]
    )
    source = model.alias("source")
    copied = getattr(source, target.name)
    for batch in in_batches(others):
        query = (
            Event.select(Event.id, copied, source.position)
            .from_(Event, source)
            .where((source.event == first) & among(Event.id, batch) & among(copied, chosen))
        )
        model.insert_from(query, [model.event, target, model.position]).execute()


def update_alike(
    rows: t.Sequence[Event], values: Base, ctx: WriteContext, journal: Journal
) -> None:
    """Give ``rows`` the same new ``values`` (series-wide fields none of them changed
    alone): their columns by an ``UPDATE`` per batch, their links by :func:`set_links`."""
    if not rows:
        return
    for row in rows:
        apply_values(row, values)
        restamp(row, ctx)
        journal.note(row)
    first = rows[0]
    names = [*field_names(columns_of(values)), "modified", "modified_utc"]
    fields = Event._meta.fields
    assignments: dict[pw.Field, t.Any] = {fields[name]: first.__data__.get(name) for name in names}
    assignments[Event.sequence] = Event.sequence + 1
    for batch in in_batches([row.id for row in rows]):
        Event.update(assignments).where(among(Event.id, batch)).execute()
    set_links(rows, values, journal)


def save_rows(rows: t.Sequence[Event], columns: t.Sequence[str]) -> None:
    """Store the rows' values of ``columns``, each its own (a move of the series gives
    each row dates of its own): one prepared statement for all of them."""
    update_rows(Event, columns, [[*stored(row, columns), row.id] for row in rows])


def save_dates(rows: t.Sequence[Event]) -> None:
    """Store the rows' dates, modification stamps and SEQUENCE."""
    save_rows(rows, DATE_COLUMNS)


def delete_rows(rows: t.Sequence[Event], journal: Journal, now: dt.datetime) -> None:
    """Delete occurrences outright (no user deleted them: a rule change removed their
    dates, or the series ended), with their links and their own words (the words they
    shared stay the series')."""
    ids = [row.id for row in rows]
    if not ids:
        return
    journal.term_ids |= terms_of_events(ids)
    for row in rows:
        if has_own_text(row):
            replace_words(SearchWord, SEARCH_KIND[Event], row.id, {})
    for batch in in_batches(ids):
        # the links first, by their key: cheaper than by the foreign keys' cascade
        EventOrganizer.delete().where(among(EventOrganizer.event, batch)).execute()
        EventTerm.delete().where(among(EventTerm.event, batch)).execute()
        Event.delete().where(among(Event.id, batch)).execute()
    for row in rows:
        journal.deleted(row, now)


def trash_rows(rows: t.Sequence[Event], ctx: WriteContext) -> None:
    """Trash rows of a series (a delete with a scope, §4.5) as ``events.trash_event``
    trashes one: status kept for restoring, slug freed, terms recounted, one change
    each."""
    if not rows:
        return
    before = {row.id: changes.seen(row) for row in rows}
    wanted = [f"{row.slug}__trashed" for row in rows]
    taken = set(slugs_of(Event, wanted))
    chosen: set[str] = set()
    for row, slug in zip(rows, wanted, strict=True):
        if slug in taken or slug in chosen:
            slug = posts.free_slug(Event, slug, exclude_id=row.id, chosen=chosen)
        chosen.add(slug)
        row.slug = slug
        row.status_before_trash = row.status
        row.status = "trash"
        restamp(row, ctx)
    update_rows(Event, TRASH_COLUMNS, [[*stored(row, TRASH_COLUMNS), row.id] for row in rows])
    terms.refresh_term_counts(terms_of_events([row.id for row in rows]))
    for row in rows:
        changes.record_post_change(row, before[row.id])
