"""``calendar-rest serve --workers N``: N processes under gunicorn's pre-fork arbiter.

A real ``serve --workers 2`` runs as a subprocess on 127.0.0.1 (a free port) over the
selected backends' test database. The tests find the workers as the arbiter's children
in ``/proc`` and which worker holds a keep-alive connection through ``/proc/net/tcp``
(the product has no debug header for it): both workers answer, a killed worker is
replaced while requests keep succeeding, the arbiter holds no database connection a
worker could inherit, a write through one worker is read through the other (the
response caches are per process, validated through the database), a declared oversize
body gets its 413 without being read, and SIGTERM lets an upload in flight finish and
ends the server with status 0. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import typing as t
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import NS, Api
from test_request_limits import closed_by_server, read_response, request_bytes

from calendar_rest.app import Application
from calendar_rest.cli import main

F = t.TypeVar("F", bound=t.Callable[..., None])


def served_test(test: F) -> F:
    """A test that runs a server (a few seconds each): ``server``, ``slow``, and skipped
    where gunicorn (the ``workers`` extra) is not installed."""
    marked = pytest.mark.usefixtures("gunicorn")(test)
    return t.cast(F, pytest.mark.server(pytest.mark.slow(marked)))


#: the bound of any wait: a server starting, a worker replaced, a server stopping
DEADLINE = 20.0
#: a refusal is answered well within this
PROMPT = 3.0
HOST = "127.0.0.1"
#: an event next month, which the default listing (from today on) shows
DAY = dt.date.today() + dt.timedelta(days=30)
START, END = f"{DAY} 19:00:00", f"{DAY} 21:00:00"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


# -- /proc: the arbiter's children, who holds a connection, what the arbiter holds -------


def children(pid: int) -> set[int]:
    """The live (not zombie) child processes of ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def socket_inodes(pid: int) -> set[str]:
    """The inodes of the sockets ``pid`` has open."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    return inodes


def tcp_inodes(
    local_port: int | None = None, remote_port: int | None = None, *, listening: bool = False
) -> set[str]:
    """Inodes of the IPv4/IPv6 TCP sockets with that local and/or remote port (only
    those listening, if ``listening``)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                local, remote = (int(f.rsplit(":", 1)[1], 16) for f in fields[1:3])
                if local_port not in (None, local) or remote_port not in (None, remote):
                    continue
                if listening and fields[3] != "0A":  # TCP_LISTEN
                    continue
                inodes.add(fields[9])
    return inodes


def holder(connection: http.client.HTTPConnection, port: int, workers: set[int]) -> int:
    """The worker that holds the server end of the keep-alive ``connection``."""
    assert connection.sock is not None
    client_port = connection.sock.getsockname()[1]
    inodes = tcp_inodes(local_port=port, remote_port=client_port)
    owners = [pid for pid in workers if socket_inodes(pid) & inodes]
    assert len(owners) == 1, (owners, workers)
    return owners[0]


def database_files(pid: int, database_url: str) -> list[str]:
    """What of the database ``pid`` has open: the SQLite file (and its ``-wal``,
    ``-shm``, ``-logins`` siblings) or sockets to the database server's port."""
    parts = urlsplit(database_url)
    if parts.scheme.startswith("sqlite"):
        path = database_url.split(":///", 1)[1]
        held = []
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd).startswith(path):
                    held.append(os.readlink(fd))
        return held
    default = 5432 if parts.scheme.startswith("postgres") else 3306
    server = tcp_inodes(remote_port=parts.port or default)
    return sorted(f"socket:[{inode}]" for inode in socket_inodes(pid) & server)


# -- the server -------------------------------------------------------------------------


class Served(t.NamedTuple):
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def workers(self) -> set[int]:
        return children(self.process.pid)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def get(port: int, path: str = "/events", headers: dict[str, str] | None = None) -> t.Any:
    connection = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        connection.request("GET", NS + path, headers=headers or {})
        response = connection.getresponse()
        assert response.status == 200, response.read()
        return json.loads(response.read())
    finally:
        connection.close()


