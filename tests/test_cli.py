"""The ``calendar-rest`` command, run in-process against every backend."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest
from conftest import NS, Api
from werkzeug.test import Client

from calendar_rest import cli, create_app
from calendar_rest.app import Application
from calendar_rest.edge.auth import basic_header
from calendar_rest.i18n.catalogs import environment_language
from calendar_rest.importing import demo
from calendar_rest.models import MODELS
from calendar_rest.settings import DATABASE_URL_ENV

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI speaks the environment's language: these tests expect English."""
    monkeypatch.setenv("LANGUAGE", "en")


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


def test_users_list_prints_one_line_per_user(url: str, capsys: pytest.CaptureFixture[str]) -> None:
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
        3,
        3,
        4,
        4,
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
    server = Api(app)  # a server already running on the (emptied) database
    assert server.get("/events").json["events"] == []  # cached from now on
    assert cli.main(["--database", database_url, "demo"]) == 0
    assert server.get("/events").json["total"] > 0


def create_user(url: str, capsys: pytest.CaptureFixture[str], name: str) -> str:
    """Create ``name`` (an author); its application password."""
    assert run(url, "users", "create", name, "--role", "author") == 0
    return capsys.readouterr().out.strip().splitlines()[-1]


def add_password(url: str, capsys: pytest.CaptureFixture[str], name: str, *argv: str) -> str:
    assert run(url, "users", "add-password", name, *argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert name in lines[0] and "shown once" in lines[1]
    return lines[-1]


def password_rows(url: str, capsys: pytest.CaptureFixture[str], name: str) -> list[list[str]]:
    assert run(url, "users", "passwords", name) == 0
    return [line.split("\t") for line in capsys.readouterr().out.splitlines()]


def authorized_get(client: Client, login: str, secret: str) -> t.Any:
    return client.get(f"{NS}/events", headers={"Authorization": basic_header(login, secret)})


def test_users_passwords_lists_ids_labels_and_times_never_secrets(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = create_user(url, capsys, "frank")
    second = add_password(url, capsys, "frank", "--label", "phone app")
    create_user(url, capsys, "grace")  # someone else's passwords stay out of the list
    assert run(url, "users", "passwords", "frank") == 0
    out = capsys.readouterr().out
    assert first not in out and second not in out
    rows = [line.split("\t") for line in out.splitlines()]
    assert [row[1] for row in rows] == ["calendar-rest", "phone app"]
    assert int(rows[0][0]) < int(rows[1][0])
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row[2]) for row in rows)


