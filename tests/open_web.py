"""Helpers shared by the tests of ``open-web.md`` (``test_http_semantics``, ``test_cors``,
``test_wordpress_globals``, ``test_discovery``, ``test_paging_and_arrays``,
``test_openapi_contract``, ``test_demo_data``).

They talk HTTP only: requests by absolute path (the site root ``/`` is outside the
namespace ``Api.request`` prefixes), ``Link`` and list-valued header parsing, and records
made the way a client makes them, so each test file reads as the contract it protects.
"""

from __future__ import annotations

import datetime as dt
import re
import typing as t
from urllib.parse import parse_qsl, urlsplit

from conftest import NS, Api
from werkzeug.test import Client, TestResponse

JSON_TYPE = "application/json; charset=UTF-8"
#: the two roots: English at the site root, French under ``/fr``
ROOTS = {"en": "", "fr": "/fr"}
#: ``wp_get_nocache_headers()``, as a set of directives
NO_CACHE = {"no-cache", "must-revalidate", "max-age=0", "no-store", "private"}
#: the relation of WordPress's discovery link
API_REL = "https://api.w.org/"
#: the methods ``Allow`` may list, in the order it lists them
ALLOW_ORDER = ("GET", "POST", "PUT", "PATCH", "DELETE")
MISSING_ID = 999_999
Body = dict[str, t.Any]

LINK_VALUE = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]+)*)")
LINK_PARAM = re.compile(r';\s*([\w*-]+)\s*=\s*(?:"([^"]*)"|([^;,\s]*))')


def call(
    api: Api,
    method: str,
    path: str,
    as_: str | None = None,
    *,
    client: Client | None = None,
    headers: t.Mapping[str, str] | None = None,
    **kwargs: t.Any,
) -> TestResponse:
    """``method`` on an absolute ``path`` (``/``, ``/fr/``, ``/calendar/...``) as the user
    ``as_`` (None: anonymous), through ``client`` (default: the fixture app's)."""
    sent = {**api.headers(as_), **(headers or {})}
    return (client or api.client).open(path, method=method, headers=sent, **kwargs)


def ns(root: str, path: str = "") -> str:
    """The absolute path of ``path`` under the namespace of ``root`` (``""`` or ``/fr``)."""
    return f"{root}{NS}{path}"


def ok(response: TestResponse, status: int = 200) -> Body:
    """The JSON body of a response that must have ``status``."""
    assert response.status_code == status, response.get_data(as_text=True)
    return t.cast(Body, response.json)


def tokens(response: TestResponse, name: str) -> list[str]:
    """The comma-separated items of every ``name`` header, in order, trimmed."""
    return [
        item.strip()
        for value in response.headers.getlist(name)
        for item in value.split(",")
        if item.strip()
    ]


def parse_links(value: str) -> list[tuple[str, set[str]]]:
    """The link-values of one ``Link`` header value (RFC 8288): ``(URL, relations)``."""
    found = []
    for target, params in LINK_VALUE.findall(value):
        relations: set[str] = set()
        for name, quoted, bare in LINK_PARAM.findall(params):
            if name.lower() == "rel":
                relations.update((quoted or bare).split())
        found.append((target, relations))
    return found


def links(response: TestResponse) -> list[tuple[str, set[str]]]:
    """Every link-value of every ``Link`` header of the response."""
    return [found for value in response.headers.getlist("Link") for found in parse_links(value)]


def link(response: TestResponse, relation: str) -> str | None:
    """The URL of the ``Link`` with that relation, None when there is none."""
    targets = [target for target, relations in links(response) if relation in relations]
    assert len(targets) <= 1, response.headers.getlist("Link")
    return targets[0] if targets else None


def query_of(url: str) -> list[tuple[str, str]]:
    """The decoded query parameters of ``url``, in order, blanks kept."""
    return parse_qsl(urlsplit(url).query, keep_blank_values=True)


def path_and_query(url: str) -> str:
    """What a client replays of an absolute URL through the test client."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def day(offset: int) -> str:
    """The UTC date ``offset`` days from today, inside the default listing window."""
    return (dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=offset)).isoformat()


def make_event(api: Api, owner: str, status: str, **fields: t.Any) -> Body:
    """An event owned by ``owner`` in ``status``, made as a client would (the rules of
    ``tests/test_event_permissions.py``): contributors' published events are published
    by the editor, ``future`` is a publication dated in the future, ``trash`` is an
    event deleted by its owner."""
    title = fields.pop("title", f"{owner} {status}")
    if status == "trash":
        first = "draft" if owner.startswith("contributor") else "publish"
        event = make_event(api, owner, first, title=title, **fields)
        return ok(api.delete(f"/events/{event['id']}", owner))
    if status == "future":
        fields.setdefault("date", "2030-01-01 10:00:00")
        return api.create_event(as_=owner, title=title, status="publish", **fields)
    if owner.startswith("contributor") and status == "publish":
        draft = api.create_event(as_=owner, title=title, **fields)
        return ok(api.patch(f"/events/{draft['id']}", "editor", json={"status": "publish"}))
    contributor = owner.startswith("contributor")
    requested = "publish" if status == "pending" and contributor else status
    event = api.create_event(as_=owner, title=title, status=requested, **fields)
    assert event["status"] == status, event
    return event


def create_event_in(api: Api, root: str, as_: str = "administrator", **fields: t.Any) -> Body:
    """An event created through ``root`` (``""`` or ``/fr``: a French record), next month."""
    start = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=30)
    payload = {
        "title": "Test event",
        "start_date": start.strftime("%Y-%m-%d 19:00:00"),
        "end_date": start.strftime("%Y-%m-%d 21:00:00"),
        **fields,
    }
    return ok(api.post(ns(root, "/events") if root else "/events", as_, json=payload), 201)


def make_linked(api: Api, collection: str, owner: str, status: str | None, name: str) -> Body:
    """A venue or organizer created by ``owner`` (``status`` None: the role's default)."""
    noun = "venue" if collection == "venues" else "organizer"
    body: Body = {noun: name}
    if status is not None:
        body["status"] = status
    return ok(api.post(f"/{collection}", owner, json=body), 201)


def make_term(api: Api, collection: str, name: str, as_: str = "administrator") -> Body:
    return ok(api.post(f"/{collection}", as_, json={"name": name}), 201)
