"""Connections that hold a ``serve`` subprocess (``serve_process.py``) as idle and
slow clients do, from a thread of the test, and a normal client asking meanwhile: the
tests of what the server does under them (``test_slow_clients.py``,
``test_connection_limits.py``). Every wait is bounded."""

from __future__ import annotations

import dataclasses
import selectors
import socket
import threading
import time
import typing as t

from conftest import NS
from serve_process import DEADLINE, HOST, normal_request

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
