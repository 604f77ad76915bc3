"""``/-/ready`` of a real ``calendar-rest serve`` while its PostgreSQL server goes down,
hangs and comes back, and while its read replica lags and goes down (operations.md
§1; issue 34's "Done when").

The database is a private cluster (``postgres_cluster.py``), never the machine's
shared server; the server under test is one process on 127.0.0.1 whose PID must
not change: readiness comes back without a restart. ``ready_timeout`` is 1 s, and a
503 must come within it plus :data:`MARGIN`. The tests run where the PostgreSQL
backend is selected (``backends``), as ``slow`` ones; every wait is bounded.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import http.client
import json
import time
import typing as t
from pathlib import Path

import pytest
from conftest import NS
from postgres_cluster import Cluster, private_cluster, standby_of
from prometheus_client.parser import text_string_to_metric_families
from serve_process import HOST, Served, serving
from test_replicas import bounded_wait

from calendar_rest.telemetry.metrics import FLUSH_SECONDS

pytestmark = [pytest.mark.slow, pytest.mark.server, pytest.mark.backends("postgresql")]

READY_TIMEOUT = 1.0
#: slack over ``ready_timeout`` for a loaded two-core machine
MARGIN = 2.0
#: the bound of a probe's answer coming back, and of polling for a state
BOUND = 20.0


@dataclasses.dataclass
class Answer:
    status: int
    body: bytes
    seconds: float

    def json(self) -> t.Any:
        return json.loads(self.body)


def call(port: int, path: str, method: str = "GET", timeout: float = BOUND) -> Answer:
    """One request on a new connection; a status of 0 when none came within ``timeout``."""
    began = time.monotonic()
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return Answer(response.status, response.read(), time.monotonic() - began)
    except OSError:
        return Answer(0, b"", time.monotonic() - began)
    finally:
        connection.close()


def ready(served: Served) -> Answer:
    return call(served.port, "/-/ready")


def metric(served: Served, name: str, **labels: str) -> float:
    """One sample of ``/-/metrics`` (0 when absent), read with prometheus_client's parser,
    once this process's last second of requests is in."""
    time.sleep(FLUSH_SECONDS + 0.2)
    answer = call(served.port, "/-/metrics")
    assert answer.status == 200, answer.body
    return sum(
        sample.value
        for family in text_string_to_metric_families(answer.body.decode())
        for sample in family.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    )


def reads(served: Served, count: int = 8) -> list[int]:
    """The statuses of ``count`` API reads sent four at a time (as many as the
    server's threads: each holds a pooled connection of its own)."""
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = pool.map(lambda _: call(served.port, f"{NS}/events"), range(count))
        return [answer.status for answer in answers]


def poll(served: Served, done: t.Callable[[Answer], bool], what: str) -> list[Answer]:
    """``/-/ready`` asked until ``done`` with its answer (bounded); every answer."""
    seen: list[Answer] = []

    def asked() -> bool:
        seen.append(ready(served))
        return done(seen[-1])

    bounded_wait(asked, what, bound=BOUND)
    return seen


@pytest.fixture(scope="module")
def cluster(database_url: str) -> t.Iterator[Cluster]:
    """A private cluster for the module (``database_url``: where the PostgreSQL
    backend is selected), running again after each test."""
    with private_cluster() as running:
        yield running


@pytest.fixture
def server(cluster: Cluster, tmp_path: Path) -> t.Iterator[Served]:
    """``serve`` on the private cluster, which is left running after the test."""
    try:
        with serving(
            tmp_path, settings={"ready_timeout": str(READY_TIMEOUT)}, database=cluster.url()
        ) as served:
            yield served
    finally:
        if cluster.postmaster() is None:
            cluster.start()


def same_process(served: Served, pid: int) -> None:
    assert served.process.poll() is None, served.output()
    assert served.process.pid == pid and served.pids() == {pid}


