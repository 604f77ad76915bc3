"""Database connection from a URL, and the one-transaction-per-request rule.

SQLite is tuned for a multi-threaded server: WAL lets readers run beside the writer,
and write transactions begin IMMEDIATE so that two writers queue on the lock up front
instead of failing with "database is locked" when a deferred reader upgrades. Each
commit on a SQLite file is announced to every process (``generation_watch``).
"""

from __future__ import annotations

import contextlib
import threading
import typing as t
import weakref
from urllib.parse import parse_qsl, urlsplit

import peewee
from playhouse import db_url
from playhouse.pool import PooledPostgresqlDatabase, PooledSqliteDatabase

from .caching.generation_watch import GenerationWatch
from .telemetry.statements import counted

SQLITE_PRAGMAS = (
    ("journal_mode", "wal"),
    ("synchronous", "normal"),
    ("foreign_keys", 1),
    ("busy_timeout", 30_000),
)


#: connections are pooled: opening one (and, on SQLite, running its pragmas) costs
#: more than serving a cached response
POOL_OPTIONS = {"max_connections": 64, "stale_timeout": 300, "timeout": 30}

_Database = t.TypeVar("_Database", bound=peewee.Database)

#: ``playhouse.db_url.connect`` with its return type spelled out (playhouse ships no types)
_connect: t.Callable[..., peewee.Database] = db_url.connect


class WatchedSqliteDatabase(PooledSqliteDatabase):  # type: ignore[misc]
    """A pooled SQLite database that announces each of its commits to every process
    using the file (:attr:`generation_watch`, None for a database in memory), so that a
    request need not read the write generation while nothing was committed."""

    generation_watch: GenerationWatch | None = None

    def init(self, database: t.Any, *args: t.Any, **kwargs: t.Any) -> None:
        super().init(database, *args, **kwargs)
        path = str(database or "")
        in_memory = path in ("", ":memory:") or path.startswith("file::memory:")
        self.generation_watch = None if in_memory else GenerationWatch(path)

    def commit(self) -> None:
        super().commit()
        if self.generation_watch is not None:
            self.generation_watch.written()

    def close_all(self) -> None:
        """Close every pooled connection, and unmap the shared file."""
        super().close_all()
        if self.generation_watch is not None:
            self.generation_watch.close()


