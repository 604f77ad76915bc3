"""Database connection from a URL, and the one-transaction-per-request rule.

SQLite is tuned for a multi-threaded server: WAL lets readers run beside the writer,
and write transactions begin IMMEDIATE so that two writers queue on the lock up front
instead of failing with "database is locked" when a deferred reader upgrades.
"""

from __future__ import annotations

import contextlib
import typing as t
from urllib.parse import parse_qsl, urlsplit

import peewee
from playhouse import db_url

SQLITE_PRAGMAS = (
    ("journal_mode", "wal"),
    ("synchronous", "normal"),
    ("foreign_keys", 1),
    ("busy_timeout", 30_000),
)


#: connections are pooled: opening one (and, on SQLite, running its pragmas) costs
#: more than serving a cached response
POOL_OPTIONS = {"max_connections": 64, "stale_timeout": 300, "timeout": 30}

#: ``playhouse.db_url.connect`` with its return type spelled out (playhouse ships no types)
_connect: t.Callable[..., peewee.Database] = db_url.connect


def connect_database(url: str) -> peewee.Database:
    """Build (without opening) a pooled Peewee database for a ``sqlite:///``,
    ``postgresql://`` or ``mysql://`` URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+")[0]
    pooled = url.replace(f"{parts.scheme}://", f"{scheme}+pool://", 1)
    if scheme == "sqlite":
        if url.startswith("sqlite://") and not url.startswith("sqlite:///"):
            raise ValueError("SQLite URLs need three slashes: sqlite:///path/to/file.db")
        return _connect(
            pooled,
            pragmas=dict(SQLITE_PRAGMAS),
            lock_type="IMMEDIATE",
            check_same_thread=False,
            **POOL_OPTIONS,
        )
    if scheme == "mysql":
        extra = dict(parse_qsl(parts.query))
        extra.setdefault("charset", "utf8mb4")
        return _connect(pooled.split("?")[0], **POOL_OPTIONS, **extra)
    if scheme in ("postgres", "postgresql"):
        return _connect(pooled, **POOL_OPTIONS)
    raise ValueError(f"unsupported database URL scheme {scheme!r}")


def backend_name(database: peewee.Database) -> str:
    """Short backend name: ``sqlite``, ``postgresql`` or ``mysql``."""
    if isinstance(database, peewee.SqliteDatabase):
        return "sqlite"
    if isinstance(database, peewee.PostgresqlDatabase):  # pooled classes subclass these
        return "postgresql"
    return "mysql"


@contextlib.contextmanager
def request_scope(database: peewee.Database, *, write: bool) -> t.Iterator[None]:
    """Hold one connection for the request; wrap writes in a single transaction.

    Reads run in autocommit (no lock taken on SQLite); writes commit together or not
    at all, so a request that fails half-way leaves nothing behind.
    """
    with database.connection_context():
        if write:
            with database.atomic():
                yield
        else:
            yield
