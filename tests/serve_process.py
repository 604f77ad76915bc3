"""``calendar-rest serve`` as a subprocess on 127.0.0.1, for the tests that need the
command itself (its options and settings, its process limits, ``--workers``): started
on a new SQLite database with settings in its environment, always stopped. It runs the
code of this checkout (``PYTHONPATH``), not an installed copy. Every wait is bounded."""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import os
import resource
import socket
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import pytest
from conftest import NS
from test_workers import children, socket_inodes, tcp_inodes

import calendar_rest

HOST = "127.0.0.1"
#: the bound of a server starting or stopping
DEADLINE = 20.0


@dataclasses.dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def pids(self) -> set[int]:
        """The process that serves, or the workers of an arbiter."""
        return children(self.process.pid) or {self.process.pid}

    def connections_held(self) -> int:
        """Connections to the server's port that its processes hold open."""
        clients = tcp_inodes(local_port=self.port) - tcp_inodes(
            local_port=self.port, listening=True
        )
        return sum(len(socket_inodes(pid) & clients) for pid in self.pids())

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def normal_request(port: int, timeout: float = 5.0) -> float:
    """How long a new client waits for ``GET /events`` (an anonymous read: the read
    lane's, on SQLite); ``inf`` when it got no answer within ``timeout``."""
    began = time.monotonic()
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", f"{NS}/events")
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            return float("inf")
    except OSError:
        return float("inf")
    finally:
        connection.close()
    return time.monotonic() - began


@contextlib.contextmanager
def serving(
    tmp_path: Path,
    workers: int = 1,
    settings: dict[str, str] | None = None,
    open_files: tuple[int, int] | None = None,
    options: tuple[str, ...] = (),
    database: str | None = None,
) -> t.Iterator[Served]:
    """``calendar-rest serve [options]`` on a new SQLite database (or ``database``)
    with ``settings`` in its environment (``CALENDAR_REST_<NAME>``) and, if given,
    ``open_files`` as its soft and hard limits of open files, until it answers;
    always stopped."""
    database = database or f"sqlite:///{tmp_path / 'served.db'}"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CALENDAR_REST_")}
    environment.update({f"CALENDAR_REST_{k.upper()}": v for k, v in (settings or {}).items()})
    # the code under test, wherever this checkout is (not an installed copy)
    checkout = str(Path(calendar_rest.__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [checkout, environment.get("PYTHONPATH")])
    )
    base = [sys.executable, "-m", "calendar_rest", "--database", database]
    subprocess.run([*base, "init"], env=environment, capture_output=True, timeout=60, check=True)
    port = free_port()
    command = [
        *base, "serve", "--host", HOST, "--port", str(port), "--threads", "4",
        *(["--workers", str(workers)] if workers > 1 else []), *options,
    ]  # fmt: skip

    def limit_open_files() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, open_files)

    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
            env=environment,
            preexec_fn=limit_open_files,
        )
    served = Served(process, port, log)
    try:
        deadline = time.monotonic() + DEADLINE
        while normal_request(port, timeout=2.0) == float("inf") or len(served.pids()) < workers:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server not ready; exit {process.poll()}\n{served.output()}")
            time.sleep(0.1)
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def enough_open_files(needed: int) -> None:
    """Let this process hold ``needed`` sockets (its soft limit raised to the hard
    limit if need be), or skip: the machine does not allow the clients."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"the test's clients need {needed} open files; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
