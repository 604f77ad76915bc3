"""The read gate (``app.read_gate``, setting ``concurrent_reads``): on SQLite one read
the cache did not answer runs at a time per process, while cache hits and writes pass;
elsewhere reads are not bounded unless asked."""

from __future__ import annotations

import threading
import time
import typing as t

import pytest
from conftest import Api, api_for
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.settings import Settings

NS = "/calendar/events/v1"
WAIT = 10.0


def test_the_default_gates_reads_on_sqlite_only(app: Application, backend: str) -> None:
    gate = app.read_gate
    if backend == "sqlite":
        assert gate is not None
        assert gate.acquire(blocking=False)  # one read at a time: a second one waits
        assert not gate.acquire(blocking=False)
        gate.release()
    else:
        assert gate is None


class Inside:
    """Counts the dispatcher's requests in flight and holds them until released."""

    def __init__(self, app: Application, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.entered = threading.Event()
        self.release = threading.Event()
        original = app.dispatcher.handle

        def handle(request: t.Any) -> t.Any:
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            self.entered.set()
            try:
                if request.method == "GET":
                    self.release.wait(WAIT)
                return original(request)
            finally:
                with self.lock:
                    self.now -= 1

        monkeypatch.setattr(app.dispatcher, "handle", handle)


def get_in_thread(app: Application, path: str, results: list[int]) -> threading.Thread:
    def run() -> None:
        results.append(Client(app).get(NS + path).status_code)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(("concurrent_reads", "most"), [(1, 1), (2, 2), (0, 3)])
def test_concurrent_reads_bounds_the_reads_in_flight(
    api: Api,
    sibling_app: t.Callable[..., Application],
    monkeypatch: pytest.MonkeyPatch,
    concurrent_reads: int,
    most: int,
) -> None:
    for n in range(3):
        api.create_event(title=f"Listed {n}")
    app = sibling_app(concurrent_reads=concurrent_reads, cache_entries=0)
    inside = Inside(app, monkeypatch)
    results: list[int] = []
    threads = [get_in_thread(app, f"/events?per_page=1&page={n}", results) for n in (1, 2, 3)]
    deadline = time.monotonic() + WAIT
    while inside.now < most and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)  # room for a read the gate should have held back
    assert inside.most == most
    inside.release.set()
    for thread in threads:
        thread.join(WAIT)
    assert results == [200, 200, 200]
    assert inside.most == most


def test_a_write_and_a_cache_hit_pass_a_held_gate(
    api: Api, sibling_app: t.Callable[..., Application], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = sibling_app(concurrent_reads=1)
    client = api_for(app, api)
    api.create_event(title="Before")
    assert client.get("/categories").status_code == 200  # kept by the response cache
    inside = Inside(app, monkeypatch)
    results: list[int] = []
    held = get_in_thread(app, "/events?per_page=3", results)  # a miss: holds the gate
    assert inside.entered.wait(WAIT)
    started = time.monotonic()
    hit = Client(app).get(NS + "/categories")
    assert (hit.status_code, hit.headers["X-Calendar-Cache"]) == (200, "hit")
    created = client.create_event(title="While a read holds the gate")
    assert created["title"] == "While a read holds the gate"
    assert time.monotonic() - started < WAIT / 2  # neither waited for the held read
    inside.release.set()
    held.join(WAIT)
    assert results == [200]


@pytest.mark.parametrize("value", ["-2", "x"])
def test_a_bad_concurrent_reads_fails_at_start_up(value: str) -> None:
    with pytest.raises(ValueError, match="CONCURRENT_READS|concurrent_reads"):
        Settings.build("sqlite:///unused.db", {"CALENDAR_REST_CONCURRENT_READS": value})
