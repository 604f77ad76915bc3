"""Read replicas (``replicas.py``, issue 16 point 5) against a real streaming replica.

The replica is made of the test PostgreSQL server with ``pg_basebackup -R -X stream``
in a temporary directory owned by ``postgres`` (mode 0700), started with that server's
own ``postgres`` binary on a free 127.0.0.1 port as the ``postgres`` OS user, and
always stopped and removed afterwards; every wait is bounded. It needs a server that
accepts replication connections from 127.0.0.1 (a ``pg_hba.conf`` line whose database
is ``replication``; ``wal_level`` ``replica`` and ``max_wal_senders`` > 0): without
one the tests are skipped, naming what is missing, or fail under
``CALENDAR_REST_REQUIRE_BACKENDS=1``.

The settings' checks (any backend) run in the ordinary suite.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import typing as t
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import peewee
import pytest
from conftest import Api, api_for, backends_required

from calendar_rest.app import Application
from calendar_rest.db import connect_database
from calendar_rest.edge.replicas import GENERATION_HEADER, MIN_GENERATION_HEADER
from calendar_rest.settings import Settings

#: the longest any step waits (backup, start, catching up, stop)
BOUND = 90.0


# -- the settings (every backend, the ordinary suite) ------------------------------------


def test_read_urls_need_postgresql() -> None:
    with pytest.raises(ValueError, match="read_database_urls"):
        Settings.build("sqlite:///x.db", read_database_urls=("postgresql://h/db",))
    with pytest.raises(ValueError, match="read_database_urls"):
        Settings.build("mysql://root@h/db", read_database_urls=("postgresql://h/db",))
    with pytest.raises(ValueError, match="read_database_urls"):
        Settings.build("postgresql://h/db", read_database_urls=("mysql://h/db",))
    with pytest.raises(ValueError, match="read_replica_max_lag_seconds"):
        Settings.build("postgresql://h/db", read_replica_max_lag_seconds=0)


def test_read_urls_from_the_environment() -> None:
    environ = {
        "CALENDAR_REST_READ_DATABASE_URLS": " postgresql://a/db, postgresql://b/db ,",
        "CALENDAR_REST_READ_REPLICA_MAX_LAG_SECONDS": "2.5",
    }
    settings = Settings.build("postgresql://p/db", environ)
    assert settings.read_database_urls == ("postgresql://a/db", "postgresql://b/db")
    assert settings.read_replica_max_lag_seconds == 2.5
    assert Settings.build("sqlite:///x.db", {}).read_database_urls == ()


# -- the replica -------------------------------------------------------------------------


def unavailable(reason: str) -> t.NoReturn:
    message = f"no streaming replica: {reason}"
    if backends_required():
        pytest.fail(message)
    pytest.skip(message)


def bounded_wait(done: t.Callable[[], bool], what: str, bound: float = BOUND) -> None:
    deadline = time.monotonic() + bound
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {bound:.0f} s waiting for {what}")
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def as_postgres(*command: str, timeout: float = BOUND) -> tuple[int, str]:
    """Run ``command`` as the postgres user; its status and output. On time-out the
    whole process group is killed (``runuser`` and what it started)."""
    process = subprocess.Popen(
        ["runuser", "-u", "postgres", "--", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate(timeout=10)
        return -1, f"timed out after {timeout:.0f} s: {output}"
    return process.returncode, output


@dataclasses.dataclass
class Replica:
    url: str
    directory: Path
    bin: Path
    process: subprocess.Popen[bytes]
    stopped: bool = False

    @property
    def data(self) -> Path:
        return self.directory / "data"

    def execute(self, sql: str) -> t.Any:
        database = connect_database(self.url)
        try:
            with database.connection_context():
                return database.execute_sql(sql).fetchone()
        finally:
            database.close_all()

    def generation(self) -> int:
        row = self.execute("SELECT value FROM site_state WHERE key = 'generation'")
        return int(row[0]) if row else -1

    def caught_up(self, produced: int, event: int) -> bool:
        """Whether the replica shows generation ``produced`` and the event written then.
        The generation alone may be a previous test's: each test starts from emptied
        tables, and the replica replays that reset only after a lag."""
        shown = self.execute(f"SELECT id FROM event WHERE id = {int(event)}")
        return shown is not None and self.generation() >= produced

    def accepts(self) -> bool:
        if self.process.poll() is not None:
            log = (self.directory / "replica.log").read_text(errors="replace")[-2000:]
            raise AssertionError(f"the replica exited ({self.process.returncode}): {log}")
        try:
            return self.execute("SELECT pg_is_in_recovery()")[0] is True
        except peewee.PeeweeException:
            return False

    def stop(self) -> None:
        """Fast shutdown, bounded; the postmaster is killed if it outlives it."""
        if self.stopped:
            return
        self.stopped = True
        if self.process.poll() is None:
            as_postgres(
                str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "fast", "-w",
                "-t", "30", timeout=40,
            )  # fmt: skip
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        pid_file = self.data / "postmaster.pid"
        if pid_file.exists():
            with contextlib.suppress(ValueError, ProcessLookupError, IndexError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)


def replication_prerequisites(database: peewee.Database) -> tuple[Path, dict[str, str]]:
    """The server's binaries and the settings a hot standby must match, or a skip
    naming what the server lacks."""
    with database.connection_context():

        def show(name: str) -> str:
            return str(database.execute_sql(f"SHOW {name}").fetchone()[0])

        problems = []
        if show("wal_level") not in ("replica", "logical"):
            problems.append("wal_level must be 'replica'")
        if int(show("max_wal_senders")) < 2:
            problems.append("max_wal_senders must be 2 or more")
        rules = database.execute_sql(
            "SELECT count(*) FROM pg_hba_file_rules WHERE type LIKE 'host%%' "
            "AND 'replication' = ANY(database) AND error IS NULL"
        ).fetchone()[0]
        if not rules:
            problems.append(
                "pg_hba.conf has no line for replication connections from 127.0.0.1 "
                f"({show('hba_file')}; add 'host replication postgres 127.0.0.1/32 trust' "
                "and reload)"
            )
        if problems:
            unavailable("; ".join(problems))
        major = int(show("server_version_num")) // 10000
        matched = {
            name: show(name)
            for name in (
                "max_connections",
                "max_worker_processes",
                "max_wal_senders",
                "max_prepared_transactions",
                "max_locks_per_transaction",
            )
        }
    binaries = Path(f"/usr/lib/postgresql/{major}/bin")
    for name in ("pg_basebackup", "postgres", "pg_ctl"):
        if not (binaries / name).exists():
            unavailable(f"{binaries / name} is missing")
    return binaries, matched


@pytest.fixture(scope="module")
def replica(database_url: str) -> t.Iterator[Replica]:
    """A streaming replica of the test server, removed at the end."""
    parts = urlsplit(database_url)
    if parts.hostname not in ("127.0.0.1", "localhost"):
        unavailable(f"the test server {parts.hostname} is not on this machine")
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        unavailable("starting a server as the postgres user needs root and runuser")
    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        unavailable("there is no postgres OS user")
    primary = connect_database(database_url)
    try:
        binaries, matched = replication_prerequisites(primary)
    finally:
        primary.close_all()
    directory = Path(tempfile.mkdtemp(prefix="calendar-rest-replica-"))
    process: subprocess.Popen[bytes] | None = None
    try:
        os.chown(directory, owner.pw_uid, owner.pw_gid)
        directory.chmod(0o700)
        data = directory / "data"
        status, output = as_postgres(
            str(binaries / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(parts.port or 5432),
            "-U", parts.username or "postgres", "-D", str(data), "-R", "-X", "stream",
            "--checkpoint=fast",
        )  # fmt: skip
        if status != 0:
            unavailable(f"pg_basebackup failed: {output.strip()}")
        # a Debian cluster keeps its configuration outside the data directory
        for name, text in (
            ("postgresql.conf", ""),
            ("pg_hba.conf", "local all all trust\nhost all all 127.0.0.1/32 trust\n"),
            ("pg_ident.conf", ""),
        ):
            path = data / name
            if not path.exists():
                path.write_text(text)
                os.chown(path, owner.pw_uid, owner.pw_gid)
        port = free_port()
        settings = {
            **matched,
            "port": str(port),
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(directory),
            "hot_standby": "on",
            "logging_collector": "off",
        }
        options = [item for name, value in settings.items() for item in ("-c", f"{name}={value}")]
        log = (directory / "replica.log").open("wb")
        process = subprocess.Popen(
            ["runuser", "-u", "postgres", "--", str(binaries / "postgres"), "-D", str(data)]
            + options,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        url = urlunsplit(parts._replace(netloc=f"{parts.username or 'postgres'}@127.0.0.1:{port}"))
        running = Replica(url, directory, binaries, process)
        try:
            bounded_wait(running.accepts, "the replica to accept connections")
            yield running
        finally:
            running.stop()
    finally:
        if process is not None and process.poll() is None:
            process.kill()
        shutil.rmtree(directory, ignore_errors=True)


# -- the tests ---------------------------------------------------------------------------


def routed_app(
    sibling_app: t.Callable[..., Application], replica: Replica, api: Api, max_lag: float
) -> tuple[Api, list[peewee.Database | None]]:
    """A client of an app reading from ``replica``, and where each read went."""
    app = sibling_app(read_database_urls=(replica.url,), read_replica_max_lag_seconds=max_lag)
    router = app.router
    assert router is not None
    chosen: list[peewee.Database | None] = []
    choose = router.choose

    def recording(*args: t.Any, **kwargs: t.Any) -> tuple[peewee.Database | None, int | None]:
        result = choose(*args, **kwargs)
        chosen.append(result[0])
        return result

    router.choose = recording  # type: ignore[method-assign]
    return api_for(app, api), chosen


def created(client: Api, title: str) -> tuple[int, int]:
    """Create a published event; its ID and the generation its write produced."""
    response = client.post("/events", "administrator", json={
        "title": title, "status": "publish",
        "start_date": "2030-05-01 19:00:00", "end_date": "2030-05-01 21:00:00",
    })  # fmt: skip
    assert response.status_code == 201, response.get_data(as_text=True)
    return int(response.json["id"]), int(response.headers[GENERATION_HEADER])


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.backends("postgresql")
def test_reads_go_to_the_replica_and_clients_read_their_writes(
    api: Api, sibling_app: t.Callable[..., Application], replica: Replica
) -> None:
    client, chosen = routed_app(sibling_app, replica, api, max_lag=2.0)
    standby = client.app.database.replicas[0]  # type: ignore[attr-defined]

    # a write goes to the primary and says which generation it produced
    first, produced = created(client, "Replicated")
    bounded_wait(lambda: replica.caught_up(produced, first), "the replica to catch up")
    read = client.get(f"/events/{first}", headers={MIN_GENERATION_HEADER: str(produced)})
    assert read.status_code == 200 and read.json["title"] == "Replicated"
    assert chosen[-1] is standby  # served by the replica, once it had caught up
    assert int(read.headers[GENERATION_HEADER]) >= produced

    # while the replica lags, a client asking for its write's generation reads it
    replica.execute("SELECT pg_wal_replay_pause()")
    try:
        second, produced = created(client, "Written during the lag")
        read = client.get(f"/events/{second}", headers={MIN_GENERATION_HEADER: str(produced)})
        assert read.status_code == 200, read.get_data(as_text=True)
        assert chosen[-1] is None  # the primary
        assert int(read.headers[GENERATION_HEADER]) == produced
        # a read that asks for nothing may see the replica's (older) consistent prefix
        stale = client.get(f"/events/{second}")
        assert chosen[-1] is standby and stale.status_code == 404
        assert int(stale.headers[GENERATION_HEADER]) < produced
        # ... until the lag passes the bound: then the replica is skipped
        bounded_wait(
            lambda: client.get(f"/events/{second}").status_code == 200,
            "the lagging replica to be skipped",
            bound=15,
        )
        assert chosen[-1] is None
    finally:
        replica.execute("SELECT pg_wal_replay_resume()")
    bounded_wait(lambda: replica.caught_up(produced, second), "the replica to catch up again")
    bounded_wait(
        lambda: client.get(f"/events/{second}").status_code == 200 and chosen[-1] is standby,
        "reads to return to the replica",
        bound=15,
    )


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.backends("postgresql")
def test_a_stopped_replica_is_skipped(
    api: Api, sibling_app: t.Callable[..., Application], replica: Replica
) -> None:
    client, chosen = routed_app(sibling_app, replica, api, max_lag=5.0)
    event, produced = created(client, "Before the stop")
    bounded_wait(lambda: replica.caught_up(produced, event), "the replica to catch up")
    assert client.get(f"/events/{event}").status_code == 200
    assert chosen[-1] is not None
    replica.stop()
    for _ in range(3):  # found down, then skipped while it stays down
        read = client.get(f"/events/{event}")
        assert read.status_code == 200, read.get_data(as_text=True)
        assert chosen[-1] is None
    assert client.app.router is not None and client.app.router.replicas[0].down