def test_ready_answers_503_while_the_database_is_down_and_200_once_it_is_back(
    cluster: Cluster, server: Served
) -> None:
    pid = server.process.pid
    answer = ready(server)
    assert answer.status == 200, answer.body
    assert answer.json() == {"status": "ok", "database": "ok", "schema": "ok", "replicas": []}

    cluster.stop("fast")
    answer = ready(server)  # no retry: the first answer after the stop
    assert answer.status == 503, answer.body
    assert answer.json() == {"status": "unavailable", "database": "unreachable", "replicas": []}
    assert answer.seconds < READY_TIMEOUT + MARGIN
    live = call(server.port, "/-/live")
    assert (live.status, live.json()) == (200, {"status": "ok"})
    assert ready(server).status == 503  # still down, asked again

    cluster.start()
    answers = poll(server, lambda answer: answer.status == 200, "/-/ready to answer 200")
    assert answers[-1].json()["database"] == "ok"
    assert [answer.status for answer in answers[:-1]] == [503] * (len(answers) - 1)
    assert reads(server) == [200] * 8
    same_process(server, pid)


def test_pooled_connections_survive_a_database_restart(cluster: Cluster, server: Served) -> None:
    """The server restarts between two requests: the connections pooled before are
    dead, and the first reads after it must not be 500s for it."""
    pid = server.process.pid
    assert reads(server) == [200] * 8  # the pool holds a connection per thread
    assert ready(server).status == 200
    cluster.stop("immediate")
    cluster.start()
    assert reads(server) == [200] * 8  # the first requests since the restart
    answer = ready(server)
    assert answer.status == 200, answer.body
    same_process(server, pid)


def test_ready_fails_in_time_while_the_database_hangs(cluster: Cluster, server: Served) -> None:
    """A hung server (every process stopped: connections accepted, never answered)
    makes the probe answer 503 after ``ready_timeout``, not hang with it."""
    pid = server.process.pid
    assert ready(server).status == 200
    with cluster.frozen():
        for _ in range(3):  # the check still running is waited on again, in time
            answer = ready(server)
            assert answer.status == 503, answer.body
            assert answer.json()["database"] == "unreachable"
            assert READY_TIMEOUT * 0.9 <= answer.seconds < READY_TIMEOUT + MARGIN
        live = call(server.port, "/-/live", timeout=MARGIN)
        assert live.status == 200
    poll(server, lambda answer: answer.status == 200, "/-/ready to answer 200 once thawed")
    same_process(server, pid)


# -- the replicas' report ----------------------------------------------------------------


@pytest.fixture
def standby(cluster: Cluster) -> t.Iterator[Cluster]:
    with standby_of(cluster) as running:
        yield running


@pytest.fixture
def routed_server(cluster: Cluster, standby: Cluster, tmp_path: Path) -> t.Iterator[Served]:
    """``serve`` on the private cluster reading from its standby (1 s of lag at most)."""
    settings = {
        "ready_timeout": str(READY_TIMEOUT),
        "read_database_urls": standby.url(),
        "read_replica_max_lag_seconds": "1",
    }
    try:
        with serving(tmp_path, settings=settings, database=cluster.url()) as served:
            yield served
    finally:
        if cluster.postmaster() is None:
            cluster.start()


def report(answer: Answer) -> dict[str, t.Any]:
    """The one replica's report in a 200 answer."""
    assert answer.status == 200, answer.body
    document = answer.json()
    assert document["status"] == "ok" and len(document["replicas"]) == 1, document
    return t.cast(dict[str, t.Any], document["replicas"][0])


