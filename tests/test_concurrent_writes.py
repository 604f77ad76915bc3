"""Writes to different records run side by side on PostgreSQL and MariaDB, and queue on
SQLite (issue 16, point 4); the change feed and the caches stay exact (``sync.md`` §3.8).

A write is held open at its last step before it takes its position (its records are
written, its transaction is open), while other requests run in other threads. The
hold is a pause in the write's own pipeline, so what it shows is what a slow write of
the service does to the others, not what some other lock would.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import threading
import time
import typing as t
from pathlib import Path

import pytest
from conftest import NS, SLOW_RUN, Api
from sync_helpers import seen, walk
from werkzeug.test import Client, TestResponse

from calendar_rest import cli
from calendar_rest.app import Application
from calendar_rest.cli.series import roll_forward
from calendar_rest.clock import ManualClock
from calendar_rest.db import connect_database
from calendar_rest.models import bind_models

ADMIN = "administrator"
#: seconds a held write may stay held, and a request may take, before the test fails
BOUND = 30
#: seconds a write must stay unfinished to count as queued behind the held one: each
#: test waits them in full, and a write that does not queue ends within milliseconds;
#: the slow runs (CI) wait longer
QUEUED = 1.0 if SLOW_RUN else 0.25


class HeldWrite:
    """Pauses the writes sent through :meth:`send_held` at their last step before the
    commit, until :meth:`release`."""

    def __init__(self, app: Application, api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
        self.app = app
        self.api = api
        self.reached = threading.Event()
        self._release = threading.Event()
        self._local = threading.local()
        self._pool = concurrent.futures.ThreadPoolExecutor(4)
        outbox = app.dispatcher.outbox
        enqueue = outbox.enqueue_changes

        def paused(*args: t.Any, **kwargs: t.Any) -> int:
            enqueued = enqueue(*args, **kwargs)
            if getattr(self._local, "held", False):
                self.reached.set()
                assert self._release.wait(BOUND), "the held write was never released"
            return enqueued

        monkeypatch.setattr(outbox, "enqueue_changes", paused)

    def send(
        self, method: str, path: str, as_: str | None = ADMIN, **kwargs: t.Any
    ) -> TestResponse:
        """A request of its own (its own client), in the calling thread."""
        headers = {**self.api.headers(as_), **kwargs.pop("headers", {})}
        return Client(self.app).open(NS + path, method=method, headers=headers, **kwargs)

    def send_held(
        self, method: str, path: str, **kwargs: t.Any
    ) -> concurrent.futures.Future[TestResponse]:
        """Send in another thread, and wait until the write is held open."""

        def held() -> TestResponse:
            self._local.held = True
            return self.send(method, path, **kwargs)

        future = self._pool.submit(held)
        assert self.reached.wait(BOUND), "the write never reached its last step"
        return future

    def send_beside(
        self, method: str, path: str, **kwargs: t.Any
    ) -> concurrent.futures.Future[TestResponse]:
        """Send in another thread, not held."""
        return self._pool.submit(self.send, method, path, **kwargs)

    def release(self) -> None:
        self._release.set()

    def close(self) -> None:
        self._release.set()
        self._pool.shutdown(wait=True)


@pytest.fixture
def hold(app: Application, api: Api, monkeypatch: pytest.MonkeyPatch) -> t.Iterator[HeldWrite]:
    held = HeldWrite(app, api, monkeypatch)
    yield held
    held.close()


def rows_lock(backend: str) -> bool:
    """Whether writers lock rows (else, on SQLite, every writer queues)."""
    return backend != "sqlite"


def finished_beside(
    hold: HeldWrite, backend: str, beside: concurrent.futures.Future[TestResponse]
) -> TestResponse:
    """The answer of a write sent while another is held: it comes while the other is
    still held where rows are locked; on SQLite it queues until the release."""
    if rows_lock(backend):
        answer = beside.result(timeout=BOUND)  # the held write has not committed yet
        hold.release()
        return answer
    with pytest.raises(concurrent.futures.TimeoutError):
        beside.result(timeout=QUEUED)
    hold.release()
    return beside.result(timeout=BOUND)


#: the held write: what it does to event 1 (or beside it)
HELD_WRITES = {
    "edit": ("PATCH", "/events/{first}", {"title": "Held edit"}),
    "trash": ("DELETE", "/events/{first}", None),
    "create a long event with a new venue and tag": (
        "POST",
        "/events",
        {
            "title": "Held festival",
            "start_date": "2030-06-01 10:00:00",
            "end_date": "2030-06-09 22:00:00",
            "venue": {"venue": "Held Hall"},
            "tags": ["held"],
        },
    ),
}


@pytest.mark.parametrize("held_write", HELD_WRITES)
def test_a_write_to_another_event_completes_while_one_is_held(
    api: Api, hold: HeldWrite, backend: str, held_write: str
) -> None:
    first, second = api.create_event()["id"], api.create_event()["id"]
    method, path, body = HELD_WRITES[held_write]
    held = hold.send_held(method, path.format(first=first), json=body)
    beside = hold.send_beside("PATCH", f"/events/{second}", json={"title": "Beside"})
    answer = finished_beside(hold, backend, beside)
    assert answer.status_code == 200, answer.json
    assert held.result(timeout=BOUND).status_code in (200, 201)
    assert api.get(f"/events/{second}", ADMIN).json["title"] == "Beside"


def test_writes_of_one_event_queue_and_the_later_one_checks_its_tag_after(
    api: Api, hold: HeldWrite
) -> None:
    event = api.create_event()["id"]
    tag = api.get(f"/events/{event}", ADMIN).headers["ETag"]
    conditional = {"If-Match": tag}
    held = hold.send_held("PATCH", f"/events/{event}", json={"title": "A"}, headers=conditional)
    later = hold.send_beside("PATCH", f"/events/{event}", json={"title": "B"}, headers=conditional)
    with pytest.raises(concurrent.futures.TimeoutError):
        later.result(timeout=QUEUED)  # on every backend: the record's lock
    hold.release()
    assert held.result(timeout=BOUND).status_code == 200
    refused = later.result(timeout=BOUND)
    assert refused.status_code == 412 and refused.json["code"] == "rest_precondition_failed"
    assert api.get(f"/events/{event}", ADMIN).json["title"] == "A"


def test_a_change_committed_late_is_not_skipped_by_the_change_feed(
    api: Api, hold: HeldWrite, backend: str
) -> None:
    first, second = api.create_event()["id"], api.create_event()["id"]
    _, token = walk(api, ADMIN)
    held = hold.send_held("PATCH", f"/events/{first}", json={"title": "Late"})
    beside = hold.send_beside("PATCH", f"/events/{second}", json={"title": "Early"})
    if rows_lock(backend):
        assert beside.result(timeout=BOUND).status_code == 200
        entries, token = walk(api, ADMIN, sync_token=token)  # while the first is held
        assert seen(entries) == [("event", second, "upsert")]
    hold.release()
    assert held.result(timeout=BOUND).status_code == 200
    assert beside.result(timeout=BOUND).status_code == 200
    entries, _ = walk(api, ADMIN, sync_token=token)
    late = ("event", first, "upsert")
    assert late in seen(entries)  # committed after the token was handed out, not lost
    assert api.get(f"/events/{first}", ADMIN).json["title"] == "Late"


def test_the_response_cache_drops_what_a_late_commit_changed(
    api: Api, hold: HeldWrite, backend: str
) -> None:
    first, second = api.create_event()["id"], api.create_event()["id"]
    path = f"/events/{first}"
    held = hold.send_held("PATCH", path, json={"title": "Changed late"})
    before = [api.get(path) for _ in range(2)]  # anonymous: cached
    assert [answer.json["title"] for answer in before] == ["Test event"] * 2
    assert before[1].headers["X-Calendar-Cache"] == "hit"
    beside = hold.send_beside("PATCH", f"/events/{second}", json={"title": "Beside"})
    assert finished_beside(hold, backend, beside).status_code == 200
    assert held.result(timeout=BOUND).status_code == 200
    after = api.get(path)
    assert after.json["title"] == "Changed late"
    assert after.headers["X-Calendar-Cache"] == "miss"


def test_events_written_side_by_side_keep_their_tag_count(api: Api, hold: HeldWrite) -> None:
    api.create_event()  # as long as the two: neither raises the longest-event bound
    tag = api.post("/tags", ADMIN, json={"name": "Shared"}).json["id"]
    held = hold.send_held("POST", "/events", json=event_body("One", tags=[tag]))
    beside = hold.send_beside("POST", "/events", json=event_body("Two", tags=[tag]))
    with pytest.raises(concurrent.futures.TimeoutError):
        beside.result(timeout=QUEUED)  # it waits to count the tag (SQLite: the file)
    hold.release()  # and counts it once the first has committed
    assert held.result(timeout=BOUND).status_code == 201
    assert beside.result(timeout=BOUND).status_code == 201
    assert api.get(f"/tags/{tag}").json["count"] == 2


def test_events_created_side_by_side_with_one_title_get_distinct_slugs(
    api: Api, hold: HeldWrite
) -> None:
    held = hold.send_held("POST", "/events", json=event_body("Same title"))
    beside = hold.send_beside("POST", "/events", json=event_body("Same title"))
    hold.release()  # the second's insert of the same slug waits, fails, and is replayed
    slugs = {future.result(timeout=BOUND).json["slug"] for future in (held, beside)}
    assert slugs == {"same-title", "same-title-2"}


def test_writes_of_one_series_queue_on_its_master(api: Api, hold: HeldWrite, backend: str) -> None:
    series = api.create_event(
        title="Weekly", recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"], status="publish"
    )
    listed = occurrence_titles(api, series["id"])
    one, other = listed[1][0], listed[2][0]
    held = hold.send_held("PATCH", f"/events/{one}?scope=all", json={"title": "Renamed"})
    beside = hold.send_beside("PATCH", f"/events/{other}?scope=this", json={"title": "Alone"})
    with pytest.raises(concurrent.futures.TimeoutError):
        beside.result(timeout=QUEUED)  # the series' master is locked (SQLite: the file)
    hold.release()
    assert held.result(timeout=BOUND).status_code == 200
    assert beside.result(timeout=BOUND).status_code == 200
    titles = [title for _, title in occurrence_titles(api, series["id"])]
    assert titles == ["Renamed", "Renamed", "Alone", "Renamed"]


def occurrence_titles(api: Api, series: int) -> list[tuple[int, str]]:
    window = {"start_date": "2020-01-01", "end_date": "2040-12-31", "per_page": 50}
    response = api.get(f"/events/{series}/occurrences", ADMIN, query_string=window)
    assert response.status_code == 200, response.json
    return [(item["id"], item["title"]) for item in response.json["events"]]


def event_body(title: str, **fields: t.Any) -> dict[str, t.Any]:
    return {
        "title": title,
        "start_date": "2030-03-01 19:00:00",
        "end_date": "2030-03-01 21:00:00",
        **fields,
    }


@pytest.mark.backends("postgresql", "mysql")
def test_a_write_caught_in_a_deadlock_is_replayed(
    api: Api, hold: HeldWrite, database_url: str, backend: str
) -> None:
    """Another transaction takes the generation row; the held write, released, waits
    for it; then the other waits for the write's event. The database breaks the cycle
    by failing one of the two; when it fails the write, the write is replayed, and
    answers 200, not 500."""
    event = api.create_event()["id"]
    held = hold.send_held("PATCH", f"/events/{event}", json={"title": "Through"})
    has_generation, write_waits = threading.Event(), threading.Event()
    outcome: list[str] = []
    key = "`key`" if backend == "mysql" else '"key"'

    def rival() -> None:
        other = connect_database(database_url)
        with other.connection_context():
            try:
                with other.atomic():
                    other.execute_sql(
                        f"UPDATE site_state SET value = value + 1 WHERE {key} = 'generation'"
                    )
                    has_generation.set()
                    assert write_waits.wait(BOUND)
                    other.execute_sql(f"SELECT id FROM event WHERE id = {event} FOR UPDATE")
                outcome.append("committed")
            except Exception as exc:  # noqa: BLE001 - the deadlock victim
                outcome.append(type(exc).__name__)
        other.close_all()

    thread = threading.Thread(target=rival)
    thread.start()
    assert has_generation.wait(BOUND)
    hold.release()
    time.sleep(QUEUED / 2)  # the write now waits for the generation row
    write_waits.set()
    answer = held.result(timeout=BOUND)
    thread.join(BOUND)
    assert answer.status_code == 200, answer.json
    assert api.get(f"/events/{event}", ADMIN).json["title"] == "Through"
    # PostgreSQL usually fails the write (it waited first), which is replayed once the
    # rival has committed; MariaDB usually fails the rival, which changed fewer rows
    assert outcome in (["committed"], ["OperationalError"])


def test_the_roll_forward_waits_for_a_write_of_the_series_and_extends_what_it_wrote(
    api: Api, app: Application, hold: HeldWrite
) -> None:
    """The daily roll-forward adds occurrences from the master's values: it locks the
    masters as API writes do, so it reads a series-wide edit only once it committed."""
    master = api.create_event(title="Monthly", recurrence=["RRULE:FREQ=MONTHLY"])["id"]
    held = hold.send_held("PATCH", f"/events/{master}", json={"title": "Renamed"})
    later = ManualClock(dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=95))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        rolled = pool.submit(roll_forward, app.database, app.settings, later)
        with pytest.raises(concurrent.futures.TimeoutError):
            rolled.result(timeout=QUEUED)
        hold.release()
        assert held.result(timeout=BOUND).status_code == 200
        assert rolled.result(timeout=BOUND) > 0
    bind_models(app.database, app.login_store)  # the roll-forward bound its own thread's
    titles = {title for _, title in occurrence_titles(api, master)}
    assert titles == {"Renamed"}


ONE_EVENT_ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//calendar_rest tests//EN
BEGIN:VEVENT
UID:imported-while-held@example.test
DTSTAMP:20300101T000000Z
DTSTART:20300301T190000Z
DTEND:20300301T210000Z
SUMMARY:{summary}
END:VEVENT
END:VCALENDAR
"""


