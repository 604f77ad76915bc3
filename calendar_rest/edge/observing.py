"""Every request observed (``operations.md`` §2, §3): its ID, its metrics, its log line.

:class:`Observer` is the outermost step of the WSGI callable. It gives the request its
ID (``telemetry.request_ids``) for as long as the thread serves it, so that every log
line written meanwhile carries it, and returns it in ``X-Request-ID``; once the app
has answered, it records the request's metrics and writes its access line. What the
line and the metrics need from deeper down, the pipeline leaves in the environ under
the keys below: the route template once a route matched, the response cache's
outcome, the user once authenticated, the replica a read ran on.
"""

from __future__ import annotations

import logging
import time
import typing as t

from ..telemetry import request_ids
from ..telemetry.logs import access_log, write_access
from ..telemetry.metrics import UNMATCHED, RequestMetrics
from ..telemetry.statements import tally
from .client_address import ClientAddresses

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: the route template (the Werkzeug rule) the path matched
ROUTE_KEY = "calendar_rest.route"
#: ``hit`` or ``miss`` when the response cache was looked up
CACHE_KEY = "calendar_rest.cache"
#: the ID of the authenticated user
USER_KEY = "calendar_rest.user"
#: the number (from 1) of the read replica the request read from
REPLICA_KEY = "calendar_rest.replica"
#: set by a probe (``probes.py``): logged at DEBUG, not measured
PROBE_KEY = "calendar_rest.probe"
log = logging.getLogger("calendar_rest")


class Observer:
    """Wraps the app: request ID in, metrics and access line out."""

    def __init__(
        self,
        app: WSGIApplication,
        addresses: ClientAddresses,
        metrics: RequestMetrics | None,
        access_log_on: bool = True,
    ) -> None:
        self.app = app
        self.addresses = addresses
        self.metrics = metrics
        self.access_log_on = access_log_on

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> t.Iterable[bytes]:
        started = time.perf_counter()
        created = time.time()
        request_id = request_ids.request_id_of(environ)
        token = request_ids.current.set(request_id)
        tally.take()  # what this thread ran before is no part of this request
        answered: list[t.Any] = []

        def start(
            status: str, headers: list[tuple[str, str]], exc_info: t.Any = None
        ) -> t.Callable[[bytes], object]:
            headers.append((request_ids.HEADER, request_id))
            answered[:] = (status, headers)
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, start)
        except BaseException:
            log.exception("the app failed on %s", environ.get("REQUEST_METHOD"))
            self.observe(environ, "500", [], [], started, created, request_id)
            raise
        finally:
            request_ids.current.reset(token)
        status, headers = answered if answered else ("500", [])
        self.observe(environ, status, headers, body, started, created, request_id)
        return body

    def observe(
        self,
        environ: WSGIEnvironment,
        status_line: str,
        headers: list[tuple[str, str]],
        body: t.Iterable[bytes],
        started: float,
        created: float,
        request_id: str,
    ) -> None:
        """Record the request's metrics and write its access line."""
        seconds = time.perf_counter() - started
        statements, in_database = tally.take()
        status = int(status_line[:3])
        route = environ.get(ROUTE_KEY, UNMATCHED)
        cache = environ.get(CACHE_KEY)
        method = environ.get("REQUEST_METHOD", "GET")
        probe = PROBE_KEY in environ
        if self.metrics is not None and not probe:
            self.metrics.record((route, method, status, seconds, statements, in_database, cache))
        level = logging.DEBUG if probe else logging.INFO
        if not self.access_log_on or not access_log.isEnabledFor(level):
            return
        fields = {
            "request_id": request_id,
            "method": method,
            "route": route,
            "path": environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""),
            "status": status,
            "bytes": size_of(headers, body),
            "duration_ms": round(seconds * 1000, 3),
            "user": environ.get(USER_KEY),
            "client": self.addresses.of(environ),
            "replica": environ.get(REPLICA_KEY),
        }
        if cache is not None:  # absent when the cache was not looked up
            fields["cache"] = cache
        write_access(fields, created, level)


def size_of(headers: list[tuple[str, str]], body: t.Iterable[bytes]) -> int:
    """The bytes of the answer's body: its ``Content-Length``, else its parts summed
    (the app's answers are known at once: a list)."""
    if isinstance(body, list):
        return sum(map(len, body))
    for name, value in headers:
        if name.lower() == "content-length" and value.isdigit():
            return int(value)
    return 0