def test_ready_reports_the_replica_and_never_fails_for_it(
    cluster: Cluster, standby: Cluster, routed_server: Served
) -> None:
    served = routed_server
    first = report(ready(served))
    assert first["replica"] == 1 and first["status"] == "ok" and first["skipped"] is False
    assert isinstance(first["lag_seconds"], float) and first["lag_seconds"] < 1

    # a read the replica served says so in its access line (serve logs JSON to a file,
    # in batches at most FLUSH_SECONDS late; a read may go to the primary meanwhile)
    def replica_read_logged() -> bool:
        assert call(served.port, f"{NS}/venues?per_page=3").status == 200
        time.sleep(FLUSH_SECONDS + 0.1)
        lines = (json.loads(line) for line in served.output().splitlines() if line[:1] == "{")
        return any(
            line.get("route") == f"{NS}/venues" and line.get("replica") == 1 for line in lines
        )

    bounded_wait(replica_read_logged, "a read from the replica in the access log")

    # the standby stops replaying while the primary moves on: its lag grows past the
    # bound and it is skipped, still reported up, the probe still 200
    standby.execute("SELECT pg_wal_replay_pause()")
    try:
        cluster.execute(
            "UPDATE site_state SET value = value + 1 WHERE key = 'generation'"
        )  # what a write does
        seen = poll(served, lambda answer: report(answer)["skipped"], "the lag to pass 1 s")
        lagging = report(seen[-1])
        assert lagging["status"] == "ok" and lagging["lag_seconds"] > 1
        # the metrics saw the lag, and the reads it sent to the primary meanwhile
        assert metric(served, "calendar_rest_replica_lag_seconds", replica="1") > 1
        fallback = "calendar_rest_replica_fallback_reads_total"
        before = metric(served, fallback)
        assert reads(served, 4) == [200] * 4
        assert metric(served, fallback) - before == 4
    finally:
        standby.execute("SELECT pg_wal_replay_resume()")
    poll(served, lambda answer: not report(answer)["skipped"], "the standby to catch up")
    assert report(ready(served))["lag_seconds"] < 1

    # the standby goes down: reported down and skipped, the probe still 200
    standby.stop("fast")
    seen = poll(served, lambda answer: report(answer)["status"] == "down", "the standby down")
    down = {"replica": 1, "status": "down", "lag_seconds": None, "skipped": True}
    assert report(seen[-1]) == down
    assert reads(served, 4) == [200] * 4  # reads fall back to the primary

    # the primary down too: 503 for the primary alone, the replica still reported
    cluster.stop("fast")
    answer = ready(served)
    assert answer.status == 503 and answer.seconds < READY_TIMEOUT + MARGIN
    document = answer.json()
    assert document["database"] == "unreachable" and document["replicas"][0]["status"] == "down"
    cluster.start()
    standby.start()
    seen = poll(
        served,
        lambda answer: answer.status == 200 and report(answer)["status"] == "ok",
        "the primary and the standby back",
    )
    assert report(seen[-1])["skipped"] is False


def test_ready_answers_in_time_while_the_primary_hangs_with_a_replica(
    cluster: Cluster, standby: Cluster, routed_server: Served
) -> None:
    """With a replica, the report measures its lag against the primary: a hung
    primary must not make the probe hang with it (nor take the server's threads)."""
    served = routed_server
    assert ready(served).status == 200
    with cluster.frozen():
        time.sleep(1.1)  # the replica's check is due again
        for _ in range(5):  # more than the server's four threads
            answer = ready(served)
            assert answer.status == 503, answer.body
            assert answer.seconds < READY_TIMEOUT + MARGIN
        assert call(served.port, "/-/live", timeout=MARGIN).status == 200
    poll(served, lambda answer: answer.status == 200, "/-/ready to answer 200 once thawed")


def test_ready_answers_in_time_while_the_replica_hangs(
    cluster: Cluster, standby: Cluster, routed_server: Served
) -> None:
    """A hung replica is reported, never waited on past ``ready_timeout``."""
    served = routed_server
    assert ready(served).status == 200
    with standby.frozen():
        time.sleep(1.1)  # the replica's check is due again
        for _ in range(5):
            answer = ready(served)
            assert answer.status == 200, answer.body
            assert answer.seconds < READY_TIMEOUT + MARGIN
        assert call(served.port, "/-/live", timeout=MARGIN).status == 200
    poll(served, lambda answer: report(answer)["status"] == "ok", "the replica back")