def connect_database(url: str, *, watched: bool = True) -> peewee.Database:
    """Build (without opening) a pooled Peewee database for a ``sqlite:///``,
    ``postgresql://`` or ``mysql://`` URL; a SQLite file announces its commits
    (:class:`WatchedSqliteDatabase`) unless not ``watched``."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+")[0]
    pooled = url.replace(f"{parts.scheme}://", f"{scheme}+pool://", 1)
    if scheme == "sqlite":
        if url.startswith("sqlite://") and not url.startswith("sqlite:///"):
            raise ValueError("SQLite URLs need three slashes: sqlite:///path/to/file.db")
        options: dict[str, t.Any] = {
            "pragmas": dict(SQLITE_PRAGMAS),
            "lock_type": "IMMEDIATE",
            "check_same_thread": False,
            **POOL_OPTIONS,
        }
        if not watched:
            return counting(_connect(pooled, **options))
        return counting(WatchedSqliteDatabase(**db_url.parse(pooled), **options))
    if scheme == "mysql":
        extra = dict(parse_qsl(parts.query))
        extra.setdefault("charset", "utf8mb4")
        return counting(_connect(pooled.split("?")[0], **POOL_OPTIONS, **extra))
    if scheme in ("postgres", "postgresql"):
        return counting(_connect(pooled, **POOL_OPTIONS))
    raise ValueError(f"unsupported database URL scheme {scheme!r}")


def counting(database: _Database) -> _Database:
    """``database``, each statement it runs added to its thread's tally (the
    statements and database time of a request, ``telemetry.statements``)."""
    setattr(database, "execute_sql", counted(database.execute_sql))  # noqa: B010
    return database


#: seconds a connection attempt to a read replica may take before it counts as down
REPLICA_CONNECT_TIMEOUT = 2


class RoutedPostgresqlDatabase(PooledPostgresqlDatabase):  # type: ignore[misc]
    """The primary (a pooled PostgreSQL database) whose connections a thread can take
    from a read replica instead (:meth:`route`).

    Every model stays bound to this one object; only the connection a thread opens
    changes, so the code above (``connection_context``, ``atomic``, prepared SQL)
    runs unchanged on whichever server the thread is routed to. A connection taken
    from a replica goes back to that replica's pool when it is closed.
    """

    def __init__(self, url: str, read_urls: t.Sequence[str]) -> None:
        super().__init__(**db_url.parse(url), **POOL_OPTIONS)
        counting(self)
        # Peewee's ``connect`` holds one lock per database object while it takes a
        # connection (a pooled one is checked with a round trip first): a replica
        # that hangs would then hold up every thread's connection to the primary
        # too. The state it guards is per thread; each pool keeps its own lock.
        self._lock = contextlib.nullcontext()
        #: the replicas, each a pool of its own
        self.replicas: tuple[peewee.Database, ...] = tuple(
            _connect(
                url.replace(f"{urlsplit(url).scheme}://", "postgresql+pool://", 1),
                connect_timeout=REPLICA_CONNECT_TIMEOUT,
                **POOL_OPTIONS,
            )
            for url in read_urls
        )
        #: a plain pool on the primary: what always writes (the failed-login counters)
        self.primary_only: peewee.Database = connect_database(url)
        self._route = threading.local()
        self._lent: dict[int, peewee.Database] = {}

    @property
    def routed_to(self) -> peewee.Database | None:
        """The replica this thread's connections come from (None: the primary)."""
        return t.cast("peewee.Database | None", getattr(self._route, "target", None))

    @contextlib.contextmanager
    def route(self, target: peewee.Database | None) -> t.Iterator[None]:
        """Take this thread's connections from ``target`` (one of :attr:`replicas`;
        None: the primary) while the block runs; open no connection across it."""
        previous = self.routed_to
        self._route.target = target
        try:
            yield
        finally:
            self._route.target = previous

    def _connect(self) -> t.Any:
        target = self.routed_to
        if target is None:
            return super()._connect()
        conn = t.cast(t.Any, target)._connect()  # the replica's pool
        self._lent[id(conn)] = target
        return conn

    def _close(self, conn: t.Any, close_conn: bool = False) -> None:
        owner = self._lent.pop(id(conn), None)
        if owner is None:
            super()._close(conn, close_conn)
        else:
            t.cast(t.Any, owner)._close(conn, close_conn)


def connect_routed(url: str, read_urls: t.Sequence[str]) -> peewee.Database:
    """The database of ``url``, reading from ``read_urls`` where a thread is routed
    there (:class:`RoutedPostgresqlDatabase`); just the database without them.

    :raises ValueError: read URLs for a primary that is not PostgreSQL.
    """
    if not read_urls:
        return connect_database(url)
    schemes = {urlsplit(item).scheme.split("+")[0] for item in (url, *read_urls)}
    if not schemes <= {"postgres", "postgresql"}:
        raise ValueError("read_database_urls need a PostgreSQL database and replicas")
    return RoutedPostgresqlDatabase(url, read_urls)


_login_stores: weakref.WeakKeyDictionary[peewee.Database, peewee.Database] = (
    weakref.WeakKeyDictionary()
)


