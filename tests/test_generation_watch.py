"""The SQLite write signal (``generation_watch``): a request reads the write generation
only when some process committed since this one last read it, or when the kept one is
older than the recheck bound; what it serves stays as fresh as reading every time."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest
from conftest import NS, Api
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.caching.generation_watch import RECHECK_SECONDS, SUFFIX, GenerationWatch


class Reads:
    """A stand-in for the database read, counting its calls."""

    def __init__(self) -> None:
        self.value = 1
        self.count = 0

    def __call__(self) -> int:
        self.count += 1
        return self.value


def test_the_kept_generation_is_used_until_a_commit_is_announced(tmp_path: Path) -> None:
    now = [0.0]
    path = str(tmp_path / "calendar.db")
    reader = GenerationWatch(path, clock=lambda: now[0])
    writer = GenerationWatch(path, clock=lambda: now[0])  # another process on the file
    reads = Reads()
    assert [reader.current(reads) for _ in range(5)] == [1] * 5
    assert reads.count == 1
    reads.value = 2  # committed by the writer...
    writer.written()  # ...and announced once the commit is done
    assert reader.current(reads) == 2 and reads.count == 2
    assert reader.current(reads) == 2 and reads.count == 2


def test_a_commit_that_was_not_announced_shows_within_the_recheck_bound(tmp_path: Path) -> None:
    now = [0.0]
    watch = GenerationWatch(str(tmp_path / "calendar.db"), clock=lambda: now[0])
    reads = Reads()
    assert watch.current(reads) == 1
    reads.value = 2  # a process died between its commit and its announcement
    now[0] += RECHECK_SECONDS / 2
    assert watch.current(reads) == 1
    now[0] += RECHECK_SECONDS
    assert watch.current(reads) == 2


def test_this_processs_own_commit_drops_what_it_kept(tmp_path: Path) -> None:
    watch = GenerationWatch(str(tmp_path / "calendar.db"), clock=lambda: 0.0)
    reads = Reads()
    watch.current(reads)
    reads.value = 7
    watch.written()
    assert watch.current(reads) == 7 and reads.count == 2


def test_an_unwritable_signal_file_means_reading_every_time(tmp_path: Path) -> None:
    """A directory in the file's place stands for a file that cannot be opened (a
    read-only directory, which root would write into anyway)."""
    (tmp_path / f"calendar.db{SUFFIX}").mkdir()
    watch = GenerationWatch(str(tmp_path / "calendar.db"))
    reads = Reads()
    assert [watch.current(reads) for _ in range(3)] == [1, 1, 1]
    assert reads.count == 3


# -- through the app ------------------------------------------------------------------------


@pytest.fixture
def sqlite_file(app: Application) -> str:
    """The app's SQLite file: the tests that use it are marked ``backends("sqlite")``
    (PostgreSQL and MariaDB read the generation every time)."""
    return app.settings.database_url.removeprefix("sqlite:///")


def generation_reads(app: Application, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = app.database.execute_sql

    def spy(sql: str, params: t.Any = None, *args: t.Any, **kwargs: t.Any) -> t.Any:
        if "site_state" in sql and list(params or ()) == ["generation"]:
            seen.append(sql)
        return original(sql, params, *args, **kwargs)

    monkeypatch.setattr(app.database, "execute_sql", spy)
    return seen


@pytest.mark.backends("sqlite")
def test_cached_reads_skip_the_generation_read_until_another_instance_writes(
    api: Api,
    sqlite_file: str,
    sibling_app: t.Callable[..., Application],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api.create_event(title="Before")
    reader_app = sibling_app()  # another process on the same file
    reader = Client(reader_app)
    reads = generation_reads(reader_app, monkeypatch)
    for _ in range(3):
        assert reader.get(f"{NS}/events").json["total"] == 1
    assert len(reads) == 1  # the first request only
    api.create_event(title="After")  # committed through the other instance
    assert reader.get(f"{NS}/events").json["total"] == 2
    assert len(reads) == 2


@pytest.mark.backends("sqlite")
def test_a_write_by_another_process_shows_at_once(
    api: Api, sqlite_file: str, tmp_path: Path
) -> None:
    """A real second process (the CLI) commits: the server's next read shows it."""
    api.create_event(title="Before")
    assert api.get("/events").json["total"] == 1
    assert api.get("/events").headers["X-Calendar-Cache"] == "hit"
    ics = tmp_path / "one.ics"
    ics.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        "UID:one@test\r\nDTSTAMP:20300101T000000Z\r\nDTSTART:20300101T100000Z\r\n"
        "DTEND:20300101T110000Z\r\nSUMMARY:Imported\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    command = [
        sys.executable,
        "-m",
        "calendar_rest",
        "--database",
        f"sqlite:///{sqlite_file}",
        "import",
        str(ics),
        "--author",
        "administrator",
        "--quiet",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    listing = api.get("/events?start_date=2020-01-01&end_date=2031-01-01")
    assert "Imported" in [event["title"] for event in listing.json["events"]]
    assert api.get("/events").headers["X-Calendar-Cache"] == "miss"


@pytest.mark.backends("sqlite")
def test_a_commit_without_the_signal_shows_within_the_recheck_bound(
    api: Api, sqlite_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that writes the file without announcing it (here a bare sqlite3
    connection bumping the generation) is seen once the kept generation is too old."""
    now = [0.0]
    watch = api.app.database.generation_watch
    assert watch is not None
    monkeypatch.setattr(watch, "clock", lambda: now[0])
    api.create_event(title="Cached")
    assert api.get("/events").json["total"] == 1
    assert api.get("/events").headers["X-Calendar-Cache"] == "hit"
    with sqlite3.connect(sqlite_file) as raw:
        raw.execute("UPDATE site_state SET value = value + 1 WHERE key = 'generation'")
    assert api.get("/events").headers["X-Calendar-Cache"] == "hit"  # trusted, for now
    now[0] += RECHECK_SECONDS + 0.01
    assert api.get("/events").headers["X-Calendar-Cache"] == "miss"


@pytest.mark.backends("sqlite")
def test_a_cache_hit_takes_no_connection_while_nothing_was_committed(
    api: Api, sqlite_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.create_event(title="Cached")
    assert api.get("/events").headers["X-Calendar-Cache"] == "miss"
    opened: list[object] = []
    connect = api.app.database.connect

    def counted(*args: t.Any, **kwargs: t.Any) -> t.Any:
        opened.append(None)
        return connect(*args, **kwargs)

    monkeypatch.setattr(api.app.database, "connect", counted)
    assert api.get("/events").headers["X-Calendar-Cache"] == "hit"
    assert opened == []
    assert api.app.database.is_closed()


def test_a_closed_watch_holds_no_descriptor_and_maps_again_when_used(tmp_path: Path) -> None:
    """``close_all`` unmaps it: a process about to fork keeps nothing of the database."""
    path = str(tmp_path / "calendar.db")
    watch = GenerationWatch(path, clock=lambda: 0.0)

    def held() -> list[str]:
        return [
            os.readlink(fd)
            for fd in Path("/proc/self/fd").iterdir()
            if os.path.exists(fd) and os.readlink(fd).startswith(path)
        ]

    reads = Reads()
    watch.current(reads)
    assert held() == [path + SUFFIX]
    watch.close()
    assert held() == []
    watch.written()  # maps it again
    assert watch.current(reads) == 1 and reads.count == 2
