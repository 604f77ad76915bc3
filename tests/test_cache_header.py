"""``X-Calendar-Cache: hit|miss``: what the response cache did for a read.

With several processes (or machines) on one database, each keeps its own cache, so the
hit rate is what an operator needs to see: the header says it per answer, for access
logs and ``bench/run.py``. It is there only when the cache was looked up (a cacheable
GET, anonymous or not), and added on the way out, so a hit never replays a ``miss``.
"""

from __future__ import annotations

import typing as t

import pytest
from conftest import Api, api_for

from calendar_rest.app import Application
from calendar_rest.edge.cache import CACHE_HEADER
from calendar_rest.edge.cors import ALLOWED_HEADERS, EXPOSED_HEADERS

Build = t.Callable[..., Application]
ADMIN = "administrator"
UNLISTED = "https://elsewhere.example"


def outcome(api: Api, path: str, as_: str | None = None, **headers: str) -> str | None:
    """The one ``X-Calendar-Cache`` value of a GET's answer (None: no header)."""
    response = api.get(path, as_, headers=headers)
    assert response.status_code in (200, 304), response.get_data(as_text=True)
    values = response.headers.getlist(CACHE_HEADER)
    assert len(values) <= 1, values
    return values[0] if values else None


def test_a_repeated_anonymous_read_is_a_miss_then_hits_until_a_write(api: Api) -> None:
    event = api.create_event(title="Gig")
    for path in ("/events", f"/events/{event['id']}", "/venues", ""):
        assert outcome(api, path) == "miss", path
        assert outcome(api, path) == "hit", path
        assert outcome(api, path) == "hit", path
    api.create_event(title="Another gig")
    assert outcome(api, "/events") == "miss"
    assert outcome(api, "/events") == "hit"


def test_a_write_through_another_process_makes_the_next_read_a_miss(
    api: Api, sibling_app: Build
) -> None:
    """Two apps on one database stand for two server processes (or machines): each
    keeps its own entries, and a write anywhere invalidates all of them."""
    other = api_for(sibling_app(), api)
    api.create_event(title="Before")
    assert [outcome(api, "/events"), outcome(api, "/events")] == ["miss", "hit"]
    assert [outcome(other, "/events"), outcome(other, "/events")] == ["miss", "hit"]
    other.create_event(title="Written elsewhere")
    assert outcome(api, "/events") == "miss"
    assert outcome(other, "/events") == "miss"
    assert [outcome(api, "/events"), outcome(other, "/events")] == ["hit", "hit"]


def test_an_authenticated_read_has_its_own_entries_and_the_header_too(api: Api) -> None:
    api.create_event(title="Private view")
    assert outcome(api, "/events") == "miss"
    assert outcome(api, "/events", ADMIN) == "miss"  # another user, another entry
    assert outcome(api, "/events", ADMIN) == "hit"
    assert outcome(api, "/events") == "hit"


def test_no_header_without_the_cache(api: Api, sibling_app: Build) -> None:
    uncached = api_for(sibling_app(cache_entries=0), api)
    api.create_event(title="Uncached")
    for _ in range(2):
        assert outcome(uncached, "/events") is None
        assert outcome(uncached, "/events", ADMIN) is None


def test_no_header_on_requests_the_cache_never_keeps(api: Api) -> None:
    event = api.create_event(title="Kept apart")
    for path in ("/events?_envelope", "/events?start_date=now", "/events?start_date=tomorrow"):
        for _ in range(2):
            assert outcome(api, path) is None, path
    assert outcome(api, "/webhooks", ADMIN) is None  # a resource that is never cached
    head = api.request("HEAD", "/events")  # only GETs look the cache up
    assert head.status_code == 200 and CACHE_HEADER not in head.headers
    written = api.patch(f"/events/{event['id']}", ADMIN, json={"title": "Renamed"})
    assert written.status_code == 200 and CACHE_HEADER not in written.headers
    options = api.request("OPTIONS", "/events")
    assert options.status_code == 200 and CACHE_HEADER not in options.headers


def test_an_answer_that_is_not_kept_stays_a_miss(api: Api) -> None:
    """The cache was looked up and the answer built, but only 200s are kept."""
    for _ in range(2):
        response = api.get("/events/999999")
        assert response.status_code == 404
        assert response.headers[CACHE_HEADER] == "miss"


@pytest.mark.parametrize("as_", [None, ADMIN], ids=["anonymous", "authenticated"])
def test_a_304_says_whether_it_came_from_the_cache(api: Api, as_: str | None) -> None:
    """Anonymous hits are answered by the app's fast path, others by the dispatcher:
    both say ``hit``; after a write the 304 is rebuilt (the tag is a digest of the same
    body), a ``miss``."""
    event = api.create_event(title="Validated")
    path = f"/events/{event['id']}"
    first = api.get(path, as_)
    assert first.headers[CACHE_HEADER] == "miss"
    tag = first.headers["ETag"]
    again = api.get(path, as_, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.headers.getlist(CACHE_HEADER) == ["hit"]
    api.create_event(title="Unrelated")
    rebuilt = api.get(path, as_, headers={"If-None-Match": tag})
    assert rebuilt.status_code == 304 and rebuilt.headers.getlist(CACHE_HEADER) == ["miss"]
    assert outcome(api, path, as_, **{"If-None-Match": tag}) == "hit"


def test_the_header_is_never_stored_with_an_entry(api: Api, app: Application) -> None:
    api.create_event(title="Stored")
    api.get("/events")
    api.get("/events", ADMIN)
    assert app.cache is not None and len(app.cache) == 2
    entries = app.cache.responses.values()
    assert all(CACHE_HEADER not in dict(entry.headers) for entry in entries)


def test_a_page_of_another_origin_may_read_the_cache_and_generation_headers(api: Api) -> None:
    """Exposed to every origin (``Access-Control-Expose-Headers``); a page may send
    ``X-Calendar-Min-Generation`` (read-your-writes with replicas) after a preflight."""
    assert {"X-Calendar-Cache", "X-Calendar-Generation"} <= set(EXPOSED_HEADERS)
    assert "X-Calendar-Min-Generation" in ALLOWED_HEADERS
    api.create_event(title="Embedded")
    for expected in ("miss", "hit"):
        response = api.get("/events", headers={"Origin": UNLISTED})
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        exposed = response.headers["Access-Control-Expose-Headers"].split(", ")
        assert {"X-Calendar-Cache", "X-Calendar-Generation"} <= set(exposed)
        assert response.headers[CACHE_HEADER] == expected
    preflight = api.request(
        "OPTIONS",
        "/events",
        headers={
            "Origin": UNLISTED,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "x-calendar-min-generation",
        },
    )
    allowed = preflight.headers["Access-Control-Allow-Headers"].split(", ")
    assert "X-Calendar-Min-Generation" in allowed
