"""How long the heaviest series writes the bounds allow hold the write lock: at most a
second of the writer's own work on SQLite, whose every write waits for it.

Every occurrence of a series is an event of its own (calendar.md §4.1): a write that
creates, moves, edits, ends or deletes a series of 2,000 occurrences reaches 2,000 rows,
their links and their words. Found when tried as an attacker would: written row by
row, creating such a series held SQLite's lock 36 s, and with a 700 KB description it
would have written 40 million search words.

The timing runs on a shared machine, so each write is measured three times (a new
series each) and the best run counts; and it counts the CPU time of the thread that
holds the lock (the writer's own work, SQLite's included, which runs in that thread),
not the wall time another process's load adds to it. The wall time is recorded too
(``-s`` prints both). Each write's statements are counted: they may not grow with the
occurrences (the test of that runs on every backend, with the default tests).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import time
import typing as t

import pytest
from conftest import Api, api_for

from calendar_rest.app import Application
from calendar_rest.cli.series import roll_forward
from calendar_rest.clock import ManualClock
from calendar_rest.db import UPDATE_BATCH
from calendar_rest.edge import writes as write_pipeline
from calendar_rest.models import bind_models
from calendar_rest.schemas.events import MAX_SERIES_LINKS, MAX_SERIES_TEXT

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
#: the most the writer's own work may hold the lock, in seconds
MOST = 1.0
#: statements one series write may run: the 300 linked records one event may create
#: take some 700 (as for any event write); a statement a row made it tens of thousands
MOST_STATEMENTS = 1000
Json = dict[str, t.Any]


@dataclasses.dataclass
class Held:
    """One write transaction: its wall and CPU seconds, and its statements."""

    wall: float = 0.0
    cpu: float = 0.0
    statements: int = 0


class Writes:
    """Records each write transaction of an app (its request scope) as it ends."""

    def __init__(self, app: Application, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held: list[Held] = []
        self.counting = False
        self.statements = 0
        original_scope = write_pipeline.request_scope
        original_execute = app.database.execute_sql

        @contextlib.contextmanager
        def timed(database: t.Any, *, write: bool) -> t.Iterator[None]:
            if not write:
                with original_scope(database, write=write):
                    yield
                return
            with self.measured():
                with original_scope(database, write=write):
                    yield

        def counted(sql: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
            self.statements += 1
            return original_execute(sql, *args, **kwargs)

        monkeypatch.setattr(write_pipeline, "request_scope", timed)
        monkeypatch.setattr(app.database, "execute_sql", counted)

    @contextlib.contextmanager
    def measured(self) -> t.Iterator[None]:
        self.statements = 0
        wall, cpu = time.perf_counter(), time.thread_time()
        yield
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        self.held.append(Held(wall, cpu, self.statements))

    def last(self) -> Held:
        return self.held[-1]


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client whose app's clock stands still at ``NOW``."""
    return api_for(sibling_app(clock=ManualClock(NOW)), api)


@pytest.fixture
def writes(cal: Api, monkeypatch: pytest.MonkeyPatch) -> Writes:
    return Writes(cal.app, monkeypatch)


# -- the heaviest payloads the bounds allow --------------------------------------------


def description(tag: str, words: int) -> str:
    """HTML of ``words`` distinct words of 33 letters (a word index entry each)."""
    return "<p>" + " ".join(f"{tag}{number:05d}{'w' * 28}" for number in range(words)) + "</p>"


@dataclasses.dataclass(frozen=True)
class Shape:
    """A series at the bounds: its occurrences, links of each kind, text."""

    occurrences: int
    organizers: int
    categories: int
    tags: int
    words: int

    def create(self, tag: str, rule: str | None = None) -> Json:
        return {
            "title": f"Drill {tag}",
            "start_date": "2026-03-02 08:00:00",
            "end_date": "2026-03-02 08:30:00",
            "recurrence": [rule or f"RRULE:FREQ=HOURLY;COUNT={self.occurrences}"],
            "description": description(tag, self.words),
            "organizer": [
                {"organizer": f"{tag} organizer {n}", "email": f"{tag}{n}@example.com"}
                for n in range(self.organizers)
            ],
            "categories": [f"{tag} category {n}" for n in range(self.categories)],
            "tags": [f"{tag} tag {n}" for n in range(self.tags)],
        }

    def edit(self, tag: str) -> Json:
        """A series-wide edit of the title, the text, the organizers and categories."""
        return {
            "scope": "all",
            "title": f"Other {tag}",  # as long as the first: the text stays at the bound
            "description": description(tag[::-1], self.words),
            "organizer": [{"organizer": f"{tag} other {n}"} for n in range(self.organizers)],
            "categories": [f"{tag} genre {n}" for n in range(self.categories)],
        }


#: the most occurrences, with the most links and text the series bounds leave them
WIDE = Shape(2000, 9, 8, 8, 110)
#: the most links and text one event may have (``MAX_LINKED``, a 700 KB description),
#: on the occurrences the series bounds leave it
DEEP = Shape(11, 100, 100, 100, 20000)


