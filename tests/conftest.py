"""Shared fixtures: the app on the selected database backends, users per role, helpers.

Backends come from ``CALENDAR_REST_TEST_BACKENDS``: ``sqlite`` by default, so the
README's ``python -m pytest`` is a one-minute loop; ``.ci/run`` selects
``sqlite,postgresql,mysql``. PostgreSQL and MariaDB/MySQL URLs default to the local
servers and can be overridden with ``CALENDAR_REST_TEST_POSTGRES_URL`` /
``CALENDAR_REST_TEST_MYSQL_URL``; under pytest-xdist each worker gets its own database
(``<name>_gw0``...), created when missing. An unreachable backend is skipped, unless
``CALENDAR_REST_REQUIRE_BACKENDS=1`` (set by CI), where it is an error.

Tests marked ``slow`` (the schemathesis fuzz, and the tests that start a
``calendar-rest serve`` or ``webhooks run`` subprocess) are left out unless
``CALENDAR_REST_TEST_SLOW=1`` (set by CI).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
import sys
import typing as t
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import peewee
import pytest
from werkzeug.test import Client, TestResponse

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calendar_rest import create_app
from calendar_rest.app import Application  # noqa: E402
from calendar_rest.db import connect_database, login_store  # noqa: E402
from calendar_rest.edge import writes as write_pipeline  # noqa: E402
from calendar_rest.edge.auth import basic_header  # noqa: E402
from calendar_rest.models import MODELS, ROLES, User, bind_models  # noqa: E402
from calendar_rest.queries.lists.counts import CountCache  # noqa: E402
from calendar_rest.repository.schema import create_schema  # noqa: E402
from calendar_rest.repository.site_state import ensure_counters  # noqa: E402
from calendar_rest.repository.users import add_application_password  # noqa: E402

NS = "/calendar/events/v1"
#: a caller: a role's user by its login (named after the role), or None for anonymous
Role = str | None
ANONYMOUS: Role = None
ALL_ROLES: tuple[Role, ...] = (
    ANONYMOUS,
    "subscriber",
    "contributor",
    "author",
    "editor",
    "administrator",
)
#: the discovery link every response carries (open-web.md §8), after any page links
DISCOVERY = '<http://localhost/>; rel="https://api.w.org/"'
#: TEC's eight components, in TEC's order, which the OpenAPI document starts with
TEC_COMPONENTS = [
    "ImageSize",
    "CostDetails",
    "Term",
    "Image",
    "DateDetails",
    "Event",
    "Venue",
    "Organizer",
]
DEFAULT_URLS = {
    "postgresql": "postgresql://postgres@127.0.0.1:5432/calendar_rest_test",
    "mysql": "mysql://root@127.0.0.1:3306/calendar_rest_test",
}
ENV_URLS = {
    "postgresql": "CALENDAR_REST_TEST_POSTGRES_URL",
    "mysql": "CALENDAR_REST_TEST_MYSQL_URL",
}


def selected_backends() -> list[str]:
    wanted = os.environ.get("CALENDAR_REST_TEST_BACKENDS", "sqlite")
    return [name.strip() for name in wanted.split(",") if name.strip()]


def _enabled(variable: str) -> bool:
    return os.environ.get(variable, "") not in ("", "0", "false")


#: whether the ``slow`` tests run (``CALENDAR_REST_TEST_SLOW=1``, as in CI); a few bounded
#: waits that always wait their whole length are longer then
SLOW_RUN = _enabled("CALENDAR_REST_TEST_SLOW")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The schemathesis fuzz, whose tests are all ``slow``, is not even imported when
    they are left out: schemathesis and hypothesis take a second to import, in every
    worker (their pytest plugins are off, ``-p no:schemathesis`` in ``setup.cfg``)."""
    if collection_path.name == "test_openapi_fuzz.py" and not SLOW_RUN:
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out what does not apply, as deselected rather than skipped (so that a skip
    always means something is missing): the ``slow`` tests unless
    ``CALENDAR_REST_TEST_SLOW=1``, the real-client tests (``clients``) unless
    ``CALENDAR_REST_TEST_CLIENTS=1``, and a ``backends(...)`` test on the other backends."""
    run_slow = SLOW_RUN
    run_clients = _enabled("CALENDAR_REST_TEST_CLIENTS")

    def applies(item: pytest.Item) -> bool:
        if item.get_closest_marker("slow") and not run_slow:
            return False
        if item.get_closest_marker("clients") and not run_clients:
            return False
        only = item.get_closest_marker("backends")
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("database_url") if callspec is not None else None
        return only is None or backend is None or backend in only.args

    left_out = [item for item in items if not applies(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if applies(item)]


def backends_required() -> bool:
    return _enabled("CALENDAR_REST_REQUIRE_BACKENDS")


def _server_url(backend: str) -> str:
    """The backend's test database URL; each xdist worker uses a database of its own,
    since every test empties the tables."""
    url = os.environ.get(ENV_URLS[backend]) or DEFAULT_URLS[backend]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"{parts.path}_{worker}"))


def _ensure_database(backend: str, url: str) -> None:
    """Create the test database on the server if it does not exist yet."""
    name = urlsplit(url).path.lstrip("/")
    admin_url = url.rsplit("/", 1)[0] + ("/postgres" if backend == "postgresql" else "/mysql")
    admin = connect_database(admin_url)
    with admin.connection_context():
        if backend == "postgresql":
            exists = admin.execute_sql(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
            if not exists:
                admin.execute_sql(f'CREATE DATABASE "{name}"')
        else:
            admin.execute_sql(
                f"CREATE DATABASE IF NOT EXISTS `{name}` "
                "CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
            )


@pytest.fixture(scope="session", params=selected_backends())
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> t.Iterator[str]:
    """A database URL per backend, its schema created once per session (on SQLite,
    with the images every test starts from: :class:`SqliteImages`)."""
    backend = request.param
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'calendar.db'}"
    else:
        url = _server_url(backend)
        try:
            _ensure_database(backend, url)
        except (peewee.OperationalError, peewee.DatabaseError, ImportError) as exc:
            message = f"{backend} backend unreachable at {url}: {exc}"
            if backends_required():
                pytest.fail(message)
            pytest.skip(message)
    database = connect_database(url)
    bind_models(database, login_store(database))
    with database.connection_context():
        database.drop_tables(list(MODELS), safe=True)  # a fresh schema for every run
    create_schema(database)
    images = SqliteImages.take(database) if isinstance(database, peewee.SqliteDatabase) else None
    database.close_all()
    if images is not None:
        SQLITE_IMAGES[url] = images
    yield url
    if images is not None:
        images.release()


def _empty_tables(database: peewee.Database) -> None:
    """What every test starts from: empty tables but the counter rows."""
    with database.connection_context():
        for model in reversed(MODELS):
            model.delete().execute()
        ensure_counters()
        if isinstance(database, peewee.SqliteDatabase):
            # a test that ran ``init`` (``PRAGMA optimize``) on this shared file left
            # planner statistics of a few rows, which would steer the next tests' plans
            if "sqlite_stat1" in database.get_tables():
                database.execute_sql("DELETE FROM sqlite_stat1")


#: the users the ``api`` fixture gives every test: (login, role), in creation order
USERS: tuple[tuple[str, str], ...] = (
    *((role, role) for role in ROLES),
    ("contributor2", "contributor"),
    ("author2", "author"),
)
#: when every test user was registered and got its application password
USERS_CREATED = dt.datetime(2026, 1, 1)


def _create_user(login: str, role: str) -> tuple[User, str]:
    """A user and its application password in clear (the models bound, a connection open)."""
    user = User.create(
        login=login, email=f"{login}@example.test", role=role, registered=USERS_CREATED
    )
    return user, add_application_password(user, USERS_CREATED)


class SqliteImages:
    """The files of a SQLite test database as every test starts from them, taken once
    per session: emptying sixteen tables and creating the users with their hashed
    passwords cost more per test than copying a few pages into the file.

    A test gets the ``empty`` image, or the one ``seeded`` with :data:`USERS` (whose
    passwords are kept), copied into the database file and its ``-logins`` sibling by
    SQLite's backup API through a connection that holds each file open from one test
    to the next: so the app's connections never close the last one, whose close would
    checkpoint with an fsync (the holder's checkpoints do without).
    """

    def __init__(
        self, empty: dict[str, bytes], seeded: dict[str, bytes], passwords: dict[str, str]
    ) -> None:
        #: file path -> that file's image, in memory
        self.empty = {path: _in_memory(image) for path, image in empty.items()}
        self.seeded = {path: _in_memory(image) for path, image in seeded.items()}
        self.passwords = passwords
        self._holders: dict[str, tuple[int, sqlite3.Connection]] = {}

    @classmethod
    def take(cls, database: peewee.Database) -> SqliteImages:
        store = login_store(database)
        _empty_tables(database)
        empty = _file_images(database, store)
        with database.connection_context():
            passwords = {login: _create_user(login, role)[1] for login, role in USERS}
        seeded = _file_images(database, store)
        images = cls(empty=empty, seeded=seeded, passwords=passwords)
        images.restore(seeded=False)
        return images

    def restore(self, *, seeded: bool) -> None:
        for path, image in (self.seeded if seeded else self.empty).items():
            image.backup(self._holder(path))

    def _holder(self, path: str) -> sqlite3.Connection:
        """The connection holding ``path`` open: a new one if a test replaced the file."""
        inode, holder = self._holders.get(path, (None, None))
        with contextlib.suppress(FileNotFoundError):
            if holder is not None and os.stat(path).st_ino == inode:
                return holder
        if holder is not None:
            holder.close()
        # a writer a test left running gets as long to finish as the app's own would
        holder = sqlite3.connect(path, timeout=30, check_same_thread=False)
        holder.execute("PRAGMA synchronous = OFF")
        holder.execute("PRAGMA journal_size_limit = 4194304")  # the log is rewritten per test
        self._holders[path] = (os.stat(path).st_ino, holder)
        return holder

    def release(self) -> None:
        for _, holder in self._holders.values():
            holder.close()
        self._holders.clear()


def _file_images(*databases: peewee.Database) -> dict[str, bytes]:
    """The bytes of each database's file, once every connection is closed and the
    write-ahead log is checkpointed into it."""
    images = {}
    for database in databases:
        database.close_all()
        path = database.database
        with contextlib.closing(sqlite3.connect(path)) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        images[path] = Path(path).read_bytes()
    return images


def _in_memory(image: bytes) -> sqlite3.Connection:
    """A database in memory holding ``image``, marked as not in WAL mode (header bytes
    18 and 19), which a database in memory cannot be; the backup into a file in WAL
    mode keeps the file's mode."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.deserialize(image[:18] + b"\x01\x01" + image[20:])
    return connection


#: per SQLite database URL of the session, the images its tests start from
SQLITE_IMAGES: dict[str, SqliteImages] = {}


@pytest.fixture
def app(database_url: str, request: pytest.FixtureRequest) -> t.Iterator[Application]:
    """The app on a database where only the counter rows exist, or also the users of
    :data:`USERS` when the test uses ``api`` (on SQLite, they come with the files)."""
    images = SQLITE_IMAGES.get(database_url)
    if images is not None:
        images.restore(seeded="api" in request.fixturenames)
    application = create_app(database_url)
    if images is None:
        _empty_tables(application.database)
    yield application
    # every pooled connection, those the test's servers and threads opened included:
    # a pool left to the garbage collector holds its connections open until then,
    # and PostgreSQL serves 100 at most
    application.database.close_all()


@pytest.fixture
def backend(app: Application) -> str:
    from calendar_rest.db import backend_name

    return backend_name(app.database)


class Api:
    """A Werkzeug test client that knows the namespace and a password per role."""

    def __init__(self, app: Application) -> None:
        self.app = app
        self.client = Client(app)
        self.users: dict[str, User] = {}
        self.passwords: dict[str, str] = {}

    def add_user(self, login: str, role: str) -> User:
        with self.app.database.connection_context():
            user, self.passwords[login] = _create_user(login, role)
        self.users[login] = user
        return user

    def headers(self, login: str | None) -> dict[str, str]:
        if login is None:
            return {}
        return {"Authorization": basic_header(login, self.passwords[login])}

    def request(
        self, method: str, path: str, as_: str | None = None, **kwargs: t.Any
    ) -> TestResponse:
        headers = {**self.headers(as_), **kwargs.pop("headers", {})}
        url = path if path.startswith("/fr/") or path.startswith("http") else NS + path
        return self.client.open(url, method=method, headers=headers, **kwargs)

    def get(self, path: str, as_: str | None = None, **kw: t.Any) -> TestResponse:
        return self.request("GET", path, as_, **kw)

    def post(self, path: str, as_: str | None = None, **kw: t.Any) -> TestResponse:
        return self.request("POST", path, as_, **kw)

    def put(self, path: str, as_: str | None = None, **kw: t.Any) -> TestResponse:
        return self.request("PUT", path, as_, **kw)

    def patch(self, path: str, as_: str | None = None, **kw: t.Any) -> TestResponse:
        return self.request("PATCH", path, as_, **kw)

    def delete(self, path: str, as_: str | None = None, **kw: t.Any) -> TestResponse:
        return self.request("DELETE", path, as_, **kw)

    def create_event(self, as_: str = "administrator", **fields: t.Any) -> dict[str, t.Any]:
        """Create an event (defaults: a title and a slot next month) and return its JSON."""
        start = dt.datetime.now().replace(microsecond=0) + dt.timedelta(days=30)
        payload = {
            "title": "Test event",
            "start_date": start.strftime("%Y-%m-%d 19:00:00"),
            "end_date": start.strftime("%Y-%m-%d 21:00:00"),
            **fields,
        }
        response = self.post("/events", as_, json=payload)
        assert response.status_code == 201, response.get_data(as_text=True)
        return t.cast(dict[str, t.Any], response.json)


@pytest.fixture
def api(app: Application) -> Api:
    """The client, with one user per WordPress role named after the role, plus a second
    contributor and author (``contributor2``, ``author2``) for ownership checks."""
    client = Api(app)
    images = SQLITE_IMAGES.get(app.settings.database_url)
    if images is not None:
        with app.database.connection_context():  # the users came with the file (``app``)
            client.users = {user.login: user for user in User.select().order_by(User.id)}
        if client.users:
            client.passwords = dict(images.passwords)
            return client
    for login, role in USERS:
        client.add_user(login, role)
    return client


def assert_wp_error(response: TestResponse, status: int, code: str) -> dict[str, t.Any]:
    """The canonical error shape: ``{code, message, data: {status}}`` with that status."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.content_type == "application/json; charset=UTF-8"
    body = response.json
    assert isinstance(body, dict)
    assert list(body)[:3] == ["code", "message", "data"], body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    assert body["data"]["status"] == status
    return body


@pytest.fixture
def sql_statements(app: Application, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement the app's database runs from now on (clear it between
    requests); the no-N+1 tests compare its length across page sizes, so list totals
    are counted on every request (``kept_totals`` spies on the kept ones)."""
    monkeypatch.setattr(app.dispatcher.calls, "counts", CountCache(max_entries=0))
    return _spy_on_statements(app, monkeypatch)


@pytest.fixture
def kept_totals(app: Application, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement the app's database runs from now on, with list totals kept
    per filter as in production (``queries.counts``)."""
    return _spy_on_statements(app, monkeypatch)


def _spy_on_statements(app: Application, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    statements: list[str] = []
    original = app.database.execute_sql

    def counting(sql: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        statements.append(sql)
        return original(sql, *args, **kwargs)

    monkeypatch.setattr(app.database, "execute_sql", counting)
    return statements


@pytest.fixture
def sibling_app(app: Application) -> t.Iterator[t.Callable[..., Application]]:
    """Build further apps (other settings) on the same database, as other server
    processes would be; the fixture app is re-bound to this thread afterwards."""
    built: list[Application] = []

    def build(**settings: t.Any) -> Application:
        other = create_app(app.settings.database_url, **settings)
        built.append(other)
        return other

    yield build
    for other in built:
        other.database.close_all()
    bind_models(app.database, app.login_store)


def api_for(other: Application, api: Api) -> Api:
    """A client for another app on the same database, sharing the users and passwords."""
    client = Api(other)
    client.users, client.passwords = api.users, api.passwords
    return client


@pytest.fixture
def write_scopes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One item per request that opened a write transaction (took the write lock) from
    now on: a refusal "before any lock" leaves it empty."""
    opened: list[str] = []
    original = write_pipeline.request_scope

    @contextlib.contextmanager
    def spied(database: t.Any, *, write: bool) -> t.Iterator[None]:
        if write:
            opened.append("write")
        with original(database, write=write):
            yield

    monkeypatch.setattr(write_pipeline, "request_scope", spied)
    return opened
