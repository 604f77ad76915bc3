"""Every header is sent once, on every path an answer takes (RFC 9110 §5.3: a field
that is not a list must not repeat; HTTP clients refuse an answer with two
``Content-Length`` lines, Node's ``fetch`` among them, ``test_clients_node_fetch.py``).

An answer is built by the dispatcher (a miss), replayed from the response cache (the
anonymous fast path of ``app.py``, or the dispatcher's per-user entries), turned into a
304, stripped of its body for HEAD, or made by an error; each on both language roots,
with and without credentials and a CORS origin. The headers are read as the server
receives them from the WSGI callable, before any client merges them.
"""

from __future__ import annotations

import collections
import typing as t

import pytest
from conftest import NS, Api
from werkzeug.test import Client, EnvironBuilder

from calendar_rest.app import Application

Build = t.Callable[..., Application]
ORIGIN = "https://partner.example"
ROOTS = ("", "/fr")


def sent_headers(
    app: Application, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> list[str]:
    """The header names ``app`` hands its server, in order, duplicates kept."""
    environ = EnvironBuilder(path=path, method=method, headers=headers, data=body).get_environ()
    started: list[list[tuple[str, str]]] = []
    body = app(environ, lambda status, sent, exc_info=None: started.append(sent))  # type: ignore[arg-type,return-value]
    b"".join(body)
    return [name.lower() for name, _ in started[0]]


def repeated(names: list[str]) -> list[str]:
    return [name for name, count in collections.Counter(names).items() if count > 1]


@pytest.fixture
def listed_app(sibling_app: Build) -> Application:
    """The fixture app's database with a CORS allow-list (so answers carry CORS headers)."""
    return sibling_app(cors_origins=(ORIGIN,))


@pytest.fixture
def event_id(api: Api) -> int:
    return int(api.create_event(title="Sent once")["id"])


def reads(event_id: int) -> list[str]:
    return [
        "/",
        "/events",
        f"/events/{event_id}",
        "/events.ics",
        f"/events/{event_id}.ics",
        "/changes",
        "/venues",
        "/categories",
        "/doc",
        "/events/999999",  # an error
        "/events?per_page=abc",  # a refused parameter
    ]


@pytest.mark.parametrize("root", ROOTS, ids=["en", "fr"])
@pytest.mark.parametrize("as_", [None, "administrator"], ids=["anonymous", "authenticated"])
@pytest.mark.parametrize("origin", [False, True], ids=["same-origin", "cors"])
@pytest.mark.parametrize("encoding", [None, "gzip"], ids=["identity", "gzip"])
def test_no_header_is_sent_twice_on_any_read_path(
    api: Api,
    listed_app: Application,
    event_id: int,
    root: str,
    as_: str | None,
    origin: bool,
    encoding: str | None,
) -> None:
    """Miss, hit (twice), HEAD of a hit, 304 of a hit and of a miss, errors; each
    also gzipped (``Content-Encoding``, its length, ``Vary`` with ``Accept-Encoding``)."""
    headers = {
        **api.headers(as_),
        **({"Origin": ORIGIN} if origin else {}),
        **({"Accept-Encoding": encoding} if encoding else {}),
    }
    client = Client(listed_app)
    for path in reads(event_id):
        url = f"{root}{NS}{path}"
        seen = []
        for method in ("GET", "GET", "GET", "HEAD"):
            seen.append((method, sent_headers(listed_app, method, url, headers)))
        tag = client.get(url, headers=headers).headers.get("ETag")
        if tag:
            conditional = {**headers, "If-None-Match": tag}
            seen.append(("304", sent_headers(listed_app, "GET", url, conditional)))
        for how, names in seen:
            assert "content-length" in names or how == "304", (how, url, names)
            assert repeated(names) == [], (how, url, names)
            if encoding and path == "/doc" and how != "304":  # always over 1 KB
                assert "content-encoding" in names, (how, url, names)


@pytest.mark.parametrize("as_", [None, "administrator"], ids=["anonymous", "authenticated"])
@pytest.mark.parametrize("encoding", [None, "gzip"], ids=["identity", "gzip"])
def test_no_header_is_sent_twice_on_writes_options_and_refusals(
    api: Api, listed_app: Application, event_id: int, as_: str | None, encoding: str | None
) -> None:
    headers = {**api.headers(as_), "Origin": ORIGIN, "Content-Type": "application/json"}
    if encoding:
        headers["Accept-Encoding"] = encoding
    for root in ROOTS:
        for method, path, body in (
            ("OPTIONS", "/events", None),
            ("POST", "/events", None),  # 400 (no body) or 401
            ("PATCH", f"/events/{event_id}", None),
            ("PATCH", f"/events/{event_id}", b'{"title": "Sent once again"}'),  # 200 or 401
            ("DELETE", "/events/999999", None),
            ("PUT", "/nowhere", None),
        ):
            names = sent_headers(listed_app, method, f"{root}{NS}{path}", headers, body)
            assert repeated(names) == [], (method, path, names)
            if encoding and method == "OPTIONS":  # its description is over 1 KB
                assert "content-encoding" in names, (method, path, names)
