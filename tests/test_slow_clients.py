"""Idle and slow clients against a real ``calendar-rest serve`` (operations.md §4).

Found as an attacker would (issue 30, finding 6): 200 idle keep-alive connections, or
200 clients sending their head a byte at a time, stopped ``serve`` answering anyone
(waitress's limit of 100 connections, no deadline for a head). Here a ``serve``
subprocess on 127.0.0.1 (SQLite, so with the read lane unless told otherwise; also
``--workers 2``) is held by such clients from a thread of the test, each reopened as
soon as the server closes it, while a normal client keeps asking: each of its requests
must be answered within :data:`PROMPT`, and the slow ones must be closed once their
``header_timeout`` is past. The settings go through the environment (as an operator's
would), so the same test runs against a server that does not know them. Every wait is
bounded.
"""

from __future__ import annotations

import contextlib
import re
import selectors
import socket
import time
import typing as t
from pathlib import Path

import pytest
from conftest import NS
from held_connections import HEADER_TIMEOUT, LATE, PROMPT, Attack, ask_while, closed, spread
from serve_process import HOST, enough_open_files, serving

pytestmark = pytest.mark.server

#: how long the clients hold the server
HOLD = 30.0


VARIANTS = [
    pytest.param(1, {}, id="one-process-read-lane"),
    pytest.param(1, {"concurrent_reads": "0"}, id="one-process-no-lane"),
    pytest.param(2, {}, id="two-workers-read-lane"),
    pytest.param(2, {"concurrent_reads": "0"}, id="two-workers-no-lane"),
]


def needs_workers(workers: int) -> None:
    if workers > 1:
        pytest.importorskip("gunicorn", reason="the 'workers' extra (gunicorn) is not installed")


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "settings"), VARIANTS)
def test_idle_and_slow_clients_do_not_stop_the_server(
    tmp_path: Path, workers: int, settings: dict[str, str]
) -> None:
    """500 connections that send nothing and 200 that send their head a byte every
    half second, each reopened when the server closes it, for 30 s: a normal request
    is answered within a second throughout, and the server closes every one of them
    once its header timeout is past."""
    needs_workers(workers)
    enough_open_files(1000)
    timeout = {"header_timeout": str(HEADER_TIMEOUT)}
    with (
        serving(tmp_path, workers, {**settings, **timeout}) as served,
        Attack(served.port, idle=500, slow=200) as attack,
    ):
        time.sleep(HEADER_TIMEOUT / 2)  # the attack opened its connections
        held = served.connections_held()
        latencies = ask_while(served.port, HOLD)
    worst = max(latencies)
    print(f"{len(latencies)} normal requests, {held} held: {spread(latencies)}; {closed(attack)}")
    assert worst < PROMPT, (worst, sorted(latencies)[-5:], served.output()[-2000:])
    assert held >= 650, f"the server held {held} of the 700 connections"
    assert len(attack.lifetimes["slow"]) >= 200 * HOLD / (HEADER_TIMEOUT + LATE)
    assert len(attack.lifetimes["idle"]) >= 500 * HOLD / (HEADER_TIMEOUT + LATE)
    assert not attack.unexpected and not attack.refused
    for kind, lifetimes in attack.lifetimes.items():
        assert HEADER_TIMEOUT - 0.1 < min(lifetimes), (kind, min(lifetimes))
        assert max(lifetimes) < HEADER_TIMEOUT + LATE, (kind, max(lifetimes))
    assert "Traceback" not in served.output()


@pytest.mark.slow
def test_with_the_default_limits_too(tmp_path: Path) -> None:
    """The same attack on ``serve`` as it starts without settings: 1,000 connections
    and 10 s for a head; the slow ones are closed after 10 s."""
    enough_open_files(1000)
    with serving(tmp_path) as served, Attack(served.port, idle=500, slow=200) as attack:
        latencies = ask_while(served.port, HOLD)
    worst = max(latencies)
    print(f"defaults: {len(latencies)} normal requests: {spread(latencies)}; {closed(attack)}")
    assert worst < PROMPT, (worst, sorted(latencies)[-5:])
    for kind, lifetimes in attack.lifetimes.items():
        assert len(lifetimes) >= {"idle": 500, "slow": 200}[kind], kind
        assert 10.0 - 0.1 < min(lifetimes) and max(lifetimes) < 10.0 + LATE, kind


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_idle_keep_alive_clients_do_not_stop_the_server(tmp_path: Path, workers: int) -> None:
    """200 clients that each had an answer and keep their connection open: all 200 are
    answered, a normal client meanwhile within a second, and the header timeout (2 s
    here) leaves a connection idle between requests alone (the keep-alive time, 75 s,
    applies): each asks again, on its connection, 6 s later."""
    needs_workers(workers)
    enough_open_files(500)
    timeout = {"header_timeout": str(HEADER_TIMEOUT)}
    with serving(tmp_path, workers, timeout) as served:
        request = f"GET {NS}/events HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        clients = [socket.create_connection((HOST, served.port), timeout=5) for _ in range(200)]
        try:
            for client in clients:
                client.sendall(request)
            answered = answers(clients, time.monotonic() + 10.0)
            latencies = ask_while(served.port, 3 * HEADER_TIMEOUT)
            held = served.connections_held()
            for client in clients:
                with contextlib.suppress(OSError):
                    client.sendall(request)
            answered_again = answers(clients, time.monotonic() + 10.0)
        finally:
            for client in clients:
                client.close()
    worst = max(latencies)
    print(f"keep-alive: {len(latencies)} normal requests: {spread(latencies)}")
    assert answered == 200, f"{answered} of the 200 keep-alive clients were answered"
    assert worst < PROMPT, (worst, sorted(latencies)[-5:])
    assert held >= 200
    assert answered_again == 200, f"{200 - answered_again} idle connections were closed"


def answers(clients: list[socket.socket], deadline: float) -> int:
    """How many of ``clients`` get a whole ``200`` answer before ``deadline`` (each
    has sent one request)."""
    selector = selectors.DefaultSelector()
    received: dict[socket.socket, bytes] = {}
    for client in clients:
        client.setblocking(False)
        selector.register(client, selectors.EVENT_READ)
        received[client] = b""
    done = 0
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.1):
            client = t.cast(socket.socket, key.fileobj)
            try:
                chunk = client.recv(65536)
            except OSError:
                chunk = b""
            received[client] += chunk
            if complete(received[client]) or not chunk:
                selector.unregister(client)
                done += complete(received[client])
    selector.close()
    for client in clients:
        client.setblocking(True)
    return done


def complete(data: bytes) -> bool:
    """Whether ``data`` holds a whole ``200`` answer with its ``Content-Length`` body."""
    head, found, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    return bool(found and head.startswith(b"HTTP/1.1 200") and length) and len(body) >= int(
        t.cast(re.Match[bytes], length).group(1)
    )
