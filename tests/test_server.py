"""The service behind a real waitress server on 127.0.0.1 (bounded: ~20 s at most)."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
import threading
import time
import typing as t
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pytest
from conftest import NS, Api
from live_server import in_thread, running

from calendar_rest.edge.auth import basic_header
from calendar_rest.serving.prefork import close_idle
from calendar_rest.serving.server import (
    KEEPALIVE_SECONDS,
    QueueWarnings,
    sending_channel,
    waitress_server,
)

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


@pytest.mark.slow
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


# -- the connections of ``serve`` (calendar_rest.server.sending_channel) ------------------

#: how long the test's serving thread stalls in its send: the time a thread waits for
#: the interpreter lock after a send on a busy server, made long enough to measure
STALL = 0.3


def stalled_sends(base: type) -> tuple[type, dict[str, int]]:
    """A subclass of the connection class ``base`` whose first send from a request's
    thread stalls for :data:`STALL` with the response pending (the buffer's lock held,
    as waitress holds it while a serving thread sends), counting how often the main
    loop tries to write meanwhile."""
    counts = {"loop writes": 0, "stalled": 0}

    class Stalled(base):  # type: ignore[misc, valid-type]
        def handle_write(self) -> None:
            if counts["stalled"] == 1:  # the serving thread is stalled in its send
                counts["loop writes"] += 1
            super().handle_write()

        def send(self, data: bytes, do_close: bool = True) -> int:
            if threading.current_thread().name.startswith("waitress-") and not counts["stalled"]:
                counts["stalled"] = 1
                time.sleep(STALL)
                counts["stalled"] = 2
            return int(super().send(data, do_close=do_close))

    return Stalled, counts


def loop_writes_during_a_stalled_send(channel: type) -> int:
    """Serve one request with connections of ``channel`` (stalled as above); how often
    the main loop tried to write while the serving thread was stalled."""

    def app(environ: t.Any, start_response: t.Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "5")])
        return [b"hello"]

    stalled, counts = stalled_sends(channel)
    bound = waitress_server(app, "127.0.0.1", 0, threads=2)
    bound.channel_class = stalled
    with in_thread(bound) as port:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            assert response.read() == b"hello"
    assert counts["stalled"] == 2, "the send never stalled: the test proves nothing"
    return counts["loop writes"]


@pytest.mark.server
def test_serve_waits_for_a_sending_request_instead_of_spinning() -> None:
    """While a request's thread sends (and, on a busy server, waits for the interpreter
    lock afterwards), waitress's own connections make the main loop spin: the socket
    has room, so ``select`` returns at once, again and again, taking the interpreter
    lock each turn. ``serve``'s connections leave the socket to the request's thread
    until a send leaves output behind."""
    from waitress.channel import HTTPChannel

    assert loop_writes_during_a_stalled_send(HTTPChannel) > 20  # the spin this avoids
    assert loop_writes_during_a_stalled_send(sending_channel()) == 0


def test_queue_warnings_pass_once_per_interval_and_count_those_held_back() -> None:
    """A saturated waitress warns "Task queue depth is N" for every waiting request;
    ``serve`` passes one on per interval, saying how many it held back."""
    now = [0.0]
    logger = logging.getLogger("test.queue.throttle")
    logger.propagate = False
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    logger.addHandler(Keep())
    warnings = QueueWarnings(logger, 60.0, clock=lambda: now[0])
    for depth in range(1, 6):  # five warnings within the minute: the first passes
        warnings.warning("Task queue depth is %d", depth)
        now[0] += 1.0
    now[0] = 61.0
    warnings.warning("Task queue depth is %d", 9)
    warnings.warning("Task queue depth is %d", 10)
    assert seen == [
        "Task queue depth is 1",
        "Task queue depth is 9 (4 more held back since the last one)",
    ]


def test_the_served_task_queue_warns_through_the_throttle(app: t.Any) -> None:
    """The throttle stands in for waitress's queue logger itself: a held-back warning
    never becomes a log record (nor looks up its caller) under the dispatcher's lock."""
    bound = waitress_server(app, "127.0.0.1", 0, threads=1)
    try:
        dispatcher = bound.task_dispatcher
        assert isinstance(dispatcher.queue_logger, QueueWarnings)
        assert dispatcher.queue_logger.logger is logging.getLogger("waitress.queue")
        made: list[logging.LogRecord] = []
        factory = logging.getLogRecordFactory()

        def counting(*args: t.Any, **kwargs: t.Any) -> logging.LogRecord:
            record = factory(*args, **kwargs)
            made.append(record)
            return record

        logging.setLogRecordFactory(counting)
        try:
            for depth in range(50):
                dispatcher.queue_logger.warning("Task queue depth is %d", depth)
        finally:
            logging.setLogRecordFactory(factory)
        assert len(made) == 1
    finally:
        bound.close()


# -- the header deadline of ``serve``'s connections (calendar_rest.server.timed_channel) --


