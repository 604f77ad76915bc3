"""A bounded, closed-loop HTTP load generator for loopback servers (stdlib only).

``run_load`` keeps ``connections`` keep-alive connections busy, each sending its next
``GET`` as soon as the previous response has been read, cycling through ``paths``.
The connections are spread over 2 worker processes (threads inside each), so that the
client is not limited by one interpreter's GIL. Every loop stops by itself: after
``warmup + duration`` seconds or ``max_requests`` measured requests, whichever comes
first. Only 127.0.0.1 / localhost may be targeted. Measured answers are also counted by
their ``X-Calendar-Cache`` header (``hit`` or ``miss``: what the app's response cache
did), which gives the cache's hit rate under the load.
"""

from __future__ import annotations

import dataclasses
import http.client
import math
import multiprocessing as mp
import queue
import threading
import time
import typing as t
from urllib.parse import urlsplit

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
PROCESSES = 2
#: a single request taking longer than this counts as an error (and may overrun the
#: duration by this much: a request in flight is always waited for)
REQUEST_TIMEOUT = 30.0
#: time allowed for the worker processes to start and connect
START_TIMEOUT = 30.0
#: the app's response-cache header (``calendar_rest.cache.CACHE_HEADER``)
CACHE_HEADER = "X-Calendar-Cache"


@dataclasses.dataclass(frozen=True)
class LoadResult:
    """Measured requests (warm-up excluded); latencies of successful requests only;
    ``body_bytes`` is the mean body size of the successful responses; ``cache_hits``
    and ``cache_misses`` count the answers saying ``X-Calendar-Cache: hit`` / ``miss``."""

    requests: int
    errors: int
    req_per_s: float
    p50_ms: float
    p99_ms: float
    body_bytes: int
    cache_hits: int = 0
    cache_misses: int = 0

    @property
    def hit_rate(self) -> float | None:
        """hits / (hits + misses); None when no answer carried the header (a server
        without the response cache, or the floor)."""
        looked_up = self.cache_hits + self.cache_misses
        return self.cache_hits / looked_up if looked_up else None


@dataclasses.dataclass
class _Tally:
    """What one worker process measured."""

    latencies: list[float] = dataclasses.field(default_factory=list)
    requests: int = 0
    errors: int = 0
    body_bytes: int = 0
    elapsed: float = 0.0
    cache: dict[str, int] = dataclasses.field(default_factory=dict)


def loopback(base: str) -> tuple[str, int]:
    """The host and port of ``base``, once it is known to be plain http to this machine."""
    parts = urlsplit(base)
    assert parts.scheme == "http", f"plain http only, not {base!r}"
    assert parts.hostname in LOOPBACK_HOSTS, f"loopback only, not {parts.hostname!r}"
    return parts.hostname, parts.port or 80


def run_load(
    base: str,
    paths: list[str],
    connections: int = 16,
    duration: float = 10.0,
    max_requests: int = 200_000,
    warmup: float = 1.0,
) -> LoadResult:
    """Load ``base`` (``http://127.0.0.1:PORT``) with ``paths`` cycled over
    ``connections`` connections; see the module docstring for the bounds."""
    host, port = loopback(base)
    assert paths and connections > 0 and duration > 0 and max_requests > 0 and warmup >= 0
    processes = min(PROCESSES, connections)
    per_process = _split(connections, processes)
    quotas = _split(max(max_requests, connections), connections)
    context: t.Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    results = context.Queue()
    ready = context.Queue()
    go = context.Event()
    workers = []
    first = 0
    for count in per_process:
        plan = _Plan(
            host, port, paths, first, connections, quotas[first : first + count],
            warmup, duration,
        )  # fmt: skip
        workers.append(context.Process(target=_worker, args=(plan, ready, go, results)))
        first += count
    for worker in workers:
        worker.start()
    try:
        for _ in workers:
            ready.get(timeout=START_TIMEOUT)
        go.set()
        deadline = warmup + duration + REQUEST_TIMEOUT + START_TIMEOUT
        tallies = [results.get(timeout=deadline) for _ in workers]
    except queue.Empty:
        raise RuntimeError("a load worker process did not report in time") from None
    finally:
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()
                worker.join()
    return _merge(tallies)