def within_bounds(shape: Shape) -> bool:
    payload = shape.create("x0")
    text = len(payload["title"]) + len(payload["description"])
    links = shape.organizers + shape.categories + shape.tags
    return (
        shape.occurrences * links <= MAX_SERIES_LINKS
        and shape.occurrences * text <= MAX_SERIES_TEXT
    )


def test_the_payloads_are_the_heaviest_the_bounds_allow() -> None:
    assert within_bounds(WIDE) and within_bounds(DEEP)
    heavier = dataclasses.replace(WIDE, tags=WIDE.tags + 1)
    longer = dataclasses.replace(WIDE, words=WIDE.words + 4)
    assert not within_bounds(heavier) and not within_bounds(longer)


# -- the timing ----------------------------------------------------------------------------


def write(cal: Api, writes: Writes, method: str, path: str, body: Json | None = None) -> Json:
    response = cal.request(method, path, "administrator", json=body)
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    return t.cast(Json, response.json)


def run_once(cal: Api, writes: Writes, shape: Shape, number: int) -> dict[str, Held]:
    """Each heavy series write, once, on series of ``shape`` (their tags of two letters:
    every run's text is as long)."""
    held: dict[str, Held] = {}
    tag = f"a{number}"
    master = write(cal, writes, "POST", "/events", shape.create(tag))["id"]
    held["create"] = writes.last()
    write(cal, writes, "PATCH", f"/events/{master}", shape.edit(tag))
    held["edit series-wide"] = writes.last()
    rule = f"RRULE:FREQ=HOURLY;COUNT={shape.occurrences};BYMINUTE=30"
    write(cal, writes, "PATCH", f"/events/{master}", {"scope": "all", "recurrence": [rule]})
    held["new rule: every occurrence replaced"] = writes.last()
    moved = {"scope": "all", "start_date": "2026-03-02 08:45:00", "end_date": "2026-03-02 09:15:00"}
    write(cal, writes, "PATCH", f"/events/{master}", moved)
    held["moved: every occurrence re-dated"] = writes.last()
    write(cal, writes, "PATCH", f"/events/{master}", {"scope": "all", "recurrence": []})
    held["ended"] = writes.last()
    other = write(cal, writes, "POST", "/events", shape.create(f"d{number}"))["id"]
    write(cal, writes, "DELETE", f"/events/{other}?scope=all")
    held["deleted"] = writes.last()
    # the roll-forward after a long pause: as many occurrences as the bounds allow
    every = max(1, 730 * 24 // shape.occurrences + 1)
    rule = f"RRULE:FREQ=HOURLY;INTERVAL={every}"
    rolled = write(cal, writes, "POST", "/events", shape.create(f"f{number}", rule))["id"]
    clock = t.cast(ManualClock, cal.app.clock)
    clock.advance(days=730)
    try:
        with writes.measured():
            added = roll_forward(cal.app.database, cal.app.settings, clock)
        bind_models(cal.app.database, cal.app.login_store)
    finally:
        clock.set(NOW)
    assert added >= shape.occurrences * 0.9
    held["rolled forward (extend-series)"] = writes.last()
    write(cal, writes, "DELETE", f"/events/{rolled}?scope=all")  # not rolled again
    return held


@pytest.mark.slow
@pytest.mark.backends("sqlite")  # the one backend whose writes all wait for each other
@pytest.mark.parametrize("shape", [WIDE, DEEP], ids=["2000 occurrences", "700 KB text"])
def test_no_series_write_holds_the_lock_more_than_a_second(
    cal: Api, writes: Writes, shape: Shape
) -> None:
    runs = [run_once(cal, writes, shape, number) for number in range(3)]
    for label in runs[0]:
        best = min(run[label].cpu for run in runs)
        walls = [round(run[label].wall, 3) for run in runs]
        statements = max(run[label].statements for run in runs)
        print(f"{label}: cpu {best:.3f} s (best of 3), wall {walls} s, {statements} statements")
        assert best <= MOST, f"{label}: {best:.3f} s"
        assert statements <= MOST_STATEMENTS, f"{label}: {statements} statements"


# -- statements that do not grow with the occurrences (every backend) ------------------


def statements_of(cal: Api, writes: Writes, occurrences: int) -> list[int]:
    """The statements of creating, editing, moving and deleting a series."""
    shape = dataclasses.replace(WIDE, occurrences=occurrences, words=20)
    master = write(cal, writes, "POST", "/events", shape.create(f"n{occurrences}"))["id"]
    counts = [writes.last().statements]
    moved = {"scope": "all", "start_date": "2026-03-02 09:00:00"}
    for body in (shape.edit(f"n{occurrences}"), moved):
        write(cal, writes, "PATCH", f"/events/{master}", body)
        counts.append(writes.last().statements)
    write(cal, writes, "DELETE", f"/events/{master}?scope=all")
    return [*counts, writes.last().statements]


def test_a_series_write_runs_a_statement_per_batch_of_rows_not_per_row(
    cal: Api, writes: Writes
) -> None:
    statements_of(cal, writes, 2)  # the first writes note what a database does once
    few, many = statements_of(cal, writes, 10), statements_of(cal, writes, 400)
    batches = 400 // UPDATE_BATCH  # rows each of their own values, on some backends
    assert all(0 <= more - less <= batches for less, more in zip(few, many, strict=True)), (
        few,
        many,
    )
