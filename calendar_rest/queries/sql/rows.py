"""Read-only records for the hot read paths: each is the row the database returned,
read through the model's field names.

Making a Peewee instance of an event row costs about 9 µs, most of it converting its
seventeen dates and flags, and a page of events makes some sixty instances (events,
venues, organizers, terms) whose conversions the representations it already keeps
(``wire.kept``) never read. A row is the tuple itself, made in a third of a
microsecond: a field converts when it is read, and the row hashes as it stands, so it
is its own key in the memos of representations.

A row only reads. It has no ``save()`` and no related-object accessor: ``event.venue``
raises ``AttributeError`` where a Peewee instance would query, ``event.venue_id`` is
the stored ID. So the paths that write, or that hand a record to code that may, load
instances (``prepared.fetch``); ``models.model_of`` names a row's model.
"""

from __future__ import annotations

import functools
import operator
import typing as t

import peewee as pw

from .prepared import Converter, converter, prepared_sql

M = t.TypeVar("M", bound=pw.Model)


class Row(tuple):  # type: ignore[type-arg]
    """A stored row of :attr:`row_model`, its fields readable by name."""

    __slots__ = ()
    #: the model the row belongs to (``models.model_of``)
    row_model: t.ClassVar[type[pw.Model]]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {tuple.__repr__(self)}>"


def _reader(index: int, convert: Converter | None) -> property:
    if convert is None:
        return property(operator.itemgetter(index))
    return property(lambda row: convert(row[index]))


@functools.cache
def row_class(model: type[pw.Model]) -> type[Row]:
    """The row class of ``model``: one attribute per field, in ``sorted_fields`` order
    (what ``model.select()`` returns), named as an instance names it (a foreign key by
    its raw-ID name, ``venue_id``)."""
    namespace: dict[str, t.Any] = {"__slots__": (), "row_model": model}
    for index, field in enumerate(model._meta.sorted_fields):
        name = field.object_id_name if isinstance(field, pw.ForeignKeyField) else field.name
        namespace[name] = _reader(index, converter(field))
    return type(f"{model.__name__}Row", (Row,), namespace)


def as_rows(model: type[M], rows: t.Iterable[t.Sequence[t.Any]]) -> list[M]:
    """``rows`` of ``model``'s columns (any extra trailing columns cut off) as read-only
    records. Typed as the model: every field reads as it would on an instance."""
    cls = row_class(model)
    width = len(model._meta.sorted_fields)
    made = [tuple.__new__(cls, row if len(row) == width else row[:width]) for row in rows]
    return t.cast(list[M], made)


def as_row(model: type[M], row: t.Sequence[t.Any]) -> M:
    """One row of ``model``'s columns as a read-only record (see :func:`as_rows`)."""
    return as_rows(model, (row,))[0]


def fetch_rows(
    model: type[M], key: t.Hashable, build: t.Callable[[], pw.Query], params: t.Sequence[t.Any]
) -> list[tuple[M, tuple[t.Any, ...]]]:
    """``prepared.fetch`` for reads: each row as a read-only record of ``model`` (its
    first columns), with the row's extra trailing columns."""
    database = model._meta.database
    sql = prepared_sql(database, key, build)
    cls = row_class(model)
    width = len(model._meta.sorted_fields)
    new = tuple.__new__
    return [
        (t.cast(M, new(cls, row[:width])), tuple(row[width:]))
        for row in database.execute_sql(sql, list(params)).fetchall()
    ]
