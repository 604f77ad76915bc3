"""The worker's own ``/-/live`` and ``/-/metrics`` (``operations.md`` §2), served on
``webhooks run --metrics-port`` by a small waitress server on a thread of its own.

The worker has no WSGI app of its own to put them beside, and its metrics are not
the app's: a scrape of the app never sees the worker's deliveries. ``/-/metrics``
is guarded as the app's is (``telemetry.scrape_guard``: ``metrics_allow`` or the
``metrics_token`` bearer, anyone else a 404). The worker trusts no proxy: a
forwarded request (``X-Forwarded-For``, ``Forwarded``) is admitted by its token
alone, since behind a local proxy every client would look local.
"""

from __future__ import annotations

import threading
import typing as t

import orjson

from ..errors import RestError, no_route
from ..settings import Settings
from ..telemetry.metrics import CONTENT_TYPE, WorkerMetrics
from ..telemetry.scrape_guard import ScrapeGuard, peer_address

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

JSON = "application/json; charset=UTF-8"
READ_METHODS = ("GET", "HEAD")
#: seconds one turn of the server's loop waits, so that :meth:`ProbeServer.close`
#: is seen within it
LOOP_TIMEOUT = 0.2
#: the server's threads and open connections: a scraper and a probe or two
THREADS = 2
CONNECTION_LIMIT = 20
#: seconds an idle or silent connection is kept
CHANNEL_TIMEOUT = 30
#: status, content type, body
Answer = tuple[int, str, bytes]


class WorkerProbes:
    """The WSGI app of the worker's port: ``/-/live``, ``/-/metrics``, else 404."""

    def __init__(self, metrics: WorkerMetrics, guard: ScrapeGuard) -> None:
        self.metrics = metrics
        self.guard = guard
        self.paths: dict[str, t.Callable[[WSGIEnvironment], Answer]] = {
            "/-/live": self.live,
            "/-/metrics": self.scrape,
        }

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        status, content_type, body = self.answer(environ)
        reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}.get(status, "")
        headers = [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
        if status == 405:
            headers.append(("Allow", ", ".join(READ_METHODS)))
        start_response(f"{status} {reason}", headers)
        return [b"" if environ.get("REQUEST_METHOD") == "HEAD" else body]

    def answer(self, environ: WSGIEnvironment) -> Answer:
        probe = self.paths.get(environ.get("PATH_INFO", ""))
        if probe is None:
            return error(no_route())
        if environ.get("REQUEST_METHOD") not in READ_METHODS:
            return error(RestError("rest_no_route", 405))
        return probe(environ)

    def live(self, environ: WSGIEnvironment) -> Answer:
        """The worker's process answers (whether it delivers, its metrics say)."""
        return 200, JSON, orjson.dumps({"status": "ok"})

    def scrape(self, environ: WSGIEnvironment) -> Answer:
        """The metrics, to an allowed peer or the bearer of ``metrics_token``; to
        anyone else the route does not exist."""
        if not self.may_scrape(environ):
            return error(no_route())
        return 200, CONTENT_TYPE, self.metrics.exposition()

    def may_scrape(self, environ: WSGIEnvironment) -> bool:
        forwarded = "HTTP_X_FORWARDED_FOR" in environ or "HTTP_FORWARDED" in environ
        address = None if forwarded else peer_address(str(environ.get("REMOTE_ADDR", "")))
        return self.guard.admits(str(environ.get("HTTP_AUTHORIZATION", "")), address)


def error(failure: RestError) -> Answer:
    """A refusal as the API's JSON error, in English."""
    return failure.status, JSON, orjson.dumps(failure.body())


class ProbeServer:
    """Serves an app on ``host``:``port`` from a daemon thread, until :meth:`close`.

    waitress rather than ``wsgiref``: its connection limit and timeouts keep idle
    or slow clients from holding the port (``operations.md`` §4).

    :raises OSError: the address cannot be bound (in use, not this host's).
    """

    def __init__(self, app: t.Any, host: str, port: int) -> None:
        from waitress.server import create_server

        self.map: dict[int, t.Any] = {}
        self.server = t.cast(
            t.Any,
            create_server(
                app,
                map=self.map,
                host=host,
                port=port,
                threads=THREADS,
                connection_limit=CONNECTION_LIMIT,
                channel_timeout=CHANNEL_TIMEOUT,
                ident="calendar-rest",
                asyncore_use_poll=True,  # ``select`` fails on a descriptor above 1,023
                # the forwarding headers reach the app, which then admits by token only
                # (waitress drops them by default, hiding the client behind a proxy)
                clear_untrusted_proxy_headers=False,
            ),
        )
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="webhook-metrics", daemon=True)

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """The hosts and ports bound (a name may resolve to several addresses; the
        port is the one chosen when 0 was asked)."""
        server = self.server
        listening = getattr(server, "effective_listen", None)  # several: a MultiSocketServer
        pairs = listening or [(server.effective_host, server.effective_port)]
        return [(str(host), int(port)) for host, port in pairs]

    @property
    def urls(self) -> list[str]:
        return [
            f"http://{f'[{host}]' if ':' in host else host}:{port}/-/metrics"
            for host, port in self.addresses
        ]

    def start(self) -> ProbeServer:
        self.thread.start()
        return self

    def _run(self) -> None:
        from waitress import wasyncore

        try:
            while not self.stopping.is_set():
                wasyncore.loop(timeout=LOOP_TIMEOUT, use_poll=True, map=self.map, count=1)
        finally:
            self.server.task_dispatcher.shutdown()
            wasyncore.close_all(self.map)

    def close(self) -> None:
        """Stop serving and release the port (within a loop turn or two)."""
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(5 * LOOP_TIMEOUT + 5)
        else:  # never started: the socket is bound all the same
            self._run()


def serve_probes(metrics: WorkerMetrics, settings: Settings, host: str, port: int) -> ProbeServer:
    """Start serving ``metrics`` and ``/-/live`` on ``host``:``port``, guarded by
    ``settings``' ``metrics_allow`` and ``metrics_token``.

    :raises OSError: the address cannot be bound.
    """
    guard = ScrapeGuard(settings.metrics_allow, settings.metrics_token)
    return ProbeServer(WorkerProbes(metrics, guard), host, port).start()