def login_store(database: peewee.Database) -> peewee.Database:
    """Where the failed-login counters of ``database`` live (``LoginThrottle``).

    On PostgreSQL and MariaDB, the database itself: a counter's row lock never touches
    the records (with read replicas: the primary, also for a read served by a
    replica). A SQLite file has one write lock for everything, which a refused or
    authenticated request must never wait for (``security.md`` C2); there the counters
    live in a sibling file, ``<file>-logins``, shared by every process like the file
    itself. Its content is disposable: deleting it only forgets counters and locks.
    """
    if isinstance(database, RoutedPostgresqlDatabase):
        return database.primary_only  # a request routed to a replica still counts
    if not isinstance(database, peewee.SqliteDatabase) or database.database in ("", ":memory:"):
        return database
    store = _login_stores.get(database)
    if store is None:
        store = connect_database(f"sqlite:///{database.database}-logins", watched=False)
        _login_stores[database] = store
    return store


@contextlib.contextmanager
def connected(*databases: peewee.Database) -> t.Iterator[None]:
    """Hold a connection to each distinct database of ``databases`` (nested
    ``connection_context`` blocks on one database would close it early)."""
    with contextlib.ExitStack() as stack:
        for database in dict.fromkeys(databases):
            stack.enter_context(database.connection_context())
        yield


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
            with write_transaction(database):
                yield
        else:
            yield


