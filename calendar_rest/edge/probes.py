"""The operator's endpoints (``operations.md`` §1, §2): ``/-/live``, ``/-/ready`` and
``/-/metrics``, below the app's root, beside the API rather than in it.

They are answered before the rate limits, the response cache and the route map: no
index or ``/doc`` lists them, no ``Accept`` changes them, nothing caches them
(``Cache-Control: no-store``), and their access lines are logged at DEBUG. A
readiness check runs on a thread of its own and is given ``ready_timeout`` seconds:
a database that hangs makes the probe fail in time rather than hang with it, and
only one check runs at a time however often the load balancer asks. The replicas'
checks run so too, within the same seconds: a hung replica is reported as last
found, never waited on.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import threading
import time
import typing as t

import orjson
import peewee

from ..db import login_store
from ..errors import RestError, no_route
from ..models import bind_models
from ..repository.schema import schema_is_current
from ..settings import Settings
from ..telemetry.metrics import CONTENT_TYPE, ServiceMetrics
from ..telemetry.scrape_guard import ScrapeGuard
from .client_address import ClientAddresses, parse_address
from .observing import PROBE_KEY
from .replicas import UNREACHABLE, ReadRouter

PREFIX = "/-/"
READ_METHODS = ("GET", "HEAD")
JSON = "application/json; charset=UTF-8"
#: what a probe answers: status, content type, body
Probe = tuple[int, str, bytes]


T = t.TypeVar("T")


class OneAtATime(t.Generic[T]):
    """``work`` on a thread of its own, one run at a time: a caller starts a run, or
    joins the one still running (a hung server), and waits for it no longer than it
    chooses; however often the load balancer asks, one thread at most is stuck."""

    def __init__(self, work: t.Callable[[], T], name: str) -> None:
        self.work = work
        self._executor = concurrent.futures.ThreadPoolExecutor(1, name)
        self._running: concurrent.futures.Future[T] | None = None
        self._lock = threading.Lock()

    def start(self) -> concurrent.futures.Future[T]:
        with self._lock:
            if self._running is None or self._running.done():
                self._running = self._executor.submit(self.work)
            return self._running


class Readiness:
    """Whether the primary answers and its schema is current, within a timeout."""

    def __init__(self, database: peewee.Database, timeout: float) -> None:
        self.database = database
        self.timeout = timeout
        #: models are bound per thread (``models.base``); a thread that never bound
        #: them reads through the first database bound in the process (``serve``'s
        #: schema step), and the schema check would skip every model as foreign
        self.bind = functools.partial(bind_models, database, login_store(database))
        self.runs = OneAtATime(self._check, "calendar-rest-ready")

    def check(self) -> dict[str, str]:
        """``{"database": "ok"}`` and, when reached, ``"schema": "ok"|"outdated"``;
        ``"unreachable"`` when the database failed or took longer than the timeout."""
        try:
            return self.runs.start().result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            return {"database": "unreachable"}

    def _check(self) -> dict[str, str]:
        self.bind()
        try:
            with self.database.connection_context():
                self.database.execute_sql("SELECT 1")
                current = schema_is_current(self.database)
        except (*UNREACHABLE, peewee.DatabaseError):
            return {"database": "unreachable"}
        return {"database": "ok", "schema": "ok" if current else "outdated"}


class Probes:
    """Answers the paths under ``/-/``; any other path is the pipeline's."""

    def __init__(
        self,
        database: peewee.Database,
        settings: Settings,
        router: ReadRouter | None,
        addresses: ClientAddresses,
        metrics: ServiceMetrics | None,
    ) -> None:
        self.readiness = Readiness(database, settings.ready_timeout)
        self.router = router
        #: the replicas' checks, on a thread of their own: a hung replica, or the
        #: primary whose generation their lag is measured against, must not hang the
        #: probe (nor take the server's threads one request after another)
        self.refresh = OneAtATime(self._refresh, "calendar-rest-replicas") if router else None
        self.addresses = addresses
        self.metrics = metrics
        self.guard = ScrapeGuard(settings.metrics_allow, settings.metrics_token)
        self.paths: dict[str, t.Callable[[dict[str, t.Any]], Probe]] = {
            "/-/live": self.live,
            "/-/ready": self.ready,
            "/-/metrics": self.scrape,
        }

    def answer(self, environ: dict[str, t.Any]) -> Probe | None:
        """The probe ``environ`` asks for, None for a path that is no probe's."""
        probe = self.paths.get(environ.get("PATH_INFO", ""))
        if probe is None:
            return None
        environ[PROBE_KEY] = True
        if environ.get("REQUEST_METHOD") not in READ_METHODS:
            return error(RestError("rest_no_route", 405))
        return probe(environ)

    def live(self, environ: dict[str, t.Any]) -> Probe:
        """The process answers: nothing else is looked at."""
        return 200, JSON, orjson.dumps({"status": "ok"})

    def ready(self, environ: dict[str, t.Any]) -> Probe:
        """200 when the primary answers and its schema is current, else 503 naming
        what failed; the replicas are reported and never make it fail."""
        deadline = time.monotonic() + self.readiness.timeout
        refreshed = self.refresh.start() if self.refresh is not None else None
        checked = self.readiness.check()
        if refreshed is not None:  # within the same time: else reported as last found
            with contextlib.suppress(concurrent.futures.TimeoutError):
                refreshed.result(timeout=max(0.0, deadline - time.monotonic()))
        failed = checked["database"] != "ok" or checked.get("schema") != "ok"
        document: dict[str, t.Any] = {"status": "unavailable" if failed else "ok", **checked}
        document["replicas"] = self.replicas()
        return (503 if failed else 200), JSON, orjson.dumps(document)

    def _refresh(self) -> None:
        """The replicas' checks that are due, as a read would run them."""
        assert self.router is not None
        self.readiness.bind()  # the router reads the generations through the models
        self.router.usable()

    def replicas(self) -> list[dict[str, t.Any]]:
        """Each replica as the read router last found it."""
        if self.router is None:
            return []
        return [
            {
                "replica": number,
                "status": "down" if replica.down else "ok",
                "lag_seconds": None if replica.down else round(replica.lag, 3),
                "skipped": replica.down or replica.lag > self.router.max_lag,
            }
            for number, replica in enumerate(self.router.replicas, start=1)
        ]

    def scrape(self, environ: dict[str, t.Any]) -> Probe:
        """The metrics, to an allowed address or the bearer of ``metrics_token``;
        to anyone else the route does not exist."""
        if self.metrics is None or not self.may_scrape(environ):
            return error(no_route())
        return 200, CONTENT_TYPE, self.metrics.exposition()

    def may_scrape(self, environ: dict[str, t.Any]) -> bool:
        """The bearer token, when one is set, else a client address in
        ``metrics_allow`` (``telemetry.scrape_guard``, the worker's rule too). A
        request that a proxy not among ``trusted_proxies`` forwarded is never
        admitted by address: behind a local proxy every client would look local."""
        forwarded = "HTTP_X_FORWARDED_FOR" in environ or "HTTP_FORWARDED" in environ
        if forwarded and not self.addresses.is_trusted(
            parse_address(str(environ.get("REMOTE_ADDR", "")))
        ):
            address = None
        else:
            address = parse_address(self.addresses.of(environ))
        return self.guard.admits(str(environ.get("HTTP_AUTHORIZATION", "")), address)


def error(failure: RestError) -> Probe:
    """A probe's refusal as the API's JSON error, in English."""
    return failure.status, JSON, orjson.dumps(failure.body())
