"""One transaction per request: failed writes leave nothing behind, and concurrent
writers all succeed (through a real threaded server on SQLite, in-process elsewhere)."""

from __future__ import annotations

import collections
import concurrent.futures
import functools
import json
import threading
import typing as t
import urllib.error
import urllib.request

import pytest
from conftest import NS, Api, assert_wp_error
from live_server import running
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.models import Event, EventOrganizer, EventTerm, Organizer, Term, Venue
from calendar_rest.repository import terms as terms_repository

START = "2026-12-05 19:00:00"
END = "2026-12-05 21:00:00"
BODY = {"title": "Jazz Night", "start_date": START, "end_date": END}
RICH = {
    **BODY,
    "venue": {"venue": "Blue Hall", "city": "Paris"},
    "organizer": [{"organizer": "Ann"}, {"organizer": "Bob"}],
    "categories": ["Music"],
}


def row_counts(app: Application) -> dict[str, int]:
    models = (Event, Venue, Organizer, Term, EventTerm, EventOrganizer)
    with app.database.connection_context():
        return {model.__name__: model.select().count() for model in models}


def fail_term_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: t.Any, **kwargs: t.Any) -> t.NoReturn:
        raise RuntimeError("terms table unavailable")

    monkeypatch.setattr(terms_repository, "set_event_terms", explode)


def test_a_create_failing_half_way_leaves_nothing_behind(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = row_counts(app)
    fail_term_writes(monkeypatch)
    assert_wp_error(api.post("/events", "administrator", json=RICH), 500, "rest_internal_error")
    assert row_counts(app) == before
    assert all(count == 0 for count in before.values())


def test_the_same_create_succeeds_once_the_failure_is_gone(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        fail_term_writes(patch)
        assert api.post("/events", "administrator", json=RICH).status_code == 500
    event = api.post("/events", "administrator", json=RICH).json
    assert event["id"] and event["venue"]["venue"] == "Blue Hall"
    assert event["slug"] == "jazz-night"  # nothing from the failed attempt took the slug
    counts = row_counts(app)
    assert (counts["Event"], counts["Venue"], counts["Organizer"], counts["Term"]) == (1, 1, 2, 1)


def test_an_update_failing_half_way_changes_nothing(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = api.post("/events", "administrator", json=RICH).json
    before = row_counts(app)
    fail_term_writes(monkeypatch)
    change = {"title": "Renamed", "venue": {"venue": "Red Room"}, "categories": ["Theatre"]}
    response = api.put(f"/events/{event['id']}", "administrator", json=change)
    assert_wp_error(response, 500, "rest_internal_error")
    assert row_counts(app) == before
    monkeypatch.undo()
    after = api.get(f"/events/{event['id']}").json
    assert after["title"] == "Jazz Night"
    assert after["venue"]["venue"] == "Blue Hall"
    assert [term["name"] for term in after["categories"]] == ["Music"]


def test_a_trash_failing_half_way_keeps_the_event(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = api.post("/events", "administrator", json=RICH).json

    def explode(*args: t.Any) -> t.NoReturn:
        raise RuntimeError("counts unavailable")

    monkeypatch.setattr(terms_repository, "refresh_term_counts", explode)
    assert_wp_error(
        api.delete(f"/events/{event['id']}", "administrator"), 500, "rest_internal_error"
    )
    monkeypatch.undo()
    after = api.get(f"/events/{event['id']}").json
    assert (after["status"], after["slug"]) == ("publish", "jazz-night")


# -- concurrency -----------------------------------------------------------------------

SERVER_CREATES = 200
CLIENT_THREADS = 8


@pytest.mark.backends("sqlite")  # SQLite's locking: writers queue on one file lock
def test_a_threaded_server_accepts_many_concurrent_creates(api: Api, app: Application) -> None:
    headers = {**api.headers("author"), "Content-Type": "application/json"}

    def create(port: int, number: int) -> int | str:
        payload = {**BODY, "title": f"Concert {number}", "categories": ["Music"]}
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}{NS}/events",
            data=json.dumps(payload).encode(),
            headers=headers,
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:  # the code too, so a failure says why
            return f"{error.code} {json.loads(error.read() or b'{}').get('code')}"
        except OSError as error:
            return f"{type(error).__name__}: {error}"

    with running(app, threads=8) as port:
        with concurrent.futures.ThreadPoolExecutor(CLIENT_THREADS) as pool:
            numbers = range(SERVER_CREATES)
            statuses = list(pool.map(functools.partial(create, port), numbers, timeout=300))
    # a tally, so that a failure says which statuses came back and how often
    assert collections.Counter(statuses) == {201: SERVER_CREATES}
    assert row_counts(app)["Event"] == SERVER_CREATES
    listing = api.get("/events", "administrator")
    assert listing.headers["X-WP-Total"] == str(SERVER_CREATES)
    assert listing.json["events"][0]["categories"][0]["count"] == SERVER_CREATES


RACE_THREADS = 8
RACE_CREATES_PER_THREAD = 4


def test_concurrent_creates_with_the_same_title_get_distinct_slugs(
    api: Api, app: Application
) -> None:
    barrier = threading.Barrier(RACE_THREADS, timeout=30)
    headers = api.headers("editor")

    def worker(_: int) -> list[tuple[int, str]]:
        client = Client(app)
        barrier.wait()
        results = []
        for _ in range(RACE_CREATES_PER_THREAD):
            response = client.post(f"{NS}/events", headers=headers, json=BODY)
            body = response.json or {}
            results.append((response.status_code, str(body.get("slug", body))))
        return results

    with concurrent.futures.ThreadPoolExecutor(RACE_THREADS) as pool:
        outcomes = [item for batch in pool.map(worker, range(RACE_THREADS), timeout=120)
                    for item in batch]  # fmt: skip
    total = RACE_THREADS * RACE_CREATES_PER_THREAD
    assert [status for status, _ in outcomes] == [201] * total, outcomes
    slugs = {slug for _, slug in outcomes}
    assert len(slugs) == total
    assert "jazz-night" in slugs
    assert row_counts(app)["Event"] == total


@pytest.mark.parametrize("method", ["GET", "PATCH"])
def test_a_request_takes_one_connection_from_the_pool(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """The connection that read the write generation serves the whole request: a
    read, and the checks and the transaction of a write."""
    event = api.create_event(title="Pooled")
    opened: list[object] = []
    connect = app.database.connect

    def counted(*args: t.Any, **kwargs: t.Any) -> t.Any:
        opened.append(None)
        return connect(*args, **kwargs)

    monkeypatch.setattr(app.database, "connect", counted)
    path = f"/events/{event['id']}"
    if method == "GET":
        assert api.get(path).status_code == 200
    else:
        assert api.patch(path, "administrator", json={"title": "Pooled again"}).status_code == 200
    assert len(opened) == 1
