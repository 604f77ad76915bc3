"""A private PostgreSQL cluster that a test may stop, start, freeze and replicate.

The machine's shared server (127.0.0.1:5432) serves every other test and must never
go down; a test of what the service does while its database is down gets a cluster
of its own instead: ``initdb`` into a temporary directory owned by the ``postgres``
OS user (mode 0700; ``initdb`` refuses root), trust authentication, ``pg_ctl`` on a
free 127.0.0.1 port with its socket in that directory, and a database
:data:`DATABASE`. :func:`standby_of` makes a streaming replica of it with
``pg_basebackup -R`` (``initdb -A trust`` already admits replication connections
from 127.0.0.1). Everything is stopped and removed on the way out, every wait is
bounded; without root, ``runuser``, a ``postgres`` user or the binaries the test is
skipped, naming what is missing, or fails under ``CALENDAR_REST_REQUIRE_BACKENDS=1``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pwd
import shutil
import signal
import tempfile
import typing as t
from pathlib import Path

import peewee
import pytest
from conftest import backends_required
from test_replicas import as_postgres, bounded_wait, free_port
from test_workers import children

from calendar_rest.db import connect_database

#: the database the cluster serves the app from
DATABASE = "calendar"
#: the bound of a server starting or stopping (``pg_ctl -t``), and of any wait here
BOUND = 60
#: settings for a throw-away server: small, no durability, quiet
SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "max_connections": "40",
    "shared_buffers": "16MB",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "logging_collector": "off",
}
#: what a cluster needs from this machine
TOOLS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")


def unavailable(reason: str) -> t.NoReturn:
    message = f"no private PostgreSQL cluster: {reason}"
    if backends_required():
        pytest.fail(message)
    pytest.skip(message)


def binaries() -> Path:
    """The newest installed PostgreSQL's binaries, or a skip naming what is missing."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        unavailable("starting a server as the postgres user needs root and runuser")
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        unavailable("there is no postgres OS user")
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
    )
    for candidate in reversed(found):
        if all((candidate / tool).exists() for tool in TOOLS):
            return candidate
    unavailable(f"no /usr/lib/postgresql/*/bin with {', '.join(TOOLS)}")


@dataclasses.dataclass
class Cluster:
    """One server: its binaries, its directory (data, socket, log) and its port."""

    bin: Path
    directory: Path
    port: int

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def log(self) -> Path:
        return self.directory / "server.log"

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def pg_ctl(self, *arguments: str) -> tuple[int, str]:
        return as_postgres(
            str(self.bin / "pg_ctl"), *arguments, "-D", str(self.data), timeout=BOUND + 10
        )

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        settings = {
            **SERVER_SETTINGS,
            "port": str(self.port),
            "unix_socket_directories": str(self.directory),
        }
        options = " ".join(f"-c {name}={value}" for name, value in settings.items())
        status, output = self.pg_ctl(
            "start", "-w", "-t", str(BOUND), "-l", str(self.log), "-o", options
        )
        if status != 0:
            raise AssertionError(f"pg_ctl start failed ({status}): {output}\n{self.tail()}")
        bounded_wait(self.accepts, f"the server on port {self.port}", bound=BOUND)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: sessions are ended; ``immediate``: no checkpoint)
        and wait until it is down."""
        status, output = self.pg_ctl("stop", "-m", mode, "-w", "-t", str(BOUND))
        if status != 0:
            raise AssertionError(f"pg_ctl stop failed ({status}): {output}\n{self.tail()}")

    def postmaster(self) -> int | None:
        """The running server's process ID (None when it is down)."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, 0)
            return pid
        return None

    def accepts(self) -> bool:
        try:
            return self.execute("SELECT 1", "postgres") == (1,)
        except peewee.PeeweeException:
            return False

    def execute(self, sql: str, database: str = DATABASE) -> t.Any:
        """The first row of ``sql`` (None for a statement without rows), run on a
        connection of its own."""
        connection = connect_database(self.url(database))
        try:
            with connection.connection_context():
                cursor = connection.execute_sql(sql)
                return cursor.fetchone() if cursor.description is not None else None
        finally:
            connection.close_all()

    @contextlib.contextmanager
    def frozen(self) -> t.Iterator[None]:
        """Every process of the server stopped (``SIGSTOP``), as a hung host would
        be: connections are accepted by the kernel and never answered."""
        pid = self.postmaster()
        assert pid is not None, "the server is not running"
        processes = [pid, *children(pid)]
        try:
            for process in processes:
                os.kill(process, signal.SIGSTOP)
            yield
        finally:
            for process in processes:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process, signal.SIGCONT)

    def tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-2000:]
        return ""

    def remove(self) -> None:
        """Stop the server however it is (frozen processes are woken first, a
        postmaster that outlives an immediate stop is killed) and delete its files."""
        pid = self.postmaster()
        if pid is not None:
            for process in [pid, *children(pid)]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process, signal.SIGCONT)
            self.pg_ctl("stop", "-m", "immediate", "-w", "-t", "20")
            pid = self.postmaster()
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.directory, ignore_errors=True)


def _directory(prefix: str) -> Path:
    """A new directory the postgres user owns, readable by no one else."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    owner = pwd.getpwnam("postgres")
    os.chown(directory, owner.pw_uid, owner.pw_gid)
    directory.chmod(0o700)
    return directory


@contextlib.contextmanager
def private_cluster() -> t.Iterator[Cluster]:
    """A new running cluster with an empty database :data:`DATABASE`; removed after."""
    tools = binaries()
    cluster = Cluster(tools, _directory("calendar-rest-pg-"), free_port())
    try:
        status, output = as_postgres(
            str(tools / "initdb"), "-D", str(cluster.data), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions", timeout=BOUND,
        )  # fmt: skip
        if status != 0:
            unavailable(f"initdb failed: {output.strip()}")
        cluster.start()
        cluster.execute(f'CREATE DATABASE "{DATABASE}"', "postgres")
        yield cluster
    finally:
        cluster.remove()


@contextlib.contextmanager
def standby_of(primary: Cluster) -> t.Iterator[Cluster]:
    """A running hot standby streaming from ``primary``; removed after."""
    standby = Cluster(primary.bin, _directory("calendar-rest-pg-standby-"), free_port())
    try:
        status, output = as_postgres(
            str(primary.bin / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port),
            "-U", "postgres", "-D", str(standby.data), "-R", "-X", "stream",
            "--checkpoint=fast", "--no-sync", timeout=BOUND,
        )  # fmt: skip
        if status != 0:
            raise AssertionError(f"pg_basebackup failed: {output}")
        standby.start()
        bounded_wait(
            lambda: standby.execute("SELECT pg_is_in_recovery()") == (True,),
            "the standby to serve reads",
            bound=BOUND,
        )
        yield standby
    finally:
        standby.remove()