def test_an_import_waits_for_a_write_of_the_event_it_matched_and_keeps_it(
    api: Api, database_url: str, hold: HeldWrite, tmp_path: Path
) -> None:
    """An import updating an event that an API write holds starts from what that write
    committed: the field the file does not carry keeps the API's value."""
    source = tmp_path / "events.ics"
    source.write_text(ONE_EVENT_ICS.format(summary="First"))
    assert cli.main(["--database", database_url, "import", "--quiet", str(source)]) == 0
    event = api.get("/events", ADMIN, query_string=WINDOW).json["events"][0]["id"]
    held = hold.send_held("PATCH", f"/events/{event}", json={"featured": True})
    source.write_text(ONE_EVENT_ICS.format(summary="Second"))
    argv = ["--database", database_url, "import", "--quiet", str(source)]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        imported = pool.submit(cli.main, argv)
        with pytest.raises(concurrent.futures.TimeoutError):
            imported.result(timeout=QUEUED)  # the event's lock (SQLite: the file)
        hold.release()
        assert held.result(timeout=BOUND).status_code == 200
        assert imported.result(timeout=BOUND) == 0
    after = api.get(f"/events/{event}", ADMIN).json
    assert (after["title"], after["featured"]) == ("Second", True)


WINDOW = {"start_date": "2030-01-01", "end_date": "2030-12-31"}
