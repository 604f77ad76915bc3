"""An event's organizers and terms as two JSON columns of the event's own row.

Served, a cold read costs more the more statements it runs. On SQLite the app's read
lane gives Python's interpreter lock up around every step of every statement, and
waitress's main loop, woken by the next request, takes it there, so each statement
hands the lock across the two cores and back; on PostgreSQL and MariaDB each
statement is a round trip to the server. Read as aggregated columns of the event's
row, the organizers and terms cost no statement of their own and no step per linked
row: a single event is one statement instead of three, a list page two instead of
four. Measured at 100,000 events on 2 cores (SQLite, cold reads, wrk, three
alternating runs of each server): a single event 10 % more answers a second (2,047
-> 2,259) on 8 % less CPU a request; a list page, whose time goes to building its
rows and representations, the same (1,085 -> 1,091). On PostgreSQL, in-process: a
single event 1.72-1.87 -> 1.42-1.47 ms, the default list 2.52-2.62 -> 2.35-2.36 ms.

Each element is the linked table's row as JSON holds it: integers, text and NULL as
stored (none of these tables has a REAL or BLOB column), dates as text in ISO 8601,
which the rows' converters read as they read SQLite's (``prepared.converter``).
PostgreSQL orders each array in the aggregate, by its collation as the statements per
kind do (``related._linked_by_event``); SQLite before 3.44 has no ordered aggregate,
so :func:`split_linked` orders its arrays (by code point, which is SQLite's binary
collation of UTF-8). MariaDB keeps the statements per kind (:func:`carries_linked`):
its ``JSON_ARRAYAGG`` cuts its result at ``group_concat_max_len`` (1 MB by default)
without an error, which a few long organizer descriptions would reach.
"""

from __future__ import annotations

import typing as t

import orjson
import peewee as pw

from ...db import backend_name
from ...models import Event, EventLink, EventOrganizer, EventTerm, Organizer, Term
from .rows import row_class

L = t.TypeVar("L", Organizer, Term)


class Linked(t.NamedTuple):
    """One event's organizers (in the event's order) and terms (by name, then ID), as
    read-only rows (``rows.py``), unfiltered: ``load_related`` applies visibility."""

    organizers: list[Organizer]
    terms: list[Term]


#: per backend: the aggregate that gathers a JSON array, the function that makes one
_JSON_FUNCTIONS = {
    "sqlite": ("json_group_array", "json_array"),
    "postgresql": ("json_agg", "json_build_array"),
}


def carries_linked(database: pw.Database) -> bool:
    """Whether reads of events on ``database`` carry :func:`linked_columns`."""
    return backend_name(database) in _JSON_FUNCTIONS


def _orders_in_python(database: pw.Database) -> bool:
    """Whether :func:`_read_linked` must order what ``database`` aggregated."""
    return backend_name(database) == "sqlite"


def linked_columns(database: pw.Database) -> tuple[pw.Node, pw.Node]:
    """The two columns to add to a select of :class:`Event`: the JSON arrays of its
    organizers (in the event's order, then by ID) and of its terms (by name, then
    ID), each element a row of the linked table's columns followed by the link's
    position."""
    backend = backend_name(database)
    return (
        _aggregated(
            backend,
            Organizer,
            EventOrganizer,
            EventOrganizer.organizer,
            lambda linked, through: (through.position, linked.id),
        ).alias("organizers_json"),
        _aggregated(
            backend,
            Term,
            EventTerm,
            EventTerm.term,
            lambda linked, through: (linked.name, linked.id),
        ).alias("terms_json"),
    )


def _aggregated(
    backend: str,
    model: type[L],
    link: type[EventLink],
    target: pw.ForeignKeyField,
    order: t.Callable[[t.Any, t.Any], tuple[pw.Node, ...]],
) -> pw.Select:
    """``model``'s rows linked to the outer query's event, as one JSON array. Aliased
    tables: the outer query already names ``model`` when it reads the venue's."""
    linked = model.alias(f"linked_{model._meta.table_name}")
    through = link.alias(f"through_{link._meta.table_name}")
    columns = [getattr(linked, field.name) for field in model._meta.sorted_fields]
    gather, make = _JSON_FUNCTIONS[backend]
    aggregate = getattr(pw.fn, gather)(getattr(pw.fn, make)(*columns, through.position))
    if backend == "postgresql":
        aggregate = aggregate.order_by(*order(linked, through))
    return (
        linked.select(aggregate)
        .join(through, on=(getattr(through, target.name) == linked.id))
        .where(through.event == Event.id)
    )


def split_linked(
    database: pw.Database, values: t.Sequence[t.Any]
) -> tuple[t.Sequence[t.Any], Linked | None]:
    """A row's trailing ``values`` without the two :func:`linked_columns` the read
    added where ``database`` :func:`carries_linked`, and the :class:`Linked` they
    hold (None where it does not: the caller reads them apart)."""
    if not carries_linked(database):
        return values, None
    *rest, organizers_json, terms_json = values
    return rest, _read_linked(organizers_json, terms_json, order=_orders_in_python(database))


def _read_linked(organizers_json: t.Any, terms_json: t.Any, *, order: bool) -> Linked:
    """The :class:`Linked` of one event from its two :func:`linked_columns`, as the
    driver returned them (JSON text from SQLite; parsed already by psycopg2, and NULL
    for none), ordered here when ``order``."""
    return Linked(
        _rows(Organizer, organizers_json, _organizer_order if order else None),
        _rows(Term, terms_json, _term_order if order else None),
    )


def _rows(model: type[L], value: t.Any, order: t.Callable[[list[t.Any]], t.Any] | None) -> list[L]:
    if value is None:
        return []
    found = orjson.loads(value) if isinstance(value, (str, bytes)) else value
    if order is not None and len(found) > 1:
        found.sort(key=order)
    cls = row_class(model)
    width = len(model._meta.sorted_fields)
    new = tuple.__new__
    return [t.cast(L, new(cls, values[:width])) for values in found]


_ORGANIZER_POSITION = len(Organizer._meta.sorted_fields)
_TERM_NAME = [field.name for field in Term._meta.sorted_fields].index("name")


def _organizer_order(values: list[t.Any]) -> tuple[t.Any, ...]:
    """An event's organizers in the order it lists them (then by ID), as
    ``related._linked_by_event`` orders them."""
    return values[_ORGANIZER_POSITION], values[0]


def _term_order(values: list[t.Any]) -> tuple[t.Any, ...]:
    """Terms by name, then ID (WordPress's order); Python compares names by code point,
    as SQLite's binary collation compares their UTF-8."""
    return values[_TERM_NAME], values[0]
