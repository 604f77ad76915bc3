"""The WSGI application: one callable owning the database, the settings, the clock and
the dispatcher.

A request enters :meth:`Application.wsgi_app` once: it reads the write generation,
publishes what is due (``repository.publishing``), and answers an anonymous GET the
response cache holds without routing; anything else gets its language root split off
and goes down the pipeline of ``edge/dispatch.py``. A read that looked the cache up leaves
with ``X-Calendar-Cache: hit`` or ``miss`` (``edge/cache.py``). Every answer leaves
gzipped when it is text of 1 KB or more and the request takes gzip
(``edge/encoding.py``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import typing as t

import peewee

from . import models
from .clock import SYSTEM_CLOCK, Clock
from .db import RoutedPostgresqlDatabase, connect_routed, login_store
from .edge.answer import status_line
from .edge.cache import (
    CACHE_HEADER,
    HIT,
    CachedResponse,
    ReadCache,
    forget_lookup,
    lookup_outcome,
    request_key,
)
from .edge.client_address import ClientAddresses
from .edge.conditional import environ_not_modified, header_of, validators_of
from .edge.cors import SAFE_METHODS, CorsPolicy
from .edge.dispatch import Dispatcher
from .edge.encoding import accepts_gzip, encode
from .edge.http import (
    NO_CACHE,
    Request,
    apply_method_override,
    http_now,
    new_request,
)
from .edge.observing import CACHE_KEY, REPLICA_KEY, ROUTE_KEY, Observer
from .edge.probes import PREFIX as PROBE_PREFIX
from .edge.probes import Probes
from .edge.rate_limits import HEADERS_KEY, rate_limits_for
from .edge.replicas import GENERATION_HEADER, ReadRouter, min_generation
from .errors import RestError
from .models import User
from .queries.lookups.site_state import current_generation
from .repository.publishing import Publisher
from .settings import Settings
from .telemetry.metrics import UNMATCHED, service_metrics

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

log = logging.getLogger("calendar_rest")


class Application:
    """The WSGI callable. Build it with :func:`create_app`."""

    def __init__(
        self, database: peewee.Database, settings: Settings, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.database = database
        self.settings = settings
        self.clock = clock
        entries = settings.cache_entries
        self.cache = ReadCache(entries, clock, settings.site_zone) if entries else None
        self.login_store = login_store(database)
        models.bind_models(database, self.login_store)
        self.publisher = Publisher(database, clock, settings.site_zone)
        #: how many reads run at once (0: unbounded), and what holds the others back
        self.concurrent_reads = concurrent_reads(settings.concurrent_reads, database)
        self.read_gate = read_gate(self.concurrent_reads)
        self.cors = CorsPolicy(settings.cors_origins, settings.site_url)
        self.addresses = ClientAddresses(settings.trusted_proxies)
        #: None while every limit is off: then a request pays one ``if`` for them
        self.rate_limits = rate_limits_for(settings, self.addresses)
        self.dispatcher = Dispatcher(
            database, settings, clock, self.cache, self.cors, self.addresses, self.rate_limits
        )
        #: this process's metrics (shared by every app it holds), None when off
        self.metrics = service_metrics() if settings.metrics else None
        self.router = (
            ReadRouter(
                database,
                settings.read_replica_max_lag_seconds,
                lag_seen=self.metrics.replica_lag_seen if self.metrics is not None else None,
            )
            if isinstance(database, RoutedPostgresqlDatabase) and database.replicas
            else None
        )
        self.probes = Probes(database, settings, self.router, self.addresses, self.metrics)
        self.observer = Observer(
            self.respond,
            self.addresses,
            self.metrics.requests if self.metrics is not None else None,
            settings.access_log,
        )

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> t.Iterable[bytes]:
        return self.observer(environ, start_response)  # request ID, metrics, access line

    def respond(self, environ: WSGIEnvironment, start_response: StartResponse) -> t.Iterable[bytes]:
        """The operator's probes under ``/-/`` (``probes.py``), else the pipeline."""
        if environ.get("PATH_INFO", "").startswith(PROBE_PREFIX):
            probe = self.probes.answer(environ)
            if probe is not None:
                status, content_type, body = probe
                headers = [
                    ("Content-Type", content_type),
                    ("Content-Length", str(len(body))),
                    ("Cache-Control", "no-store"),
                    ("Date", http_now()),
                ]
                if status == 405:
                    headers.append(("Allow", "GET, HEAD"))
                start_response(status_line(status), headers)
                return [] if environ.get("REQUEST_METHOD") == "HEAD" else [body]
        return self.wsgi_app(environ, start_response)

    def wsgi_app(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> t.Iterable[bytes]:
        models.bind_models(self.database, self.login_store)
        apply_method_override(environ)
        if self.rate_limits is not None:  # before any database work, cache hits included
            refusal = self.rate_limits.admit(environ)
            if refusal is not None:
                return self.refuse(environ, start_response, refusal)
        cache_key = request_key(environ)
        if self.router is None:
            return self.serve(environ, start_response, cache_key, None)
        with contextlib.ExitStack() as routed:
            seen = self.route_read(environ, routed)
            return self.serve(environ, start_response, cache_key, seen)

    def route_read(self, environ: WSGIEnvironment, stack: contextlib.ExitStack) -> int | None:
        """Send a ``GET``, ``HEAD`` or ``OPTIONS`` request to a read replica, if any is
        usable and recent enough (``replicas.py``), for as long as ``stack`` is open;
        returns the write generation the replica showed (None: the primary serves)."""
        if self.router is None or environ.get("REQUEST_METHOD") not in SAFE_METHODS:
            return None
        replica, seen = self.router.choose(
            min_generation(environ), lambda shown: not self.publisher.due(shown)
        )
        if replica is not None:
            stack.enter_context(self.router.database.route(replica))
            environ[REPLICA_KEY] = self.router.number_of(replica)
        elif self.metrics is not None:
            self.metrics.primary_reads.inc()
        return seen

    def serve(
        self,
        environ: WSGIEnvironment,
        start_response: StartResponse,
        cache_key: tuple[str, ...] | None,
        seen: int | None,
    ) -> t.Iterable[bytes]:
        stamp = self.router is not None
        forget_lookup()
        try:  # a cache hit may need no connection at all
            try:
                current = (
                    seen if seen is not None else self.publisher.catch_up(current_generation())
                )
                if self.cache is not None and cache_key and "HTTP_AUTHORIZATION" not in environ:
                    hit = self.cache.peek(self.cache.key(cache_key, 0), current)
                    if hit is not None:  # anonymous hit: no routing, no request object
                        return self.answer_hit(environ, start_response, hit, current)
            except Exception:  # noqa: BLE001 - unreachable or uninitialised database
                request = self.request(environ, cache_key, 0)
                log.exception(
                    "could not read the database before %s %s", request.method, request.path
                )
                error = RestError("rest_internal_error", 500)
                response = self.dispatcher.error_response(error, request)
            else:
                request = self.request(environ, cache_key, current)
                with self.database.connection_context(), self.gated(environ):
                    response = self.dispatcher.handle(request)  # on one connection
                if stamp:  # what it saw, or what its write produced
                    response.headers[GENERATION_HEADER] = str(request.generation)
                outcome = lookup_outcome()  # the dispatcher's lookup, after it stored its entry
                if outcome is not None:
                    response.headers[CACHE_HEADER] = outcome
                    environ[CACHE_KEY] = outcome
        finally:
            if not self.database.is_closed():  # what the generation read took, on a hit
                self.database.close()
        # writes, errors, OPTIONS, envelopes (a read was encoded before its 304 check)
        response = encode(response, environ.get("HTTP_ACCEPT_ENCODING"))
        vary = response.headers.pop("Vary", None)
        response.headers.extend(self.sent_headers(environ, vary, public=request.page))
        return response(environ, start_response)

    def refuse(
        self, environ: WSGIEnvironment, start_response: StartResponse, error: RestError
    ) -> t.Iterable[bytes]:
        """A request a rate limit refuses: its 429, with no routing and no query."""
        response = self.dispatcher.refusal(error, self.request(environ, None, 0))
        response.headers.extend(self.sent_headers(environ))
        return response(environ, start_response)

    def answer_hit(
        self,
        environ: WSGIEnvironment,
        start_response: StartResponse,
        hit: CachedResponse,
        current: int,
    ) -> t.Iterable[bytes]:
        """An anonymous cache hit, or its 304, with no routing and no request object,
        in the encoding the request takes (the entry keeps both, ``encoding.py``)."""
        headers, body = hit.headers, hit.body
        environ[CACHE_KEY], environ[ROUTE_KEY] = HIT, hit.route or UNMATCHED
        accept_encoding = environ.get("HTTP_ACCEPT_ENCODING")
        if accept_encoding and hit.compressible and accepts_gzip(accept_encoding):
            headers, body = hit.gzipped()
        vary = header_of(headers, "Vary")
        if environ_not_modified(environ, headers):  # the client's copy is current
            kept = [*validators_of(headers), (CACHE_HEADER, HIT)]
            start_response("304 Not Modified", kept + self.sent_headers(environ, vary))
            return []
        own = [header for header in headers if header[0] != "Vary"]
        own.append((CACHE_HEADER, HIT))
        if self.router is not None:
            own.append((GENERATION_HEADER, str(current)))
        start_response("200 OK", [*own, *self.sent_headers(environ, vary)])
        return [body]

    def gated(self, environ: WSGIEnvironment) -> t.ContextManager[object]:
        """The read gate for a read that goes down the pipeline (``read_gate``)."""
        if self.read_gate is None or environ.get("REQUEST_METHOD") not in SAFE_METHODS:
            return contextlib.nullcontext()
        return self.read_gate

    def sent_headers(
        self, environ: WSGIEnvironment, vary: str | None = None, *, public: bool = False
    ) -> list[tuple[str, str]]:
        """What a response gets on its way out, after the response cache (so no entry
        holds them): ``Date``, WordPress's no-cache headers for an authenticated
        request (not on a ``public`` page, which never reads credentials), the CORS
        headers of its origin and ``Vary: Origin`` (after the response's own ``vary``,
        in one header)."""
        headers = [("Date", http_now())]
        if "HTTP_AUTHORIZATION" in environ and not public:
            headers.append(("Cache-Control", NO_CACHE))
        cors = self.cors.headers(environ)
        if cors or environ.get("REQUEST_METHOD") in SAFE_METHODS:
            headers.append(("Vary", f"{vary}, Origin" if vary else "Origin"))
        elif vary:
            headers.append(("Vary", vary))
        if self.rate_limits is not None:  # what the request's buckets hold
            headers += environ.get(HEADERS_KEY, ())
        return headers + cors

    def request(
        self, environ: WSGIEnvironment, cache_key: tuple[str, ...] | None, generation: int
    ) -> Request:
        """The request object the pipeline reads, its language root split off."""
        return new_request(environ, self.settings.max_body_bytes, cache_key, generation)


def concurrent_reads(setting: int, database: peewee.Database) -> int:
    """``Settings.concurrent_reads`` resolved: -1 is 1 on SQLite, else 0 (unbounded).

    On SQLite a read never waits for anything but the CPU, and Python runs one thread
    at a time: every extra thread only adds hand-offs of the interpreter lock around
    each SQLite call (measured at 100,000 events, 8 threads against 1: a third fewer
    cold lists per second). ``serve`` reads the result: at 1, it gives the anonymous
    reads one thread of their own (``read_lane.py``)."""
    if setting == -1:
        return 1 if isinstance(database, peewee.SqliteDatabase) else 0
    return setting


def read_gate(concurrent: int) -> threading.Semaphore | threading.Lock | None:
    """What bounds the reads one process serves at once to ``concurrent`` (0: nothing).

    The anonymous cache hits answered before routing pass (too short to gain from it),
    and so do writes (they may wait for SQLite's write lock, and must not block reads
    meanwhile); the server's threads still parse, answer those hits and send while one
    read runs.
    """
    if concurrent == 1:
        return threading.Lock()
    return threading.Semaphore(concurrent) if concurrent > 0 else None


def create_app(
    database_url: str | None = None, *, clock: Clock | None = None, **settings: t.Any
) -> Application:
    """Build the WSGI app for ``database_url`` (else ``$CALENDAR_REST_DATABASE_URL``,
    else ``sqlite:///calendar.db``); keyword arguments override :class:`Settings`;
    ``clock`` is where the app reads the time (the system's by default)."""
    resolved = Settings.build(database_url, **settings)
    database = connect_routed(resolved.database_url, resolved.read_database_urls)
    return Application(database, resolved, clock or SYSTEM_CLOCK)


__all__ = ["Application", "create_app", "User"]
