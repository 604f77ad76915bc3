"""Hot read paths without Peewee's per-query SQL building.

Building the SQL of a 30-column select costs Peewee far more than SQLite needs to
run it, so the queries every request makes are built once per backend and shape,
then executed with fresh parameters; rows become model instances directly, with
per-column converters instead of Peewee's field machinery.
"""

from __future__ import annotations

import datetime as dt
import threading
import typing as t

import peewee as pw

M = t.TypeVar("M", bound=pw.Model)
Converter = t.Callable[[t.Any], t.Any]

_sql_cache: dict[tuple[type[pw.Database], t.Hashable], str] = {}
_lock = threading.Lock()


def prepared_sql(database: pw.Database, key: t.Hashable, build: t.Callable[[], pw.Query]) -> str:
    """The SQL of ``build()`` for this backend, built on first use only. ``build`` must
    produce the same SQL text (placeholders included) for every call with this key."""
    cache_key = (type(database), key)
    sql = _sql_cache.get(cache_key)
    if sql is None:
        sql = build().sql()[0]
        with _lock:
            _sql_cache[cache_key] = sql
    return sql


def _to_datetime(value: t.Any) -> t.Any:
    if value is None or isinstance(value, dt.datetime):
        return value
    return dt.datetime.fromisoformat(str(value))


def _to_bool(value: t.Any) -> t.Any:
    return None if value is None else bool(value)


def converter(field: pw.Field) -> Converter | None:
    """What turns a stored value of ``field`` into the value a Peewee instance holds
    (None: the stored value as it is)."""
    if isinstance(field, pw.DateTimeField):
        return _to_datetime
    if isinstance(field, pw.BooleanField):
        return _to_bool
    return None


class RowLoader(t.Generic[M]):
    """Turns rows of ``model``'s columns (in ``sorted_fields`` order) into instances."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self.fields = list(model._meta.sorted_fields)
        self.names = [field.name for field in self.fields]
        self.converters = [(i, c) for i, f in enumerate(self.fields) if (c := converter(f))]

    def make(self, row: t.Sequence[t.Any]) -> M:
        values = list(row[: len(self.names)])
        for index, convert in self.converters:
            values[index] = convert(values[index])
        instance = self.model(__no_default__=1)
        instance.__data__ = dict(zip(self.names, values, strict=True))
        return instance


_loaders: dict[type[pw.Model], RowLoader[t.Any]] = {}


def loader(model: type[M]) -> RowLoader[M]:
    found = _loaders.get(model)
    if found is None:
        found = _loaders[model] = RowLoader(model)
    return t.cast(RowLoader[M], found)


def fetch(
    model: type[M], key: t.Hashable, build: t.Callable[[], pw.Query], params: t.Sequence[t.Any]
) -> list[tuple[M, tuple[t.Any, ...]]]:
    """Run a prepared select whose first columns are ``model``'s; return each instance
    with the row's extra trailing columns."""
    database = model._meta.database
    sql = prepared_sql(database, key, build)
    rows = database.execute_sql(sql, list(params)).fetchall()
    make = loader(model)
    width = len(make.names)
    return [(make.make(row), tuple(row[width:])) for row in rows]
