"""The connection limit of ``calendar-rest serve`` and the open files it needs
(operations.md §4): what a full server does with a new client, descriptors past what
``select`` can watch, the soft limit raised or the connections fitted to the hard one,
and the options and settings that set them. A ``serve`` subprocess on 127.0.0.1 each;
every wait is bounded."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import pytest
from held_connections import HEADER_TIMEOUT, LATE, PROMPT, Attack, ask_while, spread
from serve_process import DEADLINE, enough_open_files, serving

from calendar_rest import cli
from calendar_rest.settings import Settings

pytestmark = pytest.mark.server


@pytest.mark.slow
def test_a_full_server_takes_a_new_client_once_the_deadline_frees_a_slot(
    tmp_path: Path,
) -> None:
    """Past ``max_connections`` waitress stops accepting and a new client waits in the
    listen queue; connections that send nothing hold their slot only until their
    header timeout, and the queue is served in order, so the new client comes before
    the attackers that reconnect behind it."""
    limits = {"max_connections": "50", "header_timeout": str(HEADER_TIMEOUT)}
    with serving(tmp_path, settings=limits) as served, Attack(served.port, 50, 0) as attack:
        time.sleep(HEADER_TIMEOUT / 2)
        held = served.connections_held()
        latencies = ask_while(served.port, 4 * HEADER_TIMEOUT)
    print(f"every slot held: {len(latencies)} normal requests: {spread(latencies)}")
    assert held == 50 and attack.lifetimes["idle"]
    assert max(latencies) > 0.5, "the limit was never reached: the test proves nothing"
    assert max(latencies) < HEADER_TIMEOUT + LATE, sorted(latencies)[-5:]


@pytest.mark.slow
def test_more_connections_than_select_can_watch(tmp_path: Path) -> None:
    """1,100 connections, held: the server's descriptors go past 1,023, where
    ``select`` fails; waitress watches them with ``poll`` and still answers."""
    enough_open_files(1300)
    limits = {"max_connections": "1200", "header_timeout": "60"}
    with serving(tmp_path, settings=limits) as served, Attack(served.port, 1100, 0):
        deadline = time.monotonic() + DEADLINE
        while (held := served.connections_held()) < 1100 and time.monotonic() < deadline:
            time.sleep(0.2)
        latencies = ask_while(served.port, 3.0)
        output = served.output()
    assert held >= 1100
    assert max(latencies) < PROMPT, sorted(latencies)[-5:]
    assert "Traceback" not in output and "ERROR" not in output, output


def open_files_limit(pid: int) -> int:
    """The soft limit of open files of process ``pid``."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no open files limit")


@pytest.mark.slow
def test_serve_raises_its_soft_limit_of_open_files(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 3096:
        pytest.skip(f"1,000 connections need a hard limit of 3,096 open files; it is {hard}")
    with serving(tmp_path, open_files=(256, hard)) as served:
        raised = open_files_limit(served.process.pid)
        output = served.output()
    assert raised == (hard if hard != resource.RLIM_INFINITY else 3000 + 64 + 4 * 8)
    assert f"soft limit (ulimit -n) raised from 256 to {raised}" in output


@pytest.mark.slow
def test_serve_holds_as_many_connections_as_its_hard_limit_allows(tmp_path: Path) -> None:
    """512 open files at most: 64 for the process, 8 for each of its 4 threads and 3 for
    each connection leave 138 connections; the 139th waits to be accepted."""
    limits = {"header_timeout": "60"}
    with (
        serving(tmp_path, settings=limits, open_files=(512, 512)) as served,
        Attack(served.port, 160, 0),
    ):
        deadline = time.monotonic() + DEADLINE
        while (held := served.connections_held()) < 138 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # had it accepted more, they would show by now
        held = served.connections_held()
        output = served.output()
    assert held == 138
    assert "holds 138 connections, not max_connections=1000" in output, output


@pytest.mark.slow
def test_the_options_of_serve_win_over_the_environment(tmp_path: Path) -> None:
    settings = {"max_connections": "5", "header_timeout": "60"}
    options = ("--max-connections", "20", "--header-timeout", str(HEADER_TIMEOUT))
    with (
        serving(tmp_path, settings=settings, options=options) as served,
        Attack(served.port, 20, 0) as attack,
    ):
        deadline = time.monotonic() + DEADLINE
        while (held := served.connections_held()) < 20 and time.monotonic() < deadline:
            time.sleep(0.1)
        while not attack.lifetimes["idle"] and time.monotonic() < deadline:
            time.sleep(0.1)
    assert held == 20
    assert HEADER_TIMEOUT - 0.1 < min(attack.lifetimes["idle"]) < HEADER_TIMEOUT + LATE


@pytest.mark.parametrize(
    "option", [("--max-connections", "0"), ("--header-timeout", "0"), ("--header-timeout", "x")]
)
def test_serve_refuses_a_limit_that_is_not_positive(
    tmp_path: Path, option: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--database", f"sqlite:///{tmp_path / 'c.db'}", "serve", *option]) == 2
    assert "must be a positive" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "value"), [("max_connections", "0"), ("header_timeout", "0"), ("header_timeout", "-1")]
)
def test_a_limit_that_is_not_positive_is_refused_at_start_up(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"{name} must be a positive"):
        Settings.build(environ={f"CALENDAR_REST_{name.upper()}": value})
    assert Settings.build(environ={"CALENDAR_REST_HEADER_TIMEOUT": "2.5"}).header_timeout == 2.5
