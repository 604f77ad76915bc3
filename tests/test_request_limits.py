"""Request limits and the write lock (security.md C1-C4).

Protects: the order of work of every request (the declared body size first, then the
route, the credentials and the route-level permission, all before any look-up of a
record the body names, C1); refused writes never take, wait for or hold the write lock
(C2, audit finding H6: "an anonymous 180 KB POST took the write lock before its 401:
one such request blocked an administrator's write for 4.6 s"); the body limit in the
app and in waitress as ``serve`` runs it (C3, audit finding H6: "a declared 60 MB body
was read before the 413"); and refusals that reach a client sending its whole body,
on a connection that stays usable (C4). Real servers bind 127.0.0.1 only, and every
wait is bounded.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import typing as t
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest
from conftest import ALL_ROLES, ANONYMOUS, NS, Api, Role, api_for, assert_wp_error
from live_server import running, serving
from werkzeug.datastructures import Headers
from werkzeug.test import EnvironBuilder, TestResponse, run_wsgi_app
from werkzeug.wrappers import Request

from calendar_rest.app import Application
from calendar_rest.db import connect_database
from calendar_rest.edge.auth import basic_header
from calendar_rest.models import (
    Event,
    LoginThrottle,
    Organizer,
    SiteState,
    Term,
    Venue,
    bind_models,
)
from calendar_rest.queries.lookups.site_state import GENERATION, generation
from calendar_rest.serving import server

#: a refusal is answered well within this (the busy timeout of a queued writer is 30 s)
PROMPT = 3.0
#: the bound of any other wait: a server starting, a write finishing
DEADLINE = 20.0
START, END = "2026-12-05 19:00:00", "2026-12-05 21:00:00"
VALID = {"title": "Jazz Night", "start_date": START, "end_date": END}
MISSING_ID = 999_999
#: a body naming records of every kind by ID (none exists)
NAMING = {**VALID, "venue": 999_991, "organizer": [999_992, 999_993], "categories": [999_994]}
NAMING_TAGS = {**NAMING, "tags": [999_995]}
#: the tables of the records a body names
NAMED_TABLES = ("venue", "organizer", "term", "event")


def fat_body(size: int) -> dict[str, t.Any]:
    """A valid event body of about ``size`` bytes of JSON, naming venues and terms."""
    return {**NAMING_TAGS, "description": "x" * size}


def wrong_password(login: str) -> dict[str, str]:
    return {"Authorization": basic_header(login, "abcd efgh ijkl mnop qrst uvwx")}


def table_reads(statements: list[str], tables: tuple[str, ...] = NAMED_TABLES) -> list[str]:
    """The statements that touch ``tables``, leaving out the look-up of the next
    scheduled publication (``MIN(date_utc)`` of events, venues and organizers) that
    any request may make."""
    names = "|".join(tables)
    pattern = re.compile(rf"[`\"]({names})[`\"]")
    return [sql for sql in statements if pattern.search(sql) and "MIN(" not in sql.upper()]


def writes(statements: list[str]) -> list[str]:
    """The statements that write, or lock a row for writing (the write lock of
    PostgreSQL and MariaDB)."""
    verbs = ("INSERT", "UPDATE", "DELETE", "REPLACE", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE")
    return [
        sql
        for sql in statements
        if sql.lstrip().upper().startswith(verbs) or "FOR UPDATE" in sql.upper()
    ]


def record_counts(app: Application) -> dict[str, int]:
    bind_models(app.database, app.login_store)
    with app.database.connection_context():
        models = (Event, Venue, Organizer, Term)
        return {model.__name__: model.select().count() for model in models}


def current_generation(app: Application) -> int:
    bind_models(app.database, app.login_store)
    with app.database.connection_context():
        return generation()


def failed_logins(app: Application) -> int:
    bind_models(app.database, app.login_store)
    with app.database.connection_context():
        return LoginThrottle.select().where(~LoginThrottle.key.startswith("success")).count()


# -- calling the app with a body of our own ------------------------------------------------


class Body(io.BytesIO):
    """A request body that tells how much of it the app read (``tell()``)."""


def environ_for(
    path: str,
    method: str = "POST",
    body: bytes = b"",
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
    declared: int | None = None,
    chunked: bool = False,
) -> tuple[dict[str, t.Any], Body]:
    """A WSGI environ for ``path`` whose body is ``body`` and whose declared length is
    ``declared`` (default: the body's); ``chunked``: no length at all, the server
    having de-chunked the stream (``wsgi.input_terminated``), as gunicorn does."""
    stream = Body(body)
    all_headers = {"Content-Type": content_type, **(headers or {})}
    if chunked:
        all_headers["Transfer-Encoding"] = "chunked"
    environ = EnvironBuilder(
        path=NS + path, method=method, headers=all_headers, input_stream=stream
    ).get_environ()
    environ["wsgi.input"] = stream
    if chunked:
        environ.pop("CONTENT_LENGTH", None)
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(len(body) if declared is None else declared)
    return environ, stream


def call(app: Application, environ: dict[str, t.Any]) -> TestResponse:
    """Run the app on ``environ`` as a WSGI server would, keeping its input stream."""
    app_iter, status, headers = run_wsgi_app(app, environ, buffered=True)
    return TestResponse(app_iter, status, Headers(headers), request=Request(environ))


# -- C1: the order of work -----------------------------------------------------------------

#: requests announcing a body over the limit: (method, path, credentials)
OVERSIZED = [
    ("POST", "/events", ANONYMOUS),
    ("POST", "/events", "administrator"),
    ("POST", "/events", "bad credentials"),
    ("POST", "/nowhere", ANONYMOUS),
    ("PUT", "/events", "administrator"),  # a method the route does not serve
    ("PATCH", f"/categories/{MISSING_ID}", "subscriber"),
    ("GET", "/events", ANONYMOUS),
]


@pytest.mark.parametrize(
    ("method", "path", "who"), OVERSIZED, ids=[f"{m} {p} {w}" for m, p, w in OVERSIZED]
)
def test_a_declared_body_over_the_limit_is_413_before_anything_else(
    api: Api, app: Application, sql_statements: list[str], method: str, path: str, who: Role
) -> None:
    headers = wrong_password("subscriber") if who == "bad credentials" else api.headers(who)
    environ, stream = environ_for(
        path, method, b'{"title": "x"}', headers=headers, declared=app.settings.max_body_bytes + 1
    )
    sql_statements.clear()
    response = call(app, environ)
    assert_wp_error(response, 413, "rest_payload_too_large")
    assert stream.tell() == 0, "no byte of the body was read"
    credentials = ("user", "application_password", "login_throttle")
    assert table_reads(sql_statements, credentials) == [], "no credential was checked"
    assert table_reads(sql_statements, (*NAMED_TABLES, "event_term")) == []
    assert failed_logins(app) == 0


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/nowhere"), ("PUT", "/events"), ("DELETE", "/events"), ("POST", "/doc")],
)
def test_an_unknown_route_or_method_is_no_route_before_the_credentials(
    api: Api, app: Application, method: str, path: str
) -> None:
    for who in (ANONYMOUS, "subscriber", "bad credentials"):
        login = None if who == "bad credentials" else who
        headers = wrong_password("subscriber") if who == "bad credentials" else {}
        response = api.request(method, path, login, json=NAMING, headers=headers)
        assert_wp_error(response, 404, "rest_no_route")
    assert failed_logins(app) == 0, "the credentials were not checked"


BAD_CREDENTIALS = [
    ("subscriber", "incorrect_password"),
    ("administrator", "incorrect_password"),
    ("nobody", "invalid_username"),
]
#: bodies of every kind: valid, naming records, invalid JSON, missing and bad parameters
BODIES: dict[str, dict[str, t.Any]] = {
    "valid": {"json": VALID},
    "naming records": {"json": NAMING_TAGS},
    "invalid JSON": {"data": "{bad", "content_type": "application/json"},
    "empty": {},
    "bad parameters": {"json": {**VALID, "title": "", "start_date": "not a date"}},
    "form naming records": {"data": {"title": "x", "venue": "999991", "categories[]": "999994"}},
}
BODY = pytest.mark.parametrize("body", list(BODIES))


@BODY
def test_bad_credentials_are_401_before_the_permission_and_the_body(
    api: Api, app: Application, sql_statements: list[str], body: str
) -> None:
    api.get("/")
    for login, code in BAD_CREDENTIALS:
        sql_statements.clear()
        response = api.post("/events", headers=wrong_password(login), **BODIES[body])
        assert_wp_error(response, 401, code)
        assert table_reads(sql_statements) == [], login
    assert failed_logins(app) > 0, "the failures were counted"


#: writes an anonymous caller may not make, whatever their body
ANONYMOUS_WRITES = [
    ("POST", "/events"),
    ("POST", "/venues"),
    ("POST", "/organizers"),
    ("POST", "/categories"),
    ("POST", "/tags"),
    ("PATCH", "/events/{event}"),
    ("PUT", "/events/{event}"),
    ("POST", "/events/{event}"),
    ("DELETE", "/events/{event}"),
]


@pytest.mark.parametrize(("method", "path"), ANONYMOUS_WRITES)
def test_an_anonymous_write_is_401_whatever_its_body_before_any_named_look_up(
    api: Api, app: Application, sql_statements: list[str], method: str, path: str
) -> None:
    event = api.create_event()
    api.get("/")  # the next publication date is known: later requests need not read it
    before = record_counts(app)
    tables = NAMED_TABLES if "{event}" not in path else ("venue", "organizer", "term")
    for body, request in BODIES.items():
        sql_statements.clear()
        response = api.request(method, path.format(event=event["id"]), ANONYMOUS, **request)
        assert_wp_error(response, 401, "rest_forbidden")
        assert table_reads(sql_statements, tables) == [], f"{body}: a named record looked up"
        assert writes(sql_statements) == [], body
    assert record_counts(app) == before


#: (body, the answer of a logged-in caller who may not write events: WordPress checks
#: the parameters' shape before the permission, but names no record before it)
SUBSCRIBER_ANSWERS = [
    ("valid", 403, "rest_forbidden"),
    ("naming records", 403, "rest_forbidden"),
    ("form naming records", 400, "rest_missing_callback_param"),
    ("invalid JSON", 400, "rest_invalid_json"),
    ("empty", 400, "rest_missing_callback_param"),
    ("bad parameters", 400, "rest_invalid_param"),
]


@pytest.mark.parametrize(("body", "status", "code"), SUBSCRIBER_ANSWERS)
def test_a_subscriber_gets_400_for_invalid_parameters_else_403_before_any_named_look_up(
    api: Api, app: Application, sql_statements: list[str], body: str, status: int, code: str
) -> None:
    api.get("/", "subscriber")
    sql_statements.clear()
    response = api.post("/events", "subscriber", **BODIES[body])
    assert_wp_error(response, status, code)
    assert table_reads(sql_statements) == [], "no record the body names is looked up"
    assert writes(sql_statements) == []
    assert record_counts(app) == {"Event": 0, "Venue": 0, "Organizer": 0, "Term": 0}


def test_a_caller_who_may_write_does_look_up_the_records_the_body_names(
    api: Api, sql_statements: list[str]
) -> None:
    """The control of the tests above: the same body from an author is checked."""
    api.get("/", "author")
    sql_statements.clear()
    response = api.post("/events", "author", json=NAMING_TAGS)
    assert_wp_error(response, 400, "rest_invalid_param")
    looked_up = " ".join(table_reads(sql_statements))
    assert "venue" in looked_up and "organizer" in looked_up and "term" in looked_up


@pytest.mark.parametrize("kind", ["venues", "organizers"])
def test_a_subscriber_naming_an_image_or_author_is_403_before_their_look_up(
    api: Api, sql_statements: list[str], kind: str
) -> None:
    name = kind[:-1]
    api.get("/", "subscriber")
    sql_statements.clear()
    body = {name: "X", "author": MISSING_ID, "image": MISSING_ID}
    response = api.post(f"/{kind}", "subscriber", json=body)
    assert_wp_error(response, 403, "rest_forbidden")
    assert table_reads(sql_statements, ("attachment", name)) == []


@pytest.mark.parametrize("method", ["PATCH", "PUT", "POST", "DELETE"])
@pytest.mark.parametrize("kind", ["categories", "tags"])
def test_a_missing_term_in_the_path_is_400_before_the_permission_for_everyone(
    api: Api, method: str, kind: str
) -> None:
    for role in ALL_ROLES:
        response = api.request(method, f"/{kind}/{MISSING_ID}", role, json={"name": "Renamed"})
        body = assert_wp_error(response, 400, "rest_invalid_param")
        assert list(body["data"]["params"]) == ["id"], role


# -- C2: refused writes never take, wait for or hold the write lock -----------------------


@contextlib.contextmanager
def write_lock_held(app: Application, backend: str) -> t.Iterator[None]:
    """Another writer holding the write lock, on a connection of its own: SQLite's
    database lock (BEGIN IMMEDIATE), elsewhere the row lock on the write generation
    that every write takes first."""
    if backend == "sqlite":
        path = app.settings.database_url.removeprefix("sqlite:///")
        connection = sqlite3.connect(path, isolation_level=None, timeout=PROMPT)
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield
            finally:
                connection.execute("ROLLBACK")
        finally:
            connection.close()
        return
    other = connect_database(app.settings.database_url)
    try:
        with other.connection_context(), other.atomic() as transaction:
            locked = SiteState.select().where(SiteState.key == GENERATION).for_update()
            assert len(list(other.execute(locked))) == 1
            try:
                yield
            finally:
                transaction.rollback()
    finally:
        other.close_all()


class Background:
    """A request run on a thread of its own, so that waiting for it is bounded."""

    def __init__(self, send: t.Callable[[], TestResponse]) -> None:
        self.response: TestResponse | None = None
        self.seconds: float | None = None
        self.error: BaseException | None = None

        def run() -> None:
            began = time.monotonic()
            try:
                self.response = send()
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                self.error = exc
            self.seconds = time.monotonic() - began

        self.thread = threading.Thread(target=run, name="request", daemon=True)
        self.thread.start()

    def done_within(self, seconds: float) -> bool:
        self.thread.join(seconds)
        return not self.thread.is_alive()

    def answer(self) -> TestResponse:
        assert self.done_within(DEADLINE), "the request never finished"
        assert self.error is None, self.error
        assert self.response is not None
        return self.response


#: refused writes: (what, the request, status, code)
REFUSED: list[tuple[str, t.Callable[[Api], TestResponse], int, str]] = [
    (
        "anonymous 180 KB POST",
        lambda api: api.post("/events", json=fat_body(180_000)),
        401,
        "rest_forbidden",
    ),
    (
        "subscriber POST",
        lambda api: api.post("/events", "subscriber", json=NAMING_TAGS),
        403,
        "rest_forbidden",
    ),
    (
        "administrator POST with invalid parameters",
        lambda api: api.post("/events", "administrator", json={**NAMING, "start_date": "never"}),
        400,
        "rest_invalid_param",
    ),
    (
        "administrator POST naming a missing venue",
        lambda api: api.post("/events", "administrator", json={**VALID, "venue": MISSING_ID}),
        400,
        "rest_invalid_param",
    ),
]
REFUSALS = pytest.mark.parametrize(
    ("send", "status", "code"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)


@REFUSALS
def test_a_refused_write_is_answered_while_another_writer_holds_the_lock(
    api: Api,
    app: Application,
    backend: str,
    send: t.Callable[[Api], TestResponse],
    status: int,
    code: str,
) -> None:
    """The first request of each caller: nothing about it is known yet."""
    before = (record_counts(app), current_generation(app))
    with write_lock_held(app, backend):
        request = Background(lambda: send(api))
        prompt = request.done_within(PROMPT)
    response = request.answer()  # the lock is released: it ends either way
    assert prompt, f"answered only once the lock was released, after {request.seconds:.1f} s"
    assert_wp_error(response, status, code)
    assert (record_counts(app), current_generation(app)) == before, "nothing was written"


@REFUSALS
def test_a_refused_write_of_a_known_caller_is_answered_while_the_lock_is_held(
    api: Api,
    app: Application,
    backend: str,
    send: t.Callable[[Api], TestResponse],
    status: int,
    code: str,
) -> None:
    """The same, once every caller has authenticated recently (its steady state)."""
    for login in ("subscriber", "administrator"):
        assert api.get("/", login).status_code == 200
    before = (record_counts(app), current_generation(app))
    with write_lock_held(app, backend):
        request = Background(lambda: send(api))
        prompt = request.done_within(PROMPT)
    response = request.answer()
    assert prompt, f"answered only once the lock was released, after {request.seconds:.1f} s"
    assert_wp_error(response, status, code)
    assert (record_counts(app), current_generation(app)) == before, "nothing was written"


def test_an_authorized_write_waits_for_the_lock_and_completes_once_released(
    api: Api, app: Application, backend: str
) -> None:
    assert api.get("/", "administrator").status_code == 200
    before = current_generation(app)
    with write_lock_held(app, backend):
        request = Background(lambda: api.post("/events", "administrator", json=VALID))
        assert not request.done_within(0.5), "the write did not queue behind the lock"
    response = request.answer()
    assert response.status_code == 201, response.get_data(as_text=True)
    assert record_counts(app)["Event"] == 1
    assert current_generation(app) > before


def test_regression_h6_an_anonymous_180_kb_post_takes_no_write_lock_before_its_401(
    api: Api, app: Application, backend: str, sql_statements: list[str]
) -> None:
    """Audit finding H6: "an anonymous 180 KB POST took the write lock before its 401:
    one such request blocked an administrator's write for 4.6 s". It must be answered
    at once while a writer holds the lock, without a write statement or a write
    transaction of its own, and the administrator's write then goes through."""
    api.get("/")
    sql_statements.clear()
    with write_lock_held(app, backend):
        request = Background(lambda: api.post("/events", json=fat_body(180_000)))
        prompt = request.done_within(PROMPT)
    response = request.answer()
    assert prompt, f"the 401 waited {request.seconds:.1f} s for the write lock"
    assert_wp_error(response, 401, "rest_forbidden")
    assert writes(sql_statements) == []
    assert table_reads(sql_statements) == []
    admin = api.post("/events", "administrator", json=VALID)
    assert admin.status_code == 201, admin.get_data(as_text=True)


# -- C3: the body limit --------------------------------------------------------------------

LIMIT = 1000


def json_of_size(size: int, **fields: t.Any) -> bytes:
    """A valid event body of exactly ``size`` bytes of JSON."""
    bare = json.dumps({**VALID, **fields, "description": ""}).encode()
    body = json.dumps({**VALID, **fields, "description": "d" * (size - len(bare))}).encode()
    assert len(body) == size
    return body


def form_of_size(size: int) -> bytes:
    """A valid event body of exactly ``size`` bytes, form-encoded."""
    bare = urlencode({**VALID, "description": ""}).encode()
    body = urlencode({**VALID, "description": "d" * (size - len(bare))}).encode()
    assert len(body) == size
    return body


ENCODINGS = {
    "json": ("application/json", json_of_size),
    "form": ("application/x-www-form-urlencoded", form_of_size),
}
ENCODING = pytest.mark.parametrize("encoding", list(ENCODINGS))
#: callers of a create: (who, the answer to a body within the limit)
CREATORS = [(ANONYMOUS, 401), ("subscriber", 403), ("administrator", 201)]


def small_limit(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    return api_for(sibling_app(max_body_bytes=LIMIT), api)


@ENCODING
@pytest.mark.parametrize("who", [ANONYMOUS, "subscriber", "administrator", "bad credentials"])
def test_a_body_over_the_limit_is_413(
    api: Api, sibling_app: t.Callable[..., Application], encoding: str, who: Role
) -> None:
    client = small_limit(api, sibling_app)
    content_type, of_size = ENCODINGS[encoding]
    headers = wrong_password("subscriber") if who == "bad credentials" else {}
    login = None if who == "bad credentials" else who
    response = client.post("/events", login, data=of_size(LIMIT + 1),
                           content_type=content_type, headers=headers)  # fmt: skip
    assert_wp_error(response, 413, "rest_payload_too_large")
    assert record_counts(client.app)["Event"] == 0


@ENCODING
@pytest.mark.parametrize(("who", "status"), CREATORS)
def test_a_body_at_the_limit_is_served_normally(
    api: Api, sibling_app: t.Callable[..., Application], encoding: str, who: Role, status: int
) -> None:
    """The limit never turns a 401 (or a 403) into a 413."""
    client = small_limit(api, sibling_app)
    content_type, of_size = ENCODINGS[encoding]
    response = client.post("/events", who, data=of_size(LIMIT), content_type=content_type)
    assert response.status_code == status, response.get_data(as_text=True)
    if status == 201:
        assert response.json["title"] == VALID["title"]
        assert len(response.json["description"]) > LIMIT / 2


@ENCODING
def test_a_chunked_body_is_refused_once_it_passes_the_limit(
    api: Api, sibling_app: t.Callable[..., Application], encoding: str
) -> None:
    """No length is declared: the body is counted as it is read. Over the limit by a
    few bytes it is a 413, never a write of what came before the limit."""
    client = small_limit(api, sibling_app)
    content_type, of_size = ENCODINGS[encoding]
    body = of_size(LIMIT + 200)
    headers = api.headers("administrator")
    environ, _ = environ_for("/events", body=body, content_type=content_type,
                             headers=headers, chunked=True)  # fmt: skip
    response = call(client.app, environ)
    assert_wp_error(response, 413, "rest_payload_too_large")
    assert record_counts(client.app)["Event"] == 0
    within, _ = environ_for("/events", body=of_size(LIMIT), content_type=content_type,
                            headers=headers, chunked=True)  # fmt: skip
    assert call(client.app, within).status_code == 201


# -- real servers ------------------------------------------------------------------------


def test_serve_tells_waitress_the_apps_body_limit(app: Application) -> None:
    """waitress refuses a declared body one byte over the app's limit (and none within)."""
    adjustments = server.waitress_adjustments(4, app.settings.max_body_bytes)
    assert adjustments["max_request_body_size"] == app.settings.max_body_bytes + 1


def test_serve_keeps_an_idle_connection_longer_than_a_proxy_keeps_its_own() -> None:
    """nginx drops an idle upstream connection after 60 s: the server waits longer, so
    the proxy never sends a request down a connection the server is closing."""
    adjustments = server.waitress_adjustments(4, None)
    assert adjustments["channel_timeout"] == server.KEEPALIVE_SECONDS > 60


class HttpResponse(t.NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> t.Any:
        return json.loads(self.body)


def served_wp_error(response: HttpResponse) -> tuple[str, int]:
    """The code and ``data.status`` of a served WordPress-style JSON error."""
    assert response.headers["content-type"] == "application/json; charset=UTF-8"
    body = response.json()
    assert set(body) == {"code", "message", "data"} and body["message"], body
    return body["code"], body["data"]["status"]


@pytest.mark.server
@pytest.mark.parametrize(
    ("head", "status", "code"),
    [
        ("Content-Length: ten", 400, "rest_malformed_request"),
        ("Transfer-Encoding: gzip", 501, "rest_transfer_coding_not_implemented"),
        ("X-Big: " + "b" * 300_000, 431, "rest_headers_too_large"),  # waitress: 256 KiB
    ],
)
def test_what_waitress_refuses_itself_is_a_wordpress_error_too(
    app: Application, head: str, status: int, code: str
) -> None:
    """A request waitress refuses before the app sees it is answered as the app answers
    every failure, with the code naming why, and its connection is closed."""
    with serving(app) as port, socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(f"POST /x HTTP/1.1\r\nHost: h\r\n{head}\r\n\r\n".encode())
        response = read_response(sock)
        assert (response.status, served_wp_error(response)) == (status, (code, status))
        assert closed_by_server(sock)


def read_response(sock: socket.socket) -> HttpResponse:
    """One HTTP/1.1 response with a Content-Length (the socket has a timeout)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a full response: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed in the middle of the response body")
        body += chunk
    return HttpResponse(int(status_line.split()[1]), headers, body[:length])


def request_bytes(
    method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> bytes:
    lines = [f"{method} {NS}{path} HTTP/1.1", "Host: 127.0.0.1"]
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    if body or method != "GET":
        all_headers.setdefault("Content-Length", str(len(body)))
    lines += [f"{name}: {value}" for name, value in all_headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed the connection (EOF or a reset) within the timeout."""
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


@pytest.mark.server
def test_serve_answers_an_oversized_declaration_at_once_without_the_body(
    api: Api, app: Application
) -> None:
    with serving(app) as port:
        for declared in (60_000_000, app.settings.max_body_bytes + 1):
            for expect in ({}, {"Expect": "100-continue"}):
                with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                    headers = {"Content-Length": str(declared), **expect}
                    sock.sendall(request_bytes("POST", "/events", headers=headers))
                    began = time.monotonic()
                    response = read_response(sock)  # not one body byte was sent
                    assert time.monotonic() - began < PROMPT
                    assert response.status == 413  # no "100 Continue" came first
                    assert served_wp_error(response) == ("rest_payload_too_large", 413)
                    assert closed_by_server(sock)
        # a body of exactly the limit is still read and served
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            body = json_of_size(app.settings.max_body_bytes)
            sock.sendall(request_bytes("POST", "/events", body))
            response = read_response(sock)
    assert response.status == 401 and response.json()["code"] == "rest_forbidden"


@pytest.mark.server
def test_the_apps_own_413_reaches_the_client_of_another_wsgi_server(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    """Embedded in a server that does not know the app's limit (here waitress with its
    own default), the app answers an oversized declaration with its JSON 413."""
    client = small_limit(api, sibling_app)
    with running(client.app) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(request_bytes("POST", "/events", json_of_size(LIMIT + 1)))
            response = read_response(sock)
    assert response.status == 413, response.body
    assert response.json()["code"] == "rest_payload_too_large"


# -- C4: every refusal reaches a client that sends its whole body -------------------------

#: refusals of a 500 KB body within the limit: (what, method, path, credentials, status,
#: code)
BIG_REFUSALS = [
    ("anonymous", "POST", "/events", ANONYMOUS, 401, "rest_forbidden"),
    ("subscriber", "POST", "/events", "subscriber", 403, "rest_forbidden"),
    ("bad credentials", "POST", "/events", "bad credentials", 401, "incorrect_password"),
    ("invalid parameters", "POST", "/events", "administrator", 400, "rest_invalid_param"),
    ("unknown route", "POST", "/nowhere", ANONYMOUS, 404, "rest_no_route"),
    ("missing term", "PATCH", f"/categories/{MISSING_ID}", "administrator", 400,
     "rest_invalid_param"),
]  # fmt: skip
BIG = pytest.mark.parametrize(
    ("method", "path", "who", "status", "code"),
    [r[1:] for r in BIG_REFUSALS],
    ids=[r[0] for r in BIG_REFUSALS],
)


def big_body(who: Role) -> bytes:
    fields = {"start_date": "never"} if who == "administrator" else {}
    return json_of_size(500_000, **fields)


def credentials(api: Api, who: Role) -> dict[str, str]:
    return wrong_password("subscriber") if who == "bad credentials" else api.headers(who)


@pytest.mark.server
@BIG
def test_a_refusal_reaches_a_client_sending_a_500_kb_body_and_keeps_the_connection(
    api: Api,
    app: Application,
    method: str,
    path: str,
    who: Role,
    status: int,
    code: str,
) -> None:
    with serving(app) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(request_bytes(method, path, big_body(who), credentials(api, who)))
            refused = read_response(sock)
            sock.sendall(request_bytes("GET", "/events"))  # the same kept-alive connection
            then = read_response(sock)
    assert refused.status == status, refused.body
    assert refused.json()["code"] == code
    assert refused.headers.get("connection", "").lower() != "close"
    assert then.status == 200 and then.json()["total"] == 0


@BIG
def test_embedded_the_app_consumes_the_declared_body_before_refusing(
    api: Api, app: Application, method: str, path: str, who: Role, status: int, code: str
) -> None:
    """Another WSGI server may not buffer the body: the app reads what was declared
    (within the limit) so that the client, still sending, gets the answer."""
    body = big_body(who)
    environ, stream = environ_for(path, method, body, headers=credentials(api, who))
    response = call(app, environ)
    assert_wp_error(response, status, code)
    assert stream.tell() == len(body)


# -- H6: a declared 60 MB body, under `calendar-rest serve` -------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.server
@pytest.mark.slow
def test_regression_h6_a_declared_60_mb_body_is_not_read_before_the_413(tmp_path: Path) -> None:
    """Audit finding H6: "a declared 60 MB body was read before the 413". Under
    ``calendar-rest serve`` (default limit 1 MiB) a client announcing 60 MB gets its
    413 at once, without sending a byte of the body, and the connection is closed."""
    port = free_port()
    command = [
        sys.executable, "-m", "calendar_rest",
        "--database", f"sqlite:///{tmp_path / 'served.db'}",
        "serve", "--port", str(port), "--threads", "2",
    ]  # fmt: skip
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CALENDAR_REST_")}
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=environment,
    )
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{NS}/", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError) as exc:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"server did not answer ({exc}); exit {process.poll()}")
                time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(request_bytes("POST", "/events", headers={"Content-Length": "60000000"}))
            began = time.monotonic()
            response = read_response(sock)
            assert time.monotonic() - began < PROMPT
            assert response.status == 413
            assert closed_by_server(sock)
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def test_regression_h6_the_app_reads_no_byte_of_a_declared_60_mb_body(
    api: Api, app: Application
) -> None:
    """The same finding, embedded: the app answers 413 before reading the body."""
    for who in (ANONYMOUS, "administrator"):
        environ, stream = environ_for(
            "/events", body=b"x" * 65536, headers=api.headers(who), declared=60_000_000
        )
        assert_wp_error(call(app, environ), 413, "rest_payload_too_large")
        assert stream.tell() == 0
