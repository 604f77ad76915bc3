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
import dataclasses
import re
import resource
import selectors
import socket
import threading
import time
import typing as t
from pathlib import Path

import pytest
from conftest import NS
from serve_process import DEADLINE, HOST, enough_open_files, normal_request, serving

from calendar_rest import cli
from calendar_rest.settings import Settings

pytestmark = pytest.mark.server

#: how long the clients hold the server
HOLD = 30.0
#: a normal request is answered within this, whatever the attack
PROMPT = 1.0
#: the header timeout of most tests, short to keep them short
HEADER_TIMEOUT = 2.0
#: how late past its deadline the server may close a connection: its maintenance pass
#: runs once a second, and the machine is shared
LATE = 2.0
#: a slow client sends one byte of its head this often (each head takes minutes)
BYTE_EVERY = 0.5
SLOW_HEAD = (
    f"GET {NS}/events HTTP/1.1\r\nHost: {HOST}\r\nUser-Agent: {'slow' * 60}\r\n\r\n"
).encode()


# -- the clients ------------------------------------------------------------------------


@dataclasses.dataclass
class Held:
    """One connection of the attack."""

    kind: str  # "idle": never sends a byte; "slow": sends its head a byte at a time
    opened: float
    sent: int = 0
    next_byte: float = 0.0


class Attack:
    """``idle`` and ``slow`` connections held open on the server from a thread of
    their own; each one the server closes is opened again at once. Records how long
    each lived (from its opening to the server closing it)."""

    def __init__(self, port: int, idle: int, slow: int) -> None:
        self.port = port
        self.wanted = {"idle": idle, "slow": slow}
        self.open = {"idle": 0, "slow": 0}
        self.lifetimes: dict[str, list[float]] = {"idle": [], "slow": []}
        self.refused = 0
        #: what the server sent that it should not have (it answers no incomplete head)
        self.unexpected: list[bytes] = []
        self.selector = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="attack", daemon=True)

    def __enter__(self) -> Attack:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=DEADLINE)
        for key in list(self.selector.get_map().values()):
            t.cast(socket.socket, key.fileobj).close()
        self.selector.close()

    def run(self) -> None:
        while not self.stop.is_set():
            for kind, wanted in self.wanted.items():
                while self.open[kind] < wanted and not self.stop.is_set():
                    if not self.connect(kind):
                        break
            for key, _ in self.selector.select(timeout=0.05):
                self.read(key)
            now = time.monotonic()
            for key in list(self.selector.get_map().values()):
                held: Held = key.data
                if held.kind == "slow" and now >= held.next_byte:
                    self.send_byte(key, now)

    def connect(self, kind: str) -> bool:
        try:
            sock = socket.create_connection((HOST, self.port), timeout=2.0)
        except OSError:
            self.refused += 1
            return False
        sock.setblocking(False)
        now = time.monotonic()
        key = self.selector.register(sock, selectors.EVENT_READ, Held(kind, now, 0, now))
        self.open[kind] += 1
        if kind == "slow":
            self.send_byte(key, now)
        return True

    def send_byte(self, key: selectors.SelectorKey, now: float) -> None:
        held: Held = key.data
        try:
            t.cast(socket.socket, key.fileobj).send(SLOW_HEAD[held.sent : held.sent + 1])
        except BlockingIOError:
            pass
        except OSError:  # closed by the server
            self.closed(key)
            return
        held.sent += 1
        held.next_byte = now + BYTE_EVERY

    def read(self, key: selectors.SelectorKey) -> None:
        try:
            data = t.cast(socket.socket, key.fileobj).recv(65536)
        except BlockingIOError:
            return
        except OSError:  # reset by the server
            data = b""
        if data:
            self.unexpected.append(data[:200])
        self.closed(key)

    def closed(self, key: selectors.SelectorKey) -> None:
        held: Held = key.data
        self.selector.unregister(key.fileobj)
        t.cast(socket.socket, key.fileobj).close()
        self.open[held.kind] -= 1
        self.lifetimes[held.kind].append(time.monotonic() - held.opened)


def ask_while(port: int, seconds: float) -> list[float]:
    """A normal client's request every 0.2 s for ``seconds``: how long each waited."""
    latencies, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        latencies.append(normal_request(port))
        time.sleep(0.2)
    return latencies


def spread(latencies: list[float]) -> str:
    """The median, 90th percentile and worst of ``latencies``, in ms."""
    ordered = sorted(latencies)
    median, tenth = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.9)]
    worst = ordered[-1]
    return f"median {median * 1000:.0f} ms, p90 {tenth * 1000:.0f} ms, worst {worst * 1000:.0f} ms"


def closed(attack: Attack) -> str:
    """How many connections of each kind the server closed, after how long."""
    return "; ".join(
        f"{len(lives)} {kind} closed after {min(lives):.2f}-{max(lives):.2f} s"
        for kind, lives in attack.lifetimes.items()
        if lives
    )


# -- finding 6: idle and slow clients ---------------------------------------------------

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


# -- the connection limit and the open files it needs -----------------------------------


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


def test_serve_raises_its_soft_limit_of_open_files(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 3096:
        pytest.skip(f"1,000 connections need a hard limit of 3,096 open files; it is {hard}")
    with serving(tmp_path, open_files=(256, hard)) as served:
        raised = open_files_limit(served.process.pid)
        output = served.output()
    assert raised == (hard if hard != resource.RLIM_INFINITY else 3000 + 64 + 4 * 8)
    assert f"soft limit (ulimit -n) raised from 256 to {raised}" in output


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