@contextlib.contextmanager
def serving(
    database_url: str, tmp_path: Path, workers: int = 2, options: tuple[str, ...] = ()
) -> t.Iterator[Served]:
    """``calendar-rest serve --workers N [options]`` until both workers answer; always
    stopped."""
    port = free_port()
    command = [
        sys.executable, "-m", "calendar_rest", "--database", database_url,
        "serve", "--host", HOST, "--port", str(port), "--threads", "4",
        "--workers", str(workers), *options,
    ]  # fmt: skip
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CALENDAR_REST_")}
    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path, env=environment
        )
    served = Served(process, port, log)
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            try:
                get(port)
                if len(served.workers) == workers:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server not ready; exit {process.poll()}\n{served.output()}")
            time.sleep(0.1)
        yield served
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


def one_connection_per_worker(served: Served) -> dict[int, http.client.HTTPConnection]:
    """Keep-alive connections until each worker holds one (the kernel hands a new
    connection to whichever worker accepts first); the others are closed."""
    workers, held = served.workers, {}
    deadline = time.monotonic() + DEADLINE
    while len(held) < len(workers):
        assert time.monotonic() < deadline, f"only workers {sorted(held)} took a connection"
        connection = http.client.HTTPConnection(HOST, served.port, timeout=5)
        connection.request("GET", NS + "/events")
        response = connection.getresponse()
        assert response.status == 200
        response.read()
        pid = holder(connection, served.port, workers)
        if pid in held:
            connection.close()
        else:
            held[pid] = connection
    return held


def call(
    connection: http.client.HTTPConnection,
    method: str,
    path: str,
    body: t.Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, t.Any]:
    data = None if body is None else json.dumps(body).encode()
    sent = {**(headers or {}), **({"Content-Type": "application/json"} if data else {})}
    connection.request(method, NS + path, body=data, headers=sent)
    response = connection.getresponse()
    return response.status, json.loads(response.read())


@pytest.fixture
def gunicorn() -> None:
    pytest.importorskip("gunicorn", reason="the 'workers' extra (gunicorn) is not installed")


@pytest.fixture
def admin(app: Application) -> dict[str, str]:
    """An administrator's Authorization header; the test process then lets go of the
    database, which the server processes use."""
    api = Api(app)
    api.add_user("administrator", "administrator")
    app.database.close()
    return api.headers("administrator")


# -- the tests --------------------------------------------------------------------------


@served_test
def test_two_workers_answer_and_a_killed_worker_is_replaced(
    app: Application, database_url: str, tmp_path: Path
) -> None:
    app.database.close()
    with serving(database_url, tmp_path) as served:
        connections = one_connection_per_worker(served)
        assert set(connections) == served.workers and len(connections) == 2
        for connection in connections.values():
            connection.close()

        victim = min(served.workers)
        os.kill(victim, signal.SIGKILL)
        deadline, answered = time.monotonic() + DEADLINE, 0
        while True:
            assert get(served.port)["total"] == 0  # every request meanwhile succeeds
            answered += 1
            now = served.workers
            if len(now) == 2 and victim not in now:
                break
            assert time.monotonic() < deadline, f"worker not replaced\n{served.output()}"
            time.sleep(0.05)
        connections = one_connection_per_worker(served)  # the new worker answers too
        assert set(connections) == served.workers
        for connection in connections.values():
            connection.close()
        assert served.process.poll() is None and answered >= 1


@served_test
def test_the_arbiter_holds_no_database_connection(
    app: Application, database_url: str, tmp_path: Path
) -> None:
    """Connections are opened after the fork: once its start-up work is done (schema,
    series roll-forward), the arbiter holds none that a worker could inherit, while
    each worker holds its own."""
    app.database.close()
    with serving(database_url, tmp_path) as served:
        deadline = time.monotonic() + DEADLINE
        while held := database_files(served.process.pid, database_url):
            assert time.monotonic() < deadline, f"the arbiter holds {held}"
            time.sleep(0.1)
        connections = one_connection_per_worker(served)
        for pid, connection in connections.items():
            assert database_files(pid, database_url), f"worker {pid} holds no connection"
            connection.close()