@dataclasses.dataclass(frozen=True)
class _Plan:
    """One worker process's share of the load."""

    host: str
    port: int
    paths: list[str]
    first: int  # index of its first connection among all connections
    connections: int  # all connections, to spread the start offsets in ``paths``
    quotas: list[int]  # measured-request budget of each of its connections
    warmup: float
    duration: float


def _worker(plan: _Plan, ready: t.Any, go: t.Any, results: t.Any) -> None:
    """Run this process's connections, one thread each, and report one tally."""
    tally = _Tally()
    lock = threading.Lock()
    threads = [
        threading.Thread(target=_client, args=(plan, plan.first + i, quota, go, tally, lock))
        for i, quota in enumerate(plan.quotas)
    ]
    for thread in threads:
        thread.start()
    ready.put(True)
    for thread in threads:
        thread.join()
    results.put(tally)


def _client(
    plan: _Plan, index: int, quota: int, go: t.Any, tally: _Tally, lock: threading.Lock
) -> None:
    """One keep-alive connection in a closed loop: warm-up, then measured requests."""
    paths = plan.paths
    position = index * max(1, len(paths) // plan.connections)
    connection = http.client.HTTPConnection(plan.host, plan.port, timeout=REQUEST_TIMEOUT)
    latencies: list[float] = []
    errors = body_bytes = 0
    cache: dict[str, int] = {}
    go.wait(START_TIMEOUT)
    start = time.monotonic()
    measure_from = start + plan.warmup
    stop_at = measure_from + plan.duration
    done = warm = 0
    try:
        while warm < quota and time.monotonic() < measure_from:  # warm-up, not measured
            connection, _, _ = _get(connection, plan, paths[position % len(paths)])
            position += 1
            warm += 1
        measure_from = time.monotonic()
        while done < quota and time.monotonic() < stop_at:
            began = time.perf_counter()
            connection, size, cached = _get(connection, plan, paths[position % len(paths)])
            took = time.perf_counter() - began
            position += 1
            done += 1
            if size is None:
                errors += 1
            else:
                latencies.append(took * 1000.0)
                body_bytes += size
            if cached:
                cache[cached] = cache.get(cached, 0) + 1
    finally:
        connection.close()
    elapsed = time.monotonic() - measure_from
    with lock:
        tally.latencies += latencies
        tally.requests += done
        tally.errors += errors
        tally.body_bytes += body_bytes
        tally.elapsed = max(tally.elapsed, elapsed)
        for value, count in cache.items():
            tally.cache[value] = tally.cache.get(value, 0) + count


def _get(
    connection: http.client.HTTPConnection, plan: _Plan, path: str
) -> tuple[http.client.HTTPConnection, int | None, str | None]:
    """GET ``path``; returns the connection to use next, the body size, or None for an
    error (non-200 status, or a connection failure, after which it reconnects), and the
    answer's ``X-Calendar-Cache`` value (None: absent)."""
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
    except (OSError, http.client.HTTPException):
        connection.close()
        fresh = http.client.HTTPConnection(plan.host, plan.port, timeout=REQUEST_TIMEOUT)
        return fresh, None, None
    size = len(body) if response.status == 200 else None
    return connection, size, response.getheader(CACHE_HEADER)


def _split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` near-equal integer shares."""
    share, extra = divmod(total, parts)
    return [share + (1 if i < extra else 0) for i in range(parts)]


def _percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of sorted values (0.0 when there are none)."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def _merge(tallies: list[_Tally]) -> LoadResult:
    latencies = sorted(x for tally in tallies for x in tally.latencies)
    requests = sum(tally.requests for tally in tallies)
    ok = len(latencies)
    return LoadResult(
        requests=requests,
        errors=sum(tally.errors for tally in tallies),
        # each process measured its own window; their throughputs add up
        req_per_s=sum(tally.requests / tally.elapsed for tally in tallies if tally.elapsed > 0),
        p50_ms=_percentile(latencies, 0.50),
        p99_ms=_percentile(latencies, 0.99),
        body_bytes=round(sum(tally.body_bytes for tally in tallies) / ok) if ok else 0,
        cache_hits=sum(tally.cache.get("hit", 0) for tally in tallies),
        cache_misses=sum(tally.cache.get("miss", 0) for tally in tallies),
    )


__all__ = ["LoadResult", "loopback", "run_load"]
