"""The response cache: reused while nothing is written, invalidated by any write made
through any app instance (several processes share one database)."""

from __future__ import annotations

import typing as t

from conftest import NS, Api
from werkzeug.test import Client

from calendar_rest import create_app
from calendar_rest.app import Application
from calendar_rest.edge.cache import CachedResponse, ResponseCache
from calendar_rest.queries.lookups.site_state import generation


def titles(response: t.Any) -> list[str]:
    return [event["title"] for event in response.json["events"]]


def test_a_repeated_read_is_served_from_the_cache(api: Api) -> None:
    api.create_event(title="Cached")
    first = api.get("/events")
    assert api.app.cache is not None and len(api.app.cache) == 1
    second = api.get("/events")
    assert second.get_data() == first.get_data()
    assert second.headers["X-WP-Total"] == "1"


def test_a_write_through_one_instance_invalidates_what_another_cached(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    """Two app instances on one database stand for two server processes."""
    api.create_event(title="Before")
    reader = Client(sibling_app())
    assert titles(reader.get(f"{NS}/events")) == ["Before"]
    assert titles(reader.get(f"{NS}/events")) == ["Before"]  # now cached
    api.create_event(title="After")  # written through the first instance
    assert sorted(titles(reader.get(f"{NS}/events"))) == ["After", "Before"]


def test_updates_and_deletes_invalidate_cached_single_reads(api: Api) -> None:
    event = api.create_event(title="Original")
    assert api.get(f"/events/{event['id']}").json["title"] == "Original"
    api.patch(f"/events/{event['id']}", "administrator", json={"title": "Renamed"})
    assert api.get(f"/events/{event['id']}").json["title"] == "Renamed"
    api.delete(f"/events/{event['id']}", "administrator")
    assert api.get(f"/events/{event['id']}").status_code == 403


def current_generation(api: Api) -> int:
    with api.app.database.connection_context():
        return generation()


def test_a_failed_write_leaves_the_cache_valid(api: Api) -> None:
    api.create_event(title="Kept")
    api.get("/events")
    before = current_generation(api)
    assert api.post("/events", "administrator", json={"title": "x"}).status_code == 400
    assert current_generation(api) == before


def test_each_user_has_their_own_cached_view(api: Api) -> None:
    api.create_event(as_="contributor", title="Draft")  # a contributor's draft
    assert titles(api.get("/events", "contributor")) == ["Draft"]
    assert titles(api.get("/events")) == []
    assert titles(api.get("/events", "contributor2")) == []


def test_relative_dates_are_not_cached(api: Api) -> None:
    api.get("/events?start_date=now")
    api.get("/events?start_date=2026-01-01")
    assert api.app.cache is not None and len(api.app.cache) == 1


def test_the_cache_can_be_switched_off(database_url: str) -> None:
    app = create_app(database_url, cache_entries=0)
    assert app.cache is None


def response(body: bytes) -> CachedResponse:
    return CachedResponse(200, (), body)


def test_entries_of_another_generation_are_dropped() -> None:
    cache = ResponseCache(max_entries=4)
    cache.put(("a",), 1, response(b"x"))
    kept = cache.get(("a",), 1)
    assert kept is not None and (kept.status, kept.headers, kept.body) == (200, (), b"x")
    assert cache.get(("a",), 2) is None
    assert len(cache) == 0


def test_the_least_recently_used_entry_goes_first() -> None:
    cache = ResponseCache(max_entries=2)
    cache.put(("a",), 1, response(b"a"))
    cache.put(("b",), 1, response(b"b"))
    cache.get(("a",), 1)
    cache.put(("c",), 1, response(b"c"))
    assert cache.get(("b",), 1) is None
    assert cache.get(("a",), 1) is not None


def test_the_cache_is_bounded_by_bytes() -> None:
    cache = ResponseCache(max_entries=100, max_bytes=40)
    for name in "abcd":
        cache.put((name,), 1, response(b"0123456789"))
    cache.put(("e",), 1, response(b"0123456789"))
    assert len(cache) == 4
    assert cache.get(("a",), 1) is None
