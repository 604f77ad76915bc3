"""The "Deploying past one machine" recipe of ``docs/deployment.md``, checked where it
can be without machines: every ``calendar-rest`` command line parses with the real
command line, every ``CALENDAR_REST_*`` variable and setting it names is a field of
``Settings``, its headers are the app's, and its health check answers 200 (503 without a
database)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import importlib.metadata
import io
import re
import shlex
from pathlib import Path

import pytest
from conftest import Api
from werkzeug.test import Client

from calendar_rest import create_app
from calendar_rest.cli import build_parser
from calendar_rest.edge.cache import CACHE_HEADER
from calendar_rest.edge.replicas import GENERATION_HEADER, MIN_GENERATION_HEADER
from calendar_rest.i18n.catalogs import translator
from calendar_rest.settings import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "deployment.md"
TITLE = "## Deploying past one machine"
#: snake_case names the recipe mentions that are not settings, and whose they are
FOREIGN = {
    "max_connections": "PostgreSQL",
    "pool_mode": "PgBouncer",
    "max_client_conn": "PgBouncer",
    "default_pool_size": "PgBouncer",
    "pg_stat_replication": "PostgreSQL",
    "pg_stat_activity": "PostgreSQL",
    "application_name": "PostgreSQL",
    "replay_lag": "PostgreSQL",
    "calendar_rest": "the package's logger",
}
SETTINGS = {field.name for field in dataclasses.fields(Settings)}
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")  # NAME, ID: filled in by the reader


@pytest.fixture(scope="module")
def recipe() -> str:
    """The section, up to the page's next section or its end."""
    text = PAGE.read_text()
    start = text.index(f"\n{TITLE}\n")
    end = text.find("\n## ", start + len(TITLE))
    return text[start : end if end != -1 else len(text)]


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def inline_code(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))


def command_lines(text: str) -> list[list[str]]:
    """The arguments after ``calendar-rest`` of every command in a shell block (after
    any cron schedule or variable assignment) or in inline code; placeholders such as
    ``ID`` become ``1``; a line ending in a backslash goes on with the next."""
    joined = [block.replace("\\\n", " ") for block in shell_blocks(text)]
    lines = [line for block in joined for line in block.splitlines()]
    lines += [span for span in inline_code(text) if span.startswith("calendar-rest ")]
    commands = []
    for line in lines:
        words = shlex.split(line, comments=True)
        if "calendar-rest" in words:
            argv = words[words.index("calendar-rest") + 1 :]
            commands.append(["1" if PLACEHOLDER.match(word) else word for word in argv])
    return commands


def test_every_command_line_names_real_commands_and_options(recipe: str) -> None:
    parser = build_parser(translator("en"))
    commands = command_lines(recipe)
    named = {argv[0] for argv in commands}
    assert {"init", "serve", "webhooks", "changes", "extend-series", "users"} <= named
    for argv in commands:
        refused = io.StringIO()
        try:
            with contextlib.redirect_stderr(refused):
                args = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"`calendar-rest {shlex.join(argv)}`: {refused.getvalue()}")
        assert isinstance(args, argparse.Namespace) and callable(args.handler), argv


def test_every_environment_variable_and_setting_is_a_field_of_settings(recipe: str) -> None:
    variables = set(re.findall(rf"\b{ENV_PREFIX}[A-Z0-9_]+\b", recipe))
    assert {"CALENDAR_REST_DATABASE_URL", "CALENDAR_REST_READ_DATABASE_URLS"} <= variables
    unknown = {name for name in variables if name.removeprefix(ENV_PREFIX).lower() not in SETTINGS}
    assert not unknown, unknown
    names = {span for span in inline_code(recipe) if re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", span)}
    codes = {name for name in names if name.startswith("rest_")}  # error codes
    assert {"read_replica_max_lag_seconds", "cache_entries", "count_cache_entries"} <= names
    unknown = names - SETTINGS - set(FOREIGN) - codes
    assert not unknown, f"neither settings nor listed in FOREIGN: {sorted(unknown)}"
    source = "\n".join(path.read_text() for path in (ROOT / "calendar_rest").rglob("*.py"))
    assert all(f'"{code}"' in source for code in codes), codes


def test_the_headers_and_log_variable_are_the_apps(recipe: str) -> None:
    headers = set(re.findall(r"X-Calendar-[A-Za-z-]+", recipe))
    assert headers == {CACHE_HEADER, GENERATION_HEADER, MIN_GENERATION_HEADER}
    nginx = "$upstream_http_" + CACHE_HEADER.lower().replace("-", "_")
    assert nginx in recipe


def test_the_packages_and_the_wsgi_entry_point_exist(recipe: str) -> None:
    offered = set(importlib.metadata.metadata("calendar-rest").get_all("Provides-Extra") or [])
    for extras in re.findall(r"calendar-rest\[([a-z,]+)\]", recipe):
        assert set(extras.split(",")) <= offered, extras
    for module, factory in re.findall(r"'([a-z_.]+):([a-z_]+)\(\)'", recipe):
        assert callable(getattr(importlib.import_module(module), factory))


def test_the_health_check_answers_200_and_503_without_a_database(recipe: str, api: Api) -> None:
    (path,) = re.findall(r"\*\*Health check:\*\* `GET ([^`]+)`", recipe)
    assert path == "/-/ready"
    for _ in range(2):  # never cached: the check runs every time
        answer = api.client.get(path)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert answer.headers["Cache-Control"] == "no-store"
        assert CACHE_HEADER not in answer.headers
        assert answer.get_json() == {
            "status": "ok",
            "database": "ok",
            "schema": "ok",
            "replicas": [],
        }
    unreachable = create_app("sqlite:////nonexistent-directory/calendar.db")
    with contextlib.redirect_stderr(io.StringIO()):
        refused = Client(unreachable).get(path)
    assert refused.status_code == 503
    assert refused.get_json()["database"] == "unreachable"
