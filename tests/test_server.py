"""The service behind a real waitress server on 127.0.0.1 (bounded: ~20 s at most)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import typing as t
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pytest
from conftest import NS, Api
from live_server import running

from calendar_rest.auth import basic_header

pytestmark = pytest.mark.server

DEADLINE = 20.0
EVENT = {"title": "Served", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 12:00"}


def fetch(url: str, timeout: float = 5.0) -> tuple[int, Message, t.Any]:
    """Status, headers (case-insensitive: waitress re-cases them) and JSON body."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.headers, json.loads(response.read())


def wait_until_answering(url: str, deadline: float) -> tuple[int, Message, t.Any]:
    """Poll ``url`` until it answers or the deadline passes (then fail)."""
    while True:
        try:
            return fetch(url, timeout=2.0)
        except (urllib.error.URLError, ConnectionError) as exc:
            if time.monotonic() > deadline:
                pytest.fail(f"no answer from {url}: {exc}")
            time.sleep(0.1)


def test_events_route_over_http(api: Api) -> None:
    api.create_event(title="Served event")
    with running(api.app) as port:
        url = f"http://127.0.0.1:{port}{NS}/events"
        status, headers, body = wait_until_answering(url, time.monotonic() + DEADLINE)
    assert status == 200
    assert headers["Content-Type"] == "application/json; charset=UTF-8"
    assert headers["X-WP-Total"] == headers["X-TEC-Total"] == "1"
    assert [event["title"] for event in body["events"]] == ["Served event"]
    assert body["rest_url"].startswith(f"http://127.0.0.1:{port}{NS}/events/")


def test_error_over_http_keeps_the_wordpress_shape(api: Api) -> None:
    with running(api.app) as port:
        url = f"http://127.0.0.1:{port}{NS}/events/999999"
        wait_until_answering(f"http://127.0.0.1:{port}{NS}/events", time.monotonic() + DEADLINE)
        with pytest.raises(urllib.error.HTTPError) as caught:
            fetch(url)
        with caught.value as error:
            body = json.loads(error.read())
    assert error.code == 404
    assert body["code"] == "rest-event-not-found"
    assert body["data"]["status"] == 404


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(tmp_path: Path, *argv: str) -> str:
    """One ``calendar-rest`` command on the test's database; its standard output."""
    database = f"sqlite:///{tmp_path / 'served.db'}"
    command = [sys.executable, "-m", "calendar_rest", "--database", database, *argv]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_cli_serve_in_a_subprocess(tmp_path: Path) -> None:
    """``serve`` answers reads and writes at once: its background roll-forward of
    recurring series (a thread of its own) never holds the write lock."""
    cli(tmp_path, "init")
    password = cli(tmp_path, "users", "create", "served", "--role", "administrator")
    password = password.strip().splitlines()[-1]
    port = free_port()
    command = [
        sys.executable, "-m", "calendar_rest",
        "--database", f"sqlite:///{tmp_path / 'served.db'}",
        "serve", "--port", str(port), "--threads", "2",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path
    )
    try:
        url = f"http://127.0.0.1:{port}{NS}/events"
        deadline = time.monotonic() + DEADLINE
        while True:
            try:
                status, headers, body = fetch(url, timeout=2.0)
                break
            except (urllib.error.URLError, ConnectionError) as exc:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"server did not answer ({exc}); exit {process.poll()}")
                time.sleep(0.1)
        created = urllib.request.Request(
            url,
            data=json.dumps(
                {
                    "title": "Served",
                    "start_date": "2030-01-01 10:00",
                    "end_date": "2030-01-01 11:00",
                }
            ).encode(),
            headers={
                "Content-Type": "application/json",
                "Authorization": basic_header("served", password),
            },
            method="POST",
        )
        with urllib.request.urlopen(created, timeout=5.0) as response:
            created_status = response.status
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    assert status == 200 and created_status == 201
    assert headers["X-WP-Total"] == "0"
    assert body["events"] == [] and body["total"] == 0
    assert f"http://127.0.0.1:{port}/calendar/events/v1/events" in output