@contextlib.contextmanager
def timed_connection(header_timeout: float) -> t.Iterator[tuple[t.Any, t.Any, list[t.Any]]]:
    """A connection of a ``serve`` server (not running) over a socket pair, fed by the
    test (``received``); yields the server, the connection and the requests it queued
    for a thread."""

    def app(environ: t.Any, start_response: t.Any) -> list[bytes]:
        raise AssertionError("no request is served here")

    bound = waitress_server(app, "127.0.0.1", 0, threads=1, header_timeout=header_timeout)
    queued: list[t.Any] = []
    bound.add_task = queued.append
    ours, theirs = socket.socketpair()
    connection = bound.channel_class(bound, ours, ("127.0.0.1", 1), bound.adj, map={})
    try:
        yield bound, connection, queued
    finally:
        connection.close()
        theirs.close()
        bound.close()
        bound.task_dispatcher.shutdown(timeout=1)


def closed_by_maintenance(bound: t.Any, connection: t.Any, at: float) -> bool:
    """Whether waitress's maintenance pass, run at ``at``, would close ``connection``
    (it is left open for the test to go on)."""
    bound.maintenance(at)
    closing, connection.will_close = bool(connection.will_close), False
    return closing


def test_a_silent_connection_is_closed_at_its_header_timeout() -> None:
    with timed_connection(5.0) as (bound, connection, _):
        opened = connection.creation_time
        assert connection.head_deadline() == opened + 5.0
        assert not closed_by_maintenance(bound, connection, opened + 4.9)
        assert closed_by_maintenance(bound, connection, opened + 5.1)


def test_a_head_sent_a_byte_at_a_time_is_closed_at_its_deadline() -> None:
    """Each byte is activity to waitress (which would keep the connection 75 s from
    the last one); the head's deadline stays where its first byte put it."""
    with timed_connection(5.0) as (bound, connection, queued):
        head = b"GET /events HTTP/1.1\r\nHost: h\r\n"
        connection.received(head[:1])
        began = connection.heard_at
        for byte in range(1, len(head)):
            connection.received(head[byte : byte + 1])
            connection.last_activity = began + 4.0  # waitress notes each read
        assert connection.head_deadline() == began + 5.0 and not queued
        assert not closed_by_maintenance(bound, connection, began + 4.9)
        assert closed_by_maintenance(bound, connection, began + 5.1)


def test_blank_lines_do_not_restart_the_clock() -> None:
    """waitress skips blank lines as empty requests; they complete no head."""
    with timed_connection(5.0) as (bound, connection, queued):
        connection.received(b"\r\n\r\n")
        began = connection.heard_at
        for _ in range(3):
            connection.received(b"\r\n\r\n")
        assert connection.head_deadline() == began + 5.0 and not queued
        assert closed_by_maintenance(bound, connection, began + 5.1)


def test_between_requests_the_keep_alive_time_applies() -> None:
    """Once a head is complete the request is the threads' business; once answered,
    the idle connection waits for its next request up to the keep-alive time, and
    the next head's clock starts at its first byte."""
    with timed_connection(5.0) as (bound, connection, queued):
        connection.received(b"GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        assert len(queued) == 1 and connection.head_deadline() is None
        connection.requests = []  # answered:
        connection.answered_at = connection.last_activity = time.time()
        answered = connection.answered_at
        assert connection.head_deadline() is None
        assert not closed_by_maintenance(bound, connection, answered + 60.0)
        assert closed_by_maintenance(bound, connection, answered + KEEPALIVE_SECONDS + 0.1)
        connection.received(b"GET /ev")
        assert connection.head_deadline() == connection.heard_at + 5.0
        assert connection.heard_at >= answered


def test_a_body_being_received_is_not_timed_as_a_head() -> None:
    with timed_connection(5.0) as (bound, connection, _):
        connection.received(b"POST /events HTTP/1.1\r\nHost: h\r\nContent-Length: 9\r\n\r\n{")
        assert connection.request.headers_finished and connection.head_deadline() is None
        assert not closed_by_maintenance(bound, connection, connection.heard_at + 60.0)


def test_a_stopping_worker_does_not_wait_for_a_late_head() -> None:
    """``serve --workers``: a stopping worker lets each request under way finish, and
    a head still arriving may be one; past its deadline it is closed (waitress's
    maintenance no longer runs once the worker stopped accepting)."""
    with timed_connection(5.0) as (_, connection, _):
        connection.received(b"GET /ev")
        assert close_idle({connection._fileno: connection})  # on time: waited for
        connection.heard_at -= 10.0  # its first byte came 10 s ago
        assert not close_idle({connection._fileno: connection})
        assert not connection.connected


def test_a_listener_takes_the_waiting_connections_at_once_up_to_the_limit() -> None:
    """waitress accepts one connection per turn of its loop, and each turn asks every
    connection held whether it reads or writes; ``serve``'s listener takes all that
    wait (64 at most), but never past ``max_connections``."""
    from waitress import wasyncore

    def app(environ: t.Any, start_response: t.Any) -> list[bytes]:
        raise AssertionError("no request is served here")

    for limit, accepted in ((100, 8), (5, 5)):
        bound = waitress_server(app, "127.0.0.1", 0, threads=1, max_connections=limit)
        port = bound.effective_port
        clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(8)]
        try:
            before = len(bound._map)
            bound.handle_accept()  # one readable event of the listening socket
            assert len(bound._map) - before == accepted
        finally:
            for client in clients:
                client.close()
            bound.task_dispatcher.shutdown(timeout=1)
            wasyncore.close_all(bound._map)
