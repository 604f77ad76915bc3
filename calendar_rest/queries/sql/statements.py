"""List statements built once, then run again with their parameters.

Building the SQL of a filtered select costs Peewee more than the database needs to run
it. What a list builds depends only on its resolved filters, the reader (ID and role,
all that ``visibility`` looks at), the page and the backend, never on the data, so the
SQL and parameters are kept under that key (``memo.py``) and no write makes them
stale. The rows of a page are read-only records (``rows.py``).
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ...caching.memo import Memo
from ...db import backend_name
from ...models import Event, User
from .rows import as_rows

M = t.TypeVar("M", bound=pw.Model)
#: a built select: its SQL and parameters (also the key a list's total is kept under)
Statement = tuple[str, tuple[t.Any, ...]]

_statements: Memo[t.Hashable, Statement] = Memo(1024)


def built(key: tuple[t.Any, ...], build: t.Callable[[], pw.Query]) -> Statement:
    """The SQL and parameters of ``build()``, built once per ``key`` and backend; the
    key must hold everything ``build`` reads."""

    def statement() -> Statement:
        sql, params = build().sql()
        return sql, tuple(params)

    return _statements.get((type(Event._meta.database), *key), statement)


def by_primary_key(statement: Statement) -> Statement:
    """A count of one range of IDs (``counts.ByRanges``), read along the primary key.
    SQLite's planner would rather walk the filter's covering index and test each
    row's ID, every match of the filter for a range's few; ``NOT INDEXED`` leaves it
    the rowid range. PostgreSQL and MariaDB weigh the range by their statistics."""
    sql, params = statement
    if backend_name(Event._meta.database) == "sqlite":
        table = f'FROM "{Event._meta.table_name}" AS "t1" '
        sql = sql.replace(table, f"{table}NOT INDEXED ", 1)
    return sql, params


def reader(user: User | None) -> tuple[int, str] | None:
    """What of the reader a list's conditions depend on (``visibility``)."""
    return None if user is None else (user.id, user.role)


def rows(model: type[M], statement: Statement) -> list[M]:
    """Run a built select of ``model``'s columns; its rows as read-only records
    (``rows.py``): a page is only read."""
    sql, params = statement
    return as_rows(model, model._meta.database.execute_sql(sql, list(params)).fetchall())