@served_test
def test_a_write_through_one_worker_is_read_through_the_other(
    admin: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    with serving(database_url, tmp_path) as served:
        connections = one_connection_per_worker(served)
        (pid_a, a), (pid_b, b) = sorted(connections.items())
        for connection in (a, b, a, b):  # both caches hold the empty list
            assert call(connection, "GET", "/events")[1]["total"] == 0

        event = {"title": "Written through A", "start_date": START, "end_date": END}
        status, created = call(a, "POST", "/events", event, admin)
        assert status == 201, created
        status, listing = call(b, "GET", "/events")
        assert status == 200 and [e["title"] for e in listing["events"]] == ["Written through A"]

        path = f"/events/{created['id']}"
        assert call(a, "GET", path)[1]["title"] == "Written through A"  # cached in A
        status, _ = call(b, "POST", path, {"title": "Renamed through B"}, admin)
        assert status == 200
        assert call(a, "GET", path)[1]["title"] == "Renamed through B"
        assert call(a, "GET", "/events")[1]["events"][0]["title"] == "Renamed through B"

        # every call above stayed on its worker's keep-alive connection
        assert holder(a, served.port, served.workers) == pid_a
        assert holder(b, served.port, served.workers) == pid_b
        a.close()
        b.close()


@served_test
def test_a_declared_oversize_body_is_413_without_being_read(
    admin: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    with serving(database_url, tmp_path) as served:
        for declared in (60_000_000, 1024 * 1024 + 1):
            with socket.create_connection((HOST, served.port), timeout=5) as sock:
                headers = {"Content-Length": str(declared), "Expect": "100-continue", **admin}
                sock.sendall(request_bytes("POST", "/events", headers=headers))
                began = time.monotonic()
                response = read_response(sock)  # not one body byte was sent
                assert time.monotonic() - began < PROMPT
                assert response.status == 413  # no "100 Continue" came first
                assert json.loads(response.body)["code"] == "rest_payload_too_large"
                assert closed_by_server(sock)
        with socket.create_connection((HOST, served.port), timeout=5) as sock:
            # a body within the limit on a keep-alive connection is read as usual
            body = json.dumps({"title": "Kept", "start_date": START, "end_date": END}).encode()
            sock.sendall(request_bytes("POST", "/events", body, admin))
            assert read_response(sock).status == 201
            sock.sendall(request_bytes("GET", "/events"))
            assert json.loads(read_response(sock).body)["total"] == 1


@served_test
def test_sigterm_lets_an_upload_in_flight_finish_and_exits_0(
    admin: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    event = {"title": "Uploaded while stopping", "start_date": START, "end_date": END}
    description = "x" * 60_000  # MariaDB's TEXT holds less than 64 KiB
    body = json.dumps({**event, "description": description}).encode()
    with serving(database_url, tmp_path) as served:
        request = request_bytes("POST", "/events", body, admin)
        half = len(request) - len(body) // 2
        with socket.create_connection((HOST, served.port), timeout=DEADLINE) as sock:
            sock.sendall(request[:half])
            time.sleep(0.5)  # the request is in a worker, reading its body
            served.process.send_signal(signal.SIGTERM)
            time.sleep(1.0)  # the arbiter has passed SIGTERM on to the workers
            assert served.process.poll() is None  # waiting for the request in flight
            sock.sendall(request[half:])
            response = read_response(sock)
        assert response.status == 201, response.body
        assert json.loads(response.body)["title"] == event["title"]
        assert served.process.wait(timeout=DEADLINE) == 0, served.output()


@served_test
def test_sigterm_closes_idle_keep_alive_connections_instead_of_waiting_for_them(
    app: Application, database_url: str, tmp_path: Path
) -> None:
    """A proxy's pool keeps connections open between requests: a stopping worker closes
    those with nothing under way at once, rather than holding them (and itself) until
    the arbiter's grace period ends (30 s) and it is killed."""
    app.database.close()
    with serving(database_url, tmp_path) as served:
        connections = one_connection_per_worker(served)
        began = time.monotonic()
        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(timeout=DEADLINE) == 0, served.output()
        assert time.monotonic() - began < PROMPT + 2  # a beat of the worker's loop: 1 s
        for connection in connections.values():
            assert connection.sock is not None and closed_by_server(connection.sock)
            connection.close()


@served_test
def test_by_default_the_workers_accept_from_the_arbiters_one_socket(
    app: Application, database_url: str, tmp_path: Path
) -> None:
    app.database.close()
    with serving(database_url, tmp_path) as served:
        listeners = tcp_inodes(local_port=served.port, listening=True)
        assert len(listeners) == 1
        assert listeners <= socket_inodes(served.process.pid)
        for worker in served.workers:
            assert listeners <= socket_inodes(worker)


#: keep-alive connections opened at once; with the kernel's spread, all of them
#: landing in one of two workers has a chance of 2 ** -31
BURST = 32


@served_test
def test_reuse_port_gives_each_worker_a_listener_and_spreads_a_burst_of_connections(
    app: Application, database_url: str, tmp_path: Path
) -> None:
    app.database.close()
    with serving(database_url, tmp_path, options=("--reuse-port",)) as served:
        workers = served.workers
        listeners = tcp_inodes(local_port=served.port, listening=True)
        own = {worker: socket_inodes(worker) & listeners for worker in workers}
        assert all(len(held) == 1 for held in own.values()), own
        assert len(set.union(*own.values())) == len(workers) == 2
        assert not socket_inodes(served.process.pid) & listeners  # the arbiter binds none
        connections = [
            http.client.HTTPConnection(HOST, served.port, timeout=5) for _ in range(BURST)
        ]
        try:
            for connection in connections:
                connection.connect()
            for connection in connections:
                connection.request("GET", NS + "/events")
                response = connection.getresponse()
                assert response.status == 200
                response.read()
            holders = [holder(connection, served.port, workers) for connection in connections]
        finally:
            for connection in connections:
                connection.close()
        assert set(holders) == workers, holders


# -- the command line, in process -------------------------------------------------------


@pytest.mark.parametrize("workers", ["0", "-1", "two"])
def test_workers_must_be_a_positive_integer(
    workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--workers", workers]) == 2
    assert "--workers" in capsys.readouterr().err


def test_several_workers_without_gunicorn_say_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "gunicorn", None)  # import gunicorn fails
    monkeypatch.setenv("LANGUAGE", "en")
    status = main(["--database", f"sqlite:///{tmp_path / 'c.db'}", "serve", "--workers", "2"])
    error = capsys.readouterr().err
    assert status == 1
    assert "--workers 2 needs gunicorn" in error
    assert "pip install 'calendar-rest[workers]'" in error
    assert not (tmp_path / "c.db").exists()  # refused before anything was done


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        (["--workers", "1"], "--reuse-port needs --workers 2 or more"),
        (["--workers", "2", "--port", "0"], "--reuse-port needs a fixed --port"),
    ],
)
def test_reuse_port_is_refused_where_it_means_nothing(
    options: list[str],
    refusal: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    url = f"sqlite:///{tmp_path / 'c.db'}"
    assert main(["--database", url, "serve", "--reuse-port", *options]) == 1
    assert refusal in capsys.readouterr().err
    assert not (tmp_path / "c.db").exists()  # refused before anything was done


def test_reuse_port_reaches_gunicorn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from calendar_rest.cli import serve
    from calendar_rest.serving import prefork

    told: dict[str, t.Any] = {}
    monkeypatch.setattr(prefork, "workers_available", lambda: True)
    monkeypatch.setattr(serve, "start_forked_roll_forward", lambda *args: None)
    monkeypatch.setattr(prefork, "serve_workers", lambda *a, **options: told.update(options))
    url = f"sqlite:///{tmp_path / 'two.db'}"
    assert main(["--database", url, "serve", "--workers", "2", "--reuse-port"]) == 0
    assert told["reuse_port"] is True and told["workers"] == 2
    told.clear()
    assert main(["--database", url, "serve", "--workers", "2"]) == 0
    assert told["reuse_port"] is False


def test_one_worker_keeps_waitress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from calendar_rest.cli import serve
    from calendar_rest.serving import prefork, server

    told: dict[str, t.Any] = {}
    monkeypatch.setitem(sys.modules, "gunicorn", None)  # not needed for one
    monkeypatch.setattr(serve, "start_daily_roll_forward", lambda *args: None)
    monkeypatch.setattr(server, "serve", lambda app, **options: told.update(options))
    monkeypatch.setattr(prefork, "serve_workers", lambda *a, **k: pytest.fail("gunicorn used"))
    url = f"sqlite:///{tmp_path / 'one.db'}"
    assert main(["--database", url, "serve", "--port", "0", "--workers", "1"]) == 0
    assert told["threads"] == 8 and told["max_body_bytes"] == 1024 * 1024
