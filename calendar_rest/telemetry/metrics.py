"""The Prometheus metrics of ``operations.md`` §2, made with ``prometheus_client``.

Each process holds one :class:`ServiceMetrics` (the WSGI app's) or one
:class:`WorkerMetrics` (the webhook worker's) in a registry of its own, so embedding
the app adds nothing to a host's default registry. Under ``serve --workers`` every
worker writes its values to files in one directory (:func:`use_multiprocess`, the
library's multiprocess mode), and a scrape of any worker sums them all.

A request's metrics are recorded in batches: the request appends one tuple
(:meth:`RequestMetrics.record`, a fraction of a microsecond) and a flush folds what
has gathered into the counters and histograms, a bucket count at a time, every
:data:`FLUSH_SECONDS` and before a scrape. Observing each request one by one would
cost a cached read several microseconds (``bench/operations.py``). A scrape of one
worker therefore sees the others' requests of the last second once that second is
over.
"""

from __future__ import annotations

import bisect
import collections
import functools
import itertools
import os
import threading
import time
import typing as t
import weakref

import prometheus_client
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    values,
)

#: the environment variable of the library's multiprocess mode
MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
#: seconds between two flushes of the requests recorded meanwhile
FLUSH_SECONDS = 1.0
#: a route template for a path no route matches (a label never holds a raw path)
UNMATCHED = "unmatched"

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
STATEMENT_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144)
DB_SECONDS_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: the bounds of each histogram's buckets, ``+Inf`` (the last bucket's) included
LATENCY_BOUNDS = (*LATENCY_BUCKETS, float("inf"))
STATEMENT_BOUNDS = (*STATEMENT_BUCKETS, float("inf"))
DB_SECONDS_BOUNDS = (*DB_SECONDS_BUCKETS, float("inf"))
DELIVERY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0)


def use_multiprocess(directory: str) -> None:
    """Put this process (and the ones it forks) in multiprocess mode, writing to
    ``directory``: before any metric exists. The library picks its value class when
    it is first imported; it is picked again here, so the order of imports does not
    matter."""
    os.environ[MULTIPROCESS_VARIABLE] = directory
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]


def single_process() -> None:
    """Leave multiprocess mode (:func:`use_multiprocess`): metrics made from now on
    keep their values in this process's memory again."""
    os.environ.pop(MULTIPROCESS_VARIABLE, None)
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]


def multiprocess_directory() -> str | None:
    """The multiprocess directory this process writes to, None when single."""
    return os.environ.get(MULTIPROCESS_VARIABLE) or None


def process_exited(pid: int) -> None:
    """Drop the live-only gauges of a worker that exited (the arbiter calls it)."""
    directory = multiprocess_directory()
    if directory is not None:
        multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]


def exposition(registry: CollectorRegistry) -> bytes:
    """The text a scrape gets: ``registry``, or every process's values when this one
    writes to a multiprocess directory."""
    directory = multiprocess_directory()
    if directory is None:
        return prometheus_client.generate_latest(registry)
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged, directory)  # type: ignore[no-untyped-call]
    return prometheus_client.generate_latest(merged)


def _observe_all(child: Histogram, bounds: tuple[float, ...], values: t.Sequence[float]) -> None:
    """What ``child.observe`` does for each of ``values``, a bucket at a time: each
    value counts in the first bucket whose bound is at least the value (``bounds``:
    the child's, ``+Inf`` last). The values are counted by C loops (``Counter``,
    ``map``), not one by one in Python."""
    buckets = child._buckets
    for index, count in collections.Counter(
        map(functools.partial(bisect.bisect_left, bounds), values)
    ).items():
        buckets[index].inc(count)
    child._sum.inc(sum(values))


#: what a request leaves to be recorded: route template, method, status, seconds,
#: database statements, their seconds, and the response cache's outcome (or None)
Observation = tuple[str, str, int, float, int, float, str | None]


