"""Venue and organizer look-ups and their archive as SQL, every filter index-served.

Single look-ups use prepared SQL like events (the hot path). The archive is one
filtered selection: a page query ordered by publication date, a COUNT of the same
selection, and one batched image look-up (``posts.images_of``), whatever the page size.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import operator
import typing as t

import peewee as pw

from ...models import Event, EventOrganizer, PostModel, User, Venue, could_exist
from ..sql.modified import ModifiedFilters, list_order, modified_conditions
from ..sql.prepared import fetch
from ..sql.statements import Statement, built, reader, rows
from ..sql.visibility import listable, readable
from ..sql.word_search import every_word
from .counts import counted

M = t.TypeVar("M", bound=PostModel)
#: events in these statuses do not count for ``has_events`` (TEC)
UNSCHEDULED = ("draft", "pending")


def linked_by_id(model: type[M], record_id: int) -> M | None:
    if not could_exist(record_id):
        return None
    rows = fetch(
        model, (model.__name__, "by_id"), lambda: model.select().where(model.id == 1), [record_id]
    )
    return rows[0][0] if rows else None


def linked_by_ids(model: type[M], record_ids: t.Iterable[int]) -> dict[int, M]:
    """The records of ``model`` with these IDs, by ID, in one statement."""
    wanted = sorted({record_id for record_id in record_ids if could_exist(record_id)})
    if not wanted:
        return {}
    return {record.id: record for record in model.select().where(model.id.in_(wanted))}


def linked_by_slug(model: type[M], slug: str) -> M | None:
    rows = fetch(
        model, (model.__name__, "by_slug"), lambda: model.select().where(model.slug == "x"), [slug]
    )
    return rows[0][0] if rows else None


def find_duplicate(
    model: type[M], name: str, description: str | None, user: User | None
) -> M | None:
    """TEC's duplicate rule: same title (any case) and, if given, same description;
    among the records ``user`` may read only (a hidden record is never reused)."""
    query = model.select().where(
        (pw.fn.LOWER(model.title) == name.lower())
        & (model.status != "trash")
        & readable(model, user)
    )
    if description is not None:
        query = query.where(model.description == description)
    found: M | None = query.order_by(model.id).first()
    return found


def find_duplicates(
    model: type[M], wanted: t.Sequence[tuple[str, str | None]], user: User | None
) -> list[M | None]:
    """:func:`find_duplicate` of each ``(name, description)``, in one statement (an event
    write carries up to a hundred inline organizers)."""
    names = sorted({name.lower() for name, _ in wanted})
    if not names:
        return []
    candidates: dict[str, list[M]] = {}
    query = model.select().where(
        pw.fn.LOWER(model.title).in_(names) & (model.status != "trash") & readable(model, user)
    )
    for record in query.order_by(model.id):
        candidates.setdefault(record.title.lower(), []).append(record)
    # rows Python's comparison would not pair with any name: the database's collation
    # equals more than case (MariaDB's ignores accents), and then so may its
    # comparison of descriptions; such items are looked up one by one, as before
    unclaimed = set(candidates) - {name.lower() for name, _ in wanted}
    found: list[M | None] = []
    for name, description in wanted:
        same = candidates.get(name.lower(), [])
        match = next((r for r in same if description in (None, r.description)), None)
        if match is None and (unclaimed or same):
            match = find_duplicate(model, name, description, user)
        found.append(match)
    return found


@dataclasses.dataclass
class LinkedFilters:
    """Validated, resolved filters of ``GET /venues`` or ``GET /organizers``."""

    language: str
    search_kind: str
    statuses: list[str] | None = None
    search_words: list[str] = dataclasses.field(default_factory=list)
    #: only records linked to this event
    event: Event | None = None
    #: True: linked to a scheduled event; False: not linked to any
    has_events: bool | None = None
    #: only records linked to events starting at or after this UTC time
    upcoming_after: dt.datetime | None = None
    #: ``modified_after``/``modified_before`` and ``orderby=modified``
    modified: ModifiedFilters = dataclasses.field(default_factory=ModifiedFilters)


def linked_archive_query(
    model: type[M], filters: LinkedFilters, user: User | None
) -> pw.ModelSelect[M]:
    """The filtered, unordered archive selection for ``user``."""
    conditions: list[pw.ColumnBase] = [
        model.language == filters.language,
        listable(model, user, filters.statuses),
    ]
    conditions += every_word(model, filters.search_kind, filters.search_words, user)
    conditions += modified_conditions(model, filters.modified)
    if filters.event is not None:
        conditions.append(model.id.in_(_linked_ids(model, Event.id == filters.event.id)))
    if filters.has_events is not None:
        scheduled = _linked_ids(model, Event.status.not_in(UNSCHEDULED) & readable(Event, user))
        conditions.append(
            model.id.in_(scheduled) if filters.has_events else model.id.not_in(scheduled)
        )
    if filters.upcoming_after is not None:
        upcoming = (Event.start_utc >= filters.upcoming_after) & listable(Event, user)
        conditions.append(model.id.in_(_linked_ids(model, upcoming)))
    return model.select().where(functools.reduce(operator.and_, conditions))


def _linked_ids(model: type[PostModel], event_condition: pw.Expression) -> pw.Select:
    """IDs of the records of ``model`` linked to events matching the condition."""
    if model is Venue:
        return Event.select(Event.venue).where(event_condition & Event.venue.is_null(False))
    return (
        EventOrganizer.select(EventOrganizer.organizer)
        .join(Event, on=EventOrganizer.event == Event.id)
        .where(event_condition)
    )


def linked_count(model: type[M], filters: LinkedFilters, user: User | None) -> Statement:
    """The statement whose rows are the list's total (``counts.CountCache``)."""
    key = (model.__name__, repr(filters), reader(user))
    return counted(key, lambda: linked_archive_query(model, filters, user))


def linked_page(
    model: type[M], filters: LinkedFilters, user: User | None, limit: int, offset: int
) -> list[M]:
    """One page, newest publication first, then highest ID (WordPress's default), or
    by ``modified`` when asked."""

    def ordered() -> pw.ModelSelect[M]:
        order = list_order(model, filters.modified, (model.date_utc.desc(), model.id.desc()))
        query = linked_archive_query(model, filters, user).order_by(*order)
        return query.limit(limit).offset(offset)

    key = (model.__name__, repr(filters), reader(user), limit, offset)
    return rows(model, built(key, ordered))
