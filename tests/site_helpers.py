"""Helpers of the public pages' tests: read a page's listed events and links."""

from __future__ import annotations

import datetime as dt
import re
import typing as t

from conftest import NS, Api
from werkzeug.test import Client, TestResponse

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
EVENT_ID = re.compile(r'data-event-id="(\d+)"')
CSP = (
    "default-src 'self'; img-src 'self' https: data:; object-src 'none'; "
    "base-uri 'self'; frame-ancestors 'self'"
)


def page(client: Client | Api, path: str, **kwargs: t.Any) -> TestResponse:
    """GET a page as a browser does."""
    raw = client.client if isinstance(client, Api) else client
    headers = {**BROWSER, **kwargs.pop("headers", {})}
    return raw.get(path, headers=headers, **kwargs)


def shown_ids(response: TestResponse) -> list[int]:
    """The events a page lists, in its order (each ``data-event-id`` once)."""
    seen: list[int] = []
    for match in EVENT_ID.finditer(response.get_data(as_text=True)):
        if int(match[1]) not in seen:
            seen.append(int(match[1]))
    return seen


def api_ids(api: Api, **params: t.Any) -> list[int]:
    """The IDs an anonymous ``GET /events`` answers for ``params`` (every page)."""
    ids: list[int] = []
    page_number = 1
    while True:
        answer = api.client.get(
            f"{NS}/events", query_string={**params, "per_page": 50, "page": page_number}
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
        ids += [event["id"] for event in answer.json["events"]]
        if page_number >= int(answer.headers["X-TEC-TotalPages"]):
            return ids
        page_number += 1


def link(response: TestResponse, rel: str) -> str | None:
    """The ``href`` of the page's ``<a rel="…">`` link."""
    found = re.search(rf'<a rel="{rel}" href="([^"]+)"', response.get_data(as_text=True))
    return found[1].replace("&amp;", "&") if found else None


def day_start(day: dt.date) -> str:
    return f"{day.isoformat()} 00:00:00"