class RequestMetrics:
    """The per-request metrics, recorded in batches (see the module docstring)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "calendar_rest_http_requests",
            "Requests answered, by route template, method and status class.",
            ("route", "method", "status"),
            registry=registry,
        )
        self.latency = Histogram(
            "calendar_rest_http_request_duration_seconds",
            "Time from a request's arrival in the app to its answer, by route template.",
            ("route",),
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.cache = Counter(
            "calendar_rest_response_cache_requests",
            "Reads that looked the response cache up, by outcome (hit or miss).",
            ("outcome",),
            registry=registry,
        )
        self.statements = Histogram(
            "calendar_rest_db_statements_per_request",
            "Database statements one request ran.",
            buckets=STATEMENT_BUCKETS,
            registry=registry,
        )
        self.db_seconds = Histogram(
            "calendar_rest_db_seconds_per_request",
            "Seconds one request spent in database statements.",
            buckets=DB_SECONDS_BUCKETS,
            registry=registry,
        )
        self._pending: collections.deque[Observation] = collections.deque()
        self._flush_lock = threading.Lock()
        self._flusher: threading.Thread | None = None
        forked = weakref.WeakMethod(self._forked)
        os.register_at_fork(after_in_child=lambda: (method := forked()) and method())

    def record(self, observation: Observation) -> None:
        """Keep one request's observation for the next flush (thread-safe)."""
        self._pending.append(observation)
        if self._flusher is None:  # the first request of this process
            self._start_flusher()

    def _forked(self) -> None:
        """In a forked child: no flusher runs there yet (threads are not forked)."""
        self._flush_lock = threading.Lock()
        self._flusher = None

    def _start_flusher(self) -> None:
        with self._flush_lock:
            if self._flusher is not None:
                return
            self._flusher = threading.Thread(
                target=self._flush_forever, name="calendar-rest-metrics", daemon=True
            )
            self._flusher.start()

    def _flush_forever(self) -> None:
        flusher = self._flusher
        while self._flusher is flusher:
            time.sleep(FLUSH_SECONDS)
            self.flush()

    def flush(self) -> None:
        """Fold what was recorded so far into the metrics, each metric's values at
        once (:func:`_observe_all`)."""
        with self._flush_lock:
            pending = self._pending
            count = len(pending)
            if not count:
                return
            # popped by a C loop; appends meanwhile wait for the next flush
            taken = list(itertools.islice(iter(pending.popleft, None), count))
            routes, methods, statuses, seconds, ran, in_database, outcomes = zip(
                *taken, strict=True
            )
            requests: dict[tuple[str, str, str], int] = {}
            for (route, method, status), number in collections.Counter(
                zip(routes, methods, statuses, strict=True)
            ).items():
                key = (route, method, f"{status // 100}xx")
                requests[key] = requests.get(key, 0) + number
            for labels, number in requests.items():
                self.requests.labels(*labels).inc(number)
            distinct = dict.fromkeys(routes)  # in order: the children are made so
            for route in distinct:
                of_route = seconds
                if len(distinct) > 1:
                    of_route = tuple(itertools.compress(seconds, map(route.__eq__, routes)))
                _observe_all(self.latency.labels(route), LATENCY_BOUNDS, of_route)
            _observe_all(self.statements, STATEMENT_BOUNDS, ran)
            _observe_all(self.db_seconds, DB_SECONDS_BOUNDS, in_database)
            for outcome, number in collections.Counter(outcomes).items():
                if outcome is not None:
                    self.cache.labels(outcome).inc(number)


class ServiceMetrics:
    """Every metric of the WSGI app: one per process (:func:`service_metrics`)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = RequestMetrics(self.registry)
        self.write_retries = Counter(
            "calendar_rest_write_retries",
            "Write transactions run again after a serialisation failure or deadlock.",
            registry=self.registry,
        )
        self.write_conflicts = Counter(
            "calendar_rest_write_conflicts",
            "Writes answered 409 Conflict.",
            registry=self.registry,
        )
        self.login_locks = Counter(
            "calendar_rest_login_throttle_locks",
            "Logins or client addresses locked by the failed-login throttle.",
            ("scope",),
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "calendar_rest_rate_limited",
            "Requests refused with 429 by a rate limit, by limit.",
            ("limit",),
            registry=self.registry,
        )
        self.replica_lag = Gauge(
            "calendar_rest_replica_lag_seconds",
            "Seconds a read replica was behind the primary when last checked.",
            ("replica",),
            multiprocess_mode="mostrecent",
            registry=self.registry,
        )
        self.primary_reads = Counter(
            "calendar_rest_replica_fallback_reads",
            "Reads sent to the primary because no replica was up and fresh enough.",
            registry=self.registry,
        )

    def replica_lag_seen(self, number: int, seconds: float) -> None:
        self.replica_lag.labels(str(number)).set(seconds)

    def exposition(self) -> bytes:
        """The text of a scrape, with this process's latest requests folded in."""
        self.requests.flush()
        return exposition(self.registry)


class WorkerMetrics:
    """The webhook worker's metrics (``webhooks run --metrics-port``)."""

    def __init__(self, outbox_depth: t.Callable[[], float]) -> None:
        self.registry = CollectorRegistry()
        self.outbox_depth = Gauge(
            "calendar_rest_webhook_outbox_depth",
            "Deliveries waiting in the outbox (due now or later), read at each scrape.",
            registry=self.registry,
        )
        self.outbox_depth.set_function(outbox_depth)
        self.deliveries = Counter(
            "calendar_rest_webhook_deliveries",
            "Delivery attempts, by outcome.",
            ("outcome",),
            registry=self.registry,
        )
        self.delivery_seconds = Histogram(
            "calendar_rest_webhook_delivery_seconds",
            "Time one delivery attempt took, the endpoint's answer included.",
            buckets=DELIVERY_BUCKETS,
            registry=self.registry,
        )

    def exposition(self) -> bytes:
        return prometheus_client.generate_latest(self.registry)


_service: ServiceMetrics | None = None
_service_lock = threading.Lock()


def service_metrics() -> ServiceMetrics:
    """This process's app metrics, made on first use (after
    :func:`use_multiprocess`, when it is called)."""
    global _service
    if _service is None:
        with _service_lock:
            if _service is None:
                _service = ServiceMetrics()
    return _service