@contextlib.contextmanager
def write_transaction(database: peewee.Database) -> t.Iterator[None]:
    """A write transaction (a savepoint inside one) that reads committed data on every
    backend: each statement sees what committed before it, so a write that waited for
    a row lock reads the state the lock guarded. PostgreSQL does so by default,
    MariaDB's default is REPEATABLE READ (a snapshot from the first read)."""
    if backend_name(database) == "mysql" and not database.in_transaction():
        database.execute_sql("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
    with database.atomic():
        yield


@contextlib.contextmanager
def read_only_scope(database: peewee.Database) -> t.Iterator[None]:
    """Hold one connection on which nothing can be written, whatever the code run.

    The checks of a write run here, before the write transaction (and its lock) is
    taken: a request refused by them provably wrote nothing. SQLite refuses writes with
    ``query_only``; PostgreSQL and MariaDB run the checks in a READ ONLY transaction.
    """
    with database.connection_context():
        backend = backend_name(database)
        if backend == "sqlite":
            database.execute_sql("PRAGMA query_only = 1")
            try:
                yield
            finally:
                database.execute_sql("PRAGMA query_only = 0")
            return
        if backend == "mysql":
            database.execute_sql("SET TRANSACTION READ ONLY")  # applies to the next one
        with database.atomic():
            if backend == "postgresql":
                database.execute_sql("SET TRANSACTION READ ONLY")
            yield


def is_transient(exc: peewee.PeeweeException) -> bool:
    """Unique-key races, deadlocks and lock time-outs: failures a replay can fix."""
    if isinstance(exc, peewee.IntegrityError):
        return True
    text = str(exc).lower()
    return any(sign in text for sign in ("deadlock", "lock wait", "database is locked", "1213"))


def replayed(database: peewee.Database, work: t.Callable[[], None], attempts: int = 5) -> bool:
    """Run ``work`` in a transaction of its own, replayed when a concurrent one makes it
    fail transiently; returns whether it succeeded."""
    for _ in range(attempts):
        try:
            with database.atomic():
                work()
            return True
        except (peewee.IntegrityError, peewee.OperationalError) as exc:
            if not is_transient(exc):
                raise
    return False


#: rows one multi-row INSERT of :func:`insert_rows` carries (bound parameters stay well
#: under every backend's limit for the widest table written so), and the IDs one
#: statement names (:func:`in_batches`)
INSERT_BATCH = 500

#: rows of :func:`update_rows` per statement, where the backend takes them so
UPDATE_BATCH = 100

T = t.TypeVar("T")


def among(field: peewee.Field, values: t.Sequence[t.Any]) -> peewee.Expression:
    """``field IN (values)``, the list written as parameters in one piece: Peewee
    builds an ``IN`` list value by value (about 8 µs each), and a series write names
    its thousands of rows in batches of :data:`INSERT_BATCH`. ``values`` are passed as
    they are (IDs, slugs: what the database stores)."""
    if not values:
        return field.in_([])  # Peewee writes it as a condition always false
    param = field.model._meta.database.param
    return field.in_(peewee.SQL("(" + ", ".join([param] * len(values)) + ")", list(values)))


def in_batches(items: t.Sequence[T], size: int = INSERT_BATCH) -> t.Iterator[list[T]]:
    """``items`` a batch at a time: the IDs one ``IN (...)`` list names."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def insert_rows(
    model: type[peewee.Model], columns: t.Sequence[str], rows: t.Sequence[t.Sequence[t.Any]]
) -> None:
    """Insert ``rows`` (values in ``columns`` order, as the database stores them) into
    ``model``'s table, :data:`INSERT_BATCH` rows a statement.

    Peewee builds an INSERT value by value, about 10 µs each; an event write that
    indexes a long description inserts tens of thousands of values while it holds the
    write lock. The statement here is plain text, built in microseconds.
    """
    if not rows:
        return
    database = model._meta.database
    left, right = database.quote[0], database.quote[1]
    names = ", ".join(f"{left}{model._meta.fields[name].column_name}{right}" for name in columns)
    head = f"INSERT INTO {left}{model._meta.table_name}{right} ({names}) VALUES "
    row = "(" + ", ".join([database.param] * len(columns)) + ")"
    for start in range(0, len(rows), INSERT_BATCH):
        batch = rows[start : start + INSERT_BATCH]
        values = [value for item in batch for value in item]
        database.execute_sql(head + ", ".join([row] * len(batch)), values)


def update_rows(
    model: type[peewee.Model], columns: t.Sequence[str], rows: t.Sequence[t.Sequence[t.Any]]
) -> None:
    """Set ``columns`` of many rows of ``model``, each to values of its own: every row
    gives its values in ``columns`` order (as the database stores them), then its
    primary key. A statement built and run per row costs ten times as much: SQLite runs
    one prepared statement for all rows (``executemany``); PostgreSQL gets them
    :data:`UPDATE_BATCH` to a round trip (its driver's ``executemany`` makes one per
    row), MariaDB as one statement per batch choosing each row's values by key.
    """
    if not rows:
        return
    database = model._meta.database
    left, right = database.quote[0], database.quote[1]
    fields = model._meta.fields
    names = [f"{left}{fields[name].column_name}{right}" for name in columns]
    table = f"{left}{model._meta.table_name}{right}"
    key = f"{left}{t.cast(peewee.Field, model._meta.primary_key).column_name}{right}"
    param = database.param
    backend = backend_name(database)
    if backend == "mysql":
        for batch in in_batches(rows, UPDATE_BATCH):
            database.execute_sql(*_update_by_key(table, key, names, param, batch))
        return
    assignments = ", ".join(f"{name} = {param}" for name in names)
    sql = f"UPDATE {table} SET {assignments} WHERE {key} = {param}"
    if backend == "postgresql":
        for batch in in_batches(rows, UPDATE_BATCH):
            database.execute_sql("; ".join([sql] * len(batch)), [v for row in batch for v in row])
        return
    cursor = database.cursor()
    try:
        cursor.executemany(sql, [tuple(row) for row in rows])
    finally:
        cursor.close()


def _update_by_key(
    table: str, key: str, names: list[str], param: str, batch: list[t.Sequence[t.Any]]
) -> tuple[str, list[t.Any]]:
    """One UPDATE of a batch of rows: each column ``CASE key WHEN id THEN value ...``."""
    whens = f" WHEN {param} THEN {param}" * len(batch)
    cases = ", ".join(f"{name} = CASE {key}{whens} END" for name in names)
    ids = ", ".join([param] * len(batch))
    values = [v for index in range(len(names)) for row in batch for v in (row[-1], row[index])]
    return f"UPDATE {table} SET {cases} WHERE {key} IN ({ids})", [*values, *(r[-1] for r in batch)]
