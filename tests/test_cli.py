"""The ``calendar-rest`` command, run in-process against every backend."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest
from conftest import NS
from werkzeug.test import Client

from calendar_rest import cli, create_app, demo
from calendar_rest.app import Application
from calendar_rest.auth import basic_header
from calendar_rest.models import MODELS
from calendar_rest.settings import DATABASE_URL_ENV


@pytest.fixture
def url(app: Application, database_url: str) -> str:
    """The backend's URL, its tables emptied by the ``app`` fixture."""
    return database_url


@contextlib.contextmanager
def served(url: str) -> t.Iterator[tuple[Client, Application]]:
    """A client on a fresh app: the CLI rebinds the models, ``create_app`` binds them back."""
    application = create_app(url)
    try:
        yield Client(application), application
    finally:
        application.database.close()


def run(url: str, *argv: str) -> int:
    return cli.main(["--database", url, *argv])


def test_init_creates_the_schema_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    assert run(url, "init") == 0
    assert f"Created {len(MODELS)} table(s)" in capsys.readouterr().out
    assert run(url, "init") == 0
    assert "already up to date" in capsys.readouterr().out


def test_init_on_an_existing_schema_changes_nothing(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(url, "init") == 0
    assert "already up to date" in capsys.readouterr().out


def test_database_defaults_to_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'env.db'}")
    assert cli.main(["init"]) == 0
    assert (tmp_path / "env.db").exists()


def test_users_create_prints_a_working_password_last(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["users", "create", "alice", "--role", "editor", "--email", "a@example.test"]
    assert run(url, *argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "alice" in lines[0]
    password = lines[-1]
    assert len(password) == 24 and password.isalnum()
    with served(url) as (client, _):
        ok = client.get(f"{NS}/events", headers={"Authorization": basic_header("alice", password)})
        assert ok.status_code == 200
        assert "status=any" in ok.json["rest_url"]  # the listing saw an editor
        by_email = basic_header("a@example.test", password)
        assert client.get(f"{NS}/events", headers={"Authorization": by_email}).status_code == 200
        bad = basic_header("alice", password[::-1])
        assert client.get(f"{NS}/events", headers={"Authorization": bad}).status_code == 401


def test_duplicate_user_is_an_error(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(url, "users", "create", "bob", "--role", "author") == 0
    capsys.readouterr()
    assert run(url, "users", "create", "bob", "--role", "editor") == 1
    captured = capsys.readouterr()
    assert "already exists" in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("argv", [["--role", "king"], []])
def test_bad_or_missing_role_is_rejected(
    url: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(url, "users", "create", "carol", *argv) == 2
    assert "--role" in capsys.readouterr().err
    assert run(url, "users", "list") == 0
    assert "carol" not in capsys.readouterr().out


def test_bad_login_is_rejected(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(url, "users", "create", "a:b", "--role", "author") == 1
    assert "invalid user name" in capsys.readouterr().err


def test_users_list_prints_one_line_per_user(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run(url, "users", "create", "dora", "--role", "author", "--email", "dora@example.test")
    run(url, "users", "create", "eve", "--role", "subscriber")
    capsys.readouterr()
    assert run(url, "users", "list") == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [row[1:] for row in rows] == [
        ["dora", "author", "dora@example.test"],
        ["eve", "subscriber", ""],
    ]
    assert all(row[0].isdigit() for row in rows)


def test_demo_is_idempotent_and_listed(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(url, "demo") == 0
    out = capsys.readouterr().out
    assert "events: 12" in out
    password = out.strip().splitlines()[-1]
    with served(url) as (_, application), application.database.connection_context():
        first = demo.record_counts()
    assert first["events"] == len(demo.DEMO_EVENTS)
    assert (first["venues"], first["organizers"], first["categories"], first["tags"]) == (
        3, 3, 4, 4,
    )

    assert run(url, "demo") == 0
    assert "already loaded" in capsys.readouterr().out
    with served(url) as (client, application):
        with application.database.connection_context():
            assert demo.record_counts() == first
        listing = client.get(f"{NS}/events", query_string={"per_page": 50})
        assert listing.status_code == 200
        events = {event["title"]: event for event in listing.json["events"]}
        assert "Autumn Lantern Parade" not in events  # draft
        assert "Volunteer Crew Briefing" not in events  # hidden from listings
        assert listing.json["total"] == len(demo.DEMO_EVENTS) - 2
        assert events["City Symphony Gala"]["featured"] is True
        assert events["City Symphony Gala"]["cost"] == "$15 \u2013 $45"
        assert events["Harbor Folk Festival"]["all_day"] is True
        assert events["Summer Jazz Night"]["timezone"] == "America/New_York"
        jazz = [c for c in events["Summer Jazz Night"]["categories"] if c["name"] == "Jazz"]
        assert jazz and jazz[0]["parent"] != 0
        admin = {"Authorization": basic_header(demo.DEMO_ADMIN, password)}
        draft = client.get(f"{NS}/events/by-slug/autumn-lantern-parade", headers=admin)
        assert draft.status_code == 200 and draft.json["status"] == "draft"


def test_bad_database_url_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--database", "nosuchdb://x", "init"]) == 1
    assert "unsupported database URL scheme" in capsys.readouterr().err


def test_python_dash_m_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "calendar_rest", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for command in ("init", "users", "serve", "demo", "--database"):
        assert command in done.stdout


def test_loading_the_demo_invalidates_what_a_running_server_cached(
    app: t.Any, database_url: str
) -> None:
    """The demo writes straight to the database, so it must bump the write generation."""
    server = app  # a server already running on the (emptied) database
    with server.database.connection_context():
        before = server.generation()
    assert cli.main(["--database", database_url, "demo"]) == 0
    with server.database.connection_context():
        assert server.generation() > before