def test_added_password_works_beside_the_first(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = create_user(url, capsys, "heidi")
    second = add_password(url, capsys, "heidi")
    assert len(second) == 24 and second.isalnum() and second != first
    assert [row[1] for row in password_rows(url, capsys, "heidi")] == ["calendar-rest"] * 2
    with served(url) as (client, _):
        assert authorized_get(client, "heidi", first).status_code == 200
        assert authorized_get(client, "heidi", second).status_code == 200


@pytest.mark.parametrize("label", ["", "tab\there", "x" * 101])
def test_bad_label_is_rejected(url: str, label: str, capsys: pytest.CaptureFixture[str]) -> None:
    create_user(url, capsys, "ivan")
    assert run(url, "users", "add-password", "ivan", "--label", label) == 1
    assert "invalid label" in capsys.readouterr().err
    assert len(password_rows(url, capsys, "ivan")) == 1


def test_revoking_takes_effect_at_once_on_a_running_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Authentication reads the passwords on every request: nothing caches them."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    leaked = create_user(url, capsys, "judy")
    kept = add_password(url, capsys, "judy", "--label", "kept")
    leaked_id = password_rows(url, capsys, "judy")[0][0]
    with served(url) as (client, _):  # the server runs before, during and after
        assert authorized_get(client, "judy", leaked).status_code == 200
        assert run(url, "users", "revoke", "judy", "--id", leaked_id) == 0
        assert capsys.readouterr().out.startswith("Revoked 1 application password(s)")
        refused = authorized_get(client, "judy", leaked)
        assert refused.status_code == 401
        assert refused.json["code"] == "incorrect_password"
        assert authorized_get(client, "judy", kept).status_code == 200
        assert run(url, "users", "revoke", "judy", "--all") == 0
        assert "Revoked 1 application password(s)" in capsys.readouterr().out
        assert authorized_get(client, "judy", kept).status_code == 401
    assert run(url, "users", "passwords", "judy") == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "no application password" in captured.err


def test_revoke_all_counts_what_it_deleted(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    create_user(url, capsys, "kim")
    add_password(url, capsys, "kim")
    add_password(url, capsys, "kim")
    other = create_user(url, capsys, "leo")
    assert run(url, "users", "revoke", "kim", "--all") == 0
    assert capsys.readouterr().out == "Revoked 3 application password(s) of “kim”.\n"
    assert run(url, "users", "revoke", "kim", "--all") == 0
    assert "Revoked 0" in capsys.readouterr().out
    with served(url) as (client, _):
        assert authorized_get(client, "leo", other).status_code == 200


def test_revoking_another_users_password_is_an_error(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    create_user(url, capsys, "mia")
    nick = create_user(url, capsys, "nick")
    nick_id = password_rows(url, capsys, "nick")[0][0]
    assert run(url, "users", "revoke", "mia", "--id", nick_id) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and f"id {nick_id}" in captured.err
    with served(url) as (client, _):
        assert authorized_get(client, "nick", nick).status_code == 200


@pytest.mark.parametrize(
    "argv",
    [["passwords", "nobody"], ["add-password", "nobody"], ["revoke", "nobody", "--all"]],
)
def test_unknown_user_is_a_one_line_error(
    url: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(url, "users", *argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "calendar-rest: error: unknown user “nobody”\n"


@pytest.mark.parametrize("argv", [[], ["--id", "1", "--all"], ["--id", "0"]])
def test_revoke_needs_either_one_id_or_all(
    url: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    create_user(url, capsys, "olga")
    assert run(url, "users", "revoke", "olga", *argv) == 2
    assert "--id" in capsys.readouterr().err
    assert len(password_rows(url, capsys, "olga")) == 1


def test_the_cli_speaks_french_when_the_environment_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGUAGE", "fr")
    url = f"sqlite:///{tmp_path / 'fr.db'}"
    assert run(url, "init") == 0
    assert f"{len(MODELS)} table(s) créée(s) dans" in capsys.readouterr().out
    assert run(url, "users", "create", "paul", "--role", "editor") == 0
    out = capsys.readouterr().out
    assert "Utilisateur « paul » créé avec le rôle editor" in out
    assert "Mot de passe d’application (affiché une seule fois" in out
    assert run(url, "users", "revoke", "paul", "--all") == 0
    assert capsys.readouterr().out == ("1 mot(s) de passe d’application de « paul » révoqué(s).\n")
    assert run(url, "users", "passwords", "quentin") == 1
    assert capsys.readouterr().err == "calendar-rest : erreur : utilisateur « quentin » inconnu\n"
    assert run(url, "serve", "--port", "http") == 2
    err = capsys.readouterr().err
    assert err.startswith("utilisation : calendar-rest serve")
    assert "calendar-rest serve : erreur : " in err
    assert "doit être un entier entre 0 et 65535" in err
    assert run(url, "users", "revoke", "--help") == 0
    help_text = capsys.readouterr().out
    assert "prend effet immédiatement" in help_text
    assert "affiche ce message d’aide et quitte" in help_text
    assert "(--id ID | --all) NAME" in help_text  # option names and metavars stay


def test_the_cli_speaks_english_in_the_c_locale(
    url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C")
    assert run(url, "init") == 0
    assert "already up to date" in capsys.readouterr().out
    assert run(url, "users", "passwords", "nobody") == 1
    assert capsys.readouterr().err == "calendar-rest: error: unknown user “nobody”\n"


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({}, "en"),
        ({"LANGUAGE": "fr"}, "fr"),
        ({"LANGUAGE": "de:fr"}, "fr"),  # gettext's first available language
        ({"LANGUAGE": "de:es"}, "en"),
        ({"LANGUAGE": "en_GB:fr"}, "en"),
        ({"LANGUAGE": "C:fr"}, "en"),  # C ends the list, as in gettext
        ({"LANGUAGE": "", "LANG": "fr_FR.UTF-8"}, "fr"),  # empty means unset
        ({"LC_ALL": "fr_CA.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_MESSAGES": "fr_BE@euro", "LANG": "de_DE"}, "fr"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "FR_fr"}, "fr"),
        ({"LANG": "pt_BR"}, "en"),
    ],
)
def test_environment_language(environ: dict[str, str], language: str) -> None:
    assert environment_language(environ) == language


def test_environment_language_reads_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert environment_language() == "en"
    monkeypatch.setenv("LC_MESSAGES", "fr_FR.UTF-8")
    assert environment_language() == "fr"
