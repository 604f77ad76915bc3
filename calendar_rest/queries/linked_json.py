"""An event's organizers and terms as two JSON columns of the event's own row (SQLite).

Served, a cold read costs far more than its work in-process: the app's read lane
gives Python's interpreter lock up around every step of every SQLite statement, and
waitress's main loop, woken by the next request, takes it there, so each statement
hands the lock across the two cores and back. Read as aggregated columns of the
event's row, the organizers and terms cost no statement of their own and no step per
linked row: a single event is one statement instead of three, a list page two
instead of four. Measured at 100,000 events on 2 cores (cold reads, wrk, three
alternating runs of each server): a single event 10 % more answers a second (2,047
-> 2,259) on 8 % less CPU a request; a list page, whose time goes to building its
rows and representations, the same (1,085 -> 1,091).

SQLite only (:func:`inline_linked`): its JSON text holds each stored value exactly as
the row would (integers, text, NULL; none of these tables has a REAL or BLOB column).
PostgreSQL and MariaDB keep a statement per kind (``related._linked_by_event``), whose
rows their drivers type.
"""

from __future__ import annotations

import typing as t

import orjson
import peewee as pw

from ..db import backend_name
from ..models import Event, EventLink, EventOrganizer, EventTerm, Organizer, Term
from .rows import row_class

L = t.TypeVar("L", Organizer, Term)


class Linked(t.NamedTuple):
    """One event's organizers (in the event's order) and terms (by name, then ID), as
    read-only rows (``rows.py``), unfiltered: ``load_related`` applies visibility."""

    organizers: list[Organizer]
    terms: list[Term]


def inline_linked(database: pw.Database) -> bool:
    """Whether reads of events on ``database`` carry :func:`linked_columns`."""
    return backend_name(database) == "sqlite"


def linked_columns() -> tuple[pw.Node, pw.Node]:
    """The two columns to add to a select of :class:`Event`: the JSON arrays of its
    organizers and of its terms, each element a row of the linked table's columns
    followed by what orders it (``_sort_keys``)."""
    return (
        _aggregated(Organizer, EventOrganizer, EventOrganizer.organizer).alias("organizers_json"),
        _aggregated(Term, EventTerm, EventTerm.term).alias("terms_json"),
    )


def _aggregated(model: type[L], link: type[EventLink], target: pw.ForeignKeyField) -> pw.Select:
    """``model``'s rows linked to the outer query's event, as one JSON array. Aliased
    tables: the outer query already names ``model`` when it reads the venue's."""
    linked = model.alias(f"linked_{model._meta.table_name}")
    through = link.alias(f"through_{link._meta.table_name}")
    columns = [getattr(linked, field.name) for field in model._meta.sorted_fields]
    return (
        linked.select(pw.fn.json_group_array(pw.fn.json_array(*columns, through.position)))
        .join(through, on=(getattr(through, target.name) == linked.id))
        .where(through.event == Event.id)
    )


def read_linked(organizers_json: str, terms_json: str) -> Linked:
    """The :class:`Linked` of one event from its two :func:`linked_columns`."""
    return Linked(
        _rows(Organizer, organizers_json, _organizer_order), _rows(Term, terms_json, _term_order)
    )


def _rows(model: type[L], text: str, order: t.Callable[[list[t.Any]], t.Any]) -> list[L]:
    cls = row_class(model)
    width = len(model._meta.sorted_fields)
    new = tuple.__new__
    found = orjson.loads(text)
    if len(found) > 1:
        found.sort(key=order)
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
