"""The read lane (``calendar_rest.read_lane``): under a real waitress server on
127.0.0.1, an app that runs one read at a time has its anonymous reads served by one
thread of their own, while writes and reads with credentials take waitress's threads,
so that a write held up does not hold the reads up. Every wait is bounded."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time
import typing as t

import pytest
from live_server import in_thread

from calendar_rest.app import Application
from calendar_rest.serving.read_lane import ReadLaneDispatcher
from calendar_rest.serving.server import waitress_server

pytestmark = pytest.mark.server

#: the bound of every wait
DEADLINE = 10.0


class ThreadNamingApp:
    """Answers with the name of the thread that served it; ``POST /hold`` (a write
    waiting for the database's write lock) and ``GET /slow`` (a slow read) wait until
    ``released`` is set."""

    def __init__(self, concurrent_reads: int) -> None:
        self.concurrent_reads = concurrent_reads
        self.released = threading.Event()
        self.holding = threading.Event()

    def __call__(self, environ: dict[str, t.Any], start_response: t.Any) -> list[bytes]:
        if environ["PATH_INFO"] in ("/hold", "/slow"):
            self.holding.set()
            assert self.released.wait(DEADLINE)
        name = threading.current_thread().name
        start_response("200 OK", [("X-Thread", name), ("Content-Length", "0")])
        return []


def served_by(
    port: int, method: str, path: str = "/", headers: dict[str, str] | None = None
) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
    try:
        connection.request(
            method, path, body=b"" if method == "POST" else None, headers=headers or {}
        )
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        return str(response.headers["X-Thread"])
    finally:
        connection.close()


def test_anonymous_reads_take_the_lane_and_the_rest_waitress_threads() -> None:
    app = ThreadNamingApp(concurrent_reads=1)
    app.released.set()
    server = waitress_server(app, "127.0.0.1", 0, threads=2)
    assert isinstance(server.task_dispatcher, ReadLaneDispatcher)
    with in_thread(server) as port:
        for method in ("GET", "HEAD", "OPTIONS"):
            assert served_by(port, method) == "waitress-reads", method
        assert served_by(port, "GET", headers={"Authorization": "Basic eDp5"}) != "waitress-reads"
        assert served_by(port, "POST").startswith("waitress-")
        assert served_by(port, "POST") != "waitress-reads"


def test_a_write_held_up_does_not_hold_the_reads_up() -> None:
    app = ThreadNamingApp(concurrent_reads=1)
    with in_thread(waitress_server(app, "127.0.0.1", 0, threads=2)) as port:
        writer = threading.Thread(target=served_by, args=(port, "POST", "/hold"))
        writer.start()
        try:
            assert app.holding.wait(DEADLINE)
            for _ in range(3):
                assert served_by(port, "GET") == "waitress-reads"
        finally:
            app.released.set()
            writer.join(DEADLINE)
        assert not writer.is_alive()


def test_a_slow_read_hands_the_reads_behind_it_to_waitress_threads() -> None:
    """Once the lane's read runs late, what waits behind it (a cache hit, say) is not
    held up: waitress's threads serve it, as they would without a lane."""
    app = ThreadNamingApp(concurrent_reads=1)
    with in_thread(waitress_server(app, "127.0.0.1", 0, threads=2)) as port:
        slow = threading.Thread(target=served_by, args=(port, "GET", "/slow"))
        slow.start()
        try:
            assert app.holding.wait(DEADLINE)  # the lane is in the slow read
            began = time.monotonic()
            assert served_by(port, "GET") not in ("waitress-reads", "")
            assert time.monotonic() - began < DEADLINE / 2
        finally:
            app.released.set()
            slow.join(DEADLINE)
        assert not slow.is_alive()
        assert served_by(port, "GET") == "waitress-reads"  # the lane serves again


def test_a_request_waitress_could_not_parse_is_answered_off_the_lane(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A header line waitress cannot parse leaves the request without a method: the
    lane does not ask for it (that raised in waitress's main loop, which dropped the
    connection and logged the exception) and waitress's threads answer the 400."""
    app = ThreadNamingApp(concurrent_reads=1)
    app.released.set()
    with in_thread(waitress_server(app, "127.0.0.1", 0, threads=2)) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nX-No-Colon\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert served_by(port, "GET") == "waitress-reads"  # the lane still serves
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.0 400 Bad Request")
    assert json.loads(body)["code"] == "rest_malformed_request"
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_an_app_with_concurrent_reads_keeps_waitress_dispatcher() -> None:
    for concurrent in (0, 4):
        server = waitress_server(ThreadNamingApp(concurrent), "127.0.0.1", 0, threads=2)
        try:
            assert type(server.task_dispatcher) is not ReadLaneDispatcher
        finally:
            server.close()
            server.task_dispatcher.shutdown(timeout=1)


def test_the_app_has_the_lane_on_sqlite_only(app: Application, backend: str) -> None:
    server = waitress_server(app, "127.0.0.1", 0, threads=2)
    try:
        lane = isinstance(server.task_dispatcher, ReadLaneDispatcher)
        assert lane == (backend == "sqlite") == (app.concurrent_reads == 1)
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)


def test_shutting_down_stops_the_lane_and_cancels_what_waits_in_it() -> None:
    lane = ReadLaneDispatcher()
    go, serving, seen = threading.Event(), threading.Event(), []

    class Task:
        requests: t.ClassVar[list[t.Any]] = []

        def __init__(self, name: str) -> None:
            self.name = name

        def service(self) -> None:
            seen.append(f"served {self.name}")
            serving.set()
            assert go.wait(DEADLINE)

        def cancel(self) -> None:
            seen.append(f"cancelled {self.name}")

    with lane.lock:
        lane.lane.append(Task("running"))
        lane.lane_ready.notify()
    assert serving.wait(DEADLINE)  # the lane's thread is in the first task
    with lane.lock:
        lane.lane.append(Task("waiting"))
    stopping = threading.Thread(target=lane.shutdown, kwargs={"timeout": 5})
    stopping.start()
    deadline = time.monotonic() + DEADLINE
    while lane.lane_open:  # the lane is closed while its thread is still in the first
        assert time.monotonic() < deadline
        time.sleep(0.01)
    go.set()
    stopping.join(DEADLINE)
    assert seen == ["served running", "cancelled waiting"]
    assert not lane.lane_thread.is_alive()
