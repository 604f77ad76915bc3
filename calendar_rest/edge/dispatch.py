"""The request pipeline: one pass down the layers and back up, for every request.

At start-up the route table is bound to resource instances: every route and method
gets its :class:`Target` (the responder and its argument set), so a request is
matched once. Then, in the order of ``security.md`` C1 (the first step that fails
answers, and nothing after it runs):

1. a declared body over ``max_body_bytes`` is a 413, before a byte of it is read;
2. the route and the method (HEAD is served by GET's target; a method the route does
   not serve is ``rest_no_route``, as in WordPress);
3. authentication, once, under the failed-login throttle (``auth.py``);
4. the route-level permission: an anonymous write is a 401 at once; a logged-in
   caller without the capability gets the 400 of invalid parameters (WordPress
   validates first), else a 403, before any record its parameters name is looked up;
5. the parameters, merged once, validated once against the declared argument set;
6. the responder.

Steps 4 to 6 are ``calls.py``; a read takes them in ``reads.py`` (from the response
cache when it can), a write in ``writes.py`` (its checks first, without a lock, then
its transaction), a batch's items one by one in ``batch.py``. The :class:`Reply` is
serialised once, with ``Allow``; a 200 to a read gets its ``ETag`` (and a record's
``Last-Modified``) there, so every route has them, and a client's matching copy gets
a 304 (``conditional.py``). Every exception
leaves through :meth:`Dispatcher.handle` as a WordPress JSON error.
"""

from __future__ import annotations

import functools
import logging
import typing as t

import peewee
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter
from werkzeug.sansio.utils import get_content_length

from ..clock import Clock
from ..db import connected, request_scope
from ..describe.options import OptionsResponder
from ..errors import RestError, bad_param, no_route
from ..i18n.catalogs import translator
from ..media_types import negotiate
from ..models import User
from ..resources import RESOURCE_CLASSES
from ..routes import Route, build_url_map, route_table
from ..settings import Settings
from .answer import Answer
from .auth import Authenticator
from .batch import Batches
from .cache import ReadCache
from .calls import SERVED_AS, Calls, Values
from .client_address import ClientAddresses
from .cors import CorsPolicy, is_preflight
from .http import Request, drain_body, enveloped, json_response, urls_for
from .observing import ROUTE_KEY, USER_KEY
from .outbox import Outbox
from .pages import PAGE_RESOURCE_CLASSES, Pages, PageThrottle, page_routes
from .rate_limits import RateLimits
from .reads import Reads
from .targets import Target, bind_targets
from .writes import Writes

log = logging.getLogger("calendar_rest")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: the resource of ``POST /batch/v1``, served by ``batch.py``
BATCH_RESOURCE = "batch"
#: paths whose route match is kept (``Dispatcher.matched``), up to this length each
MATCHES_KEPT = 4096
MATCHED_PATH_LENGTH = 256


def _declared_length(environ: t.Mapping[str, t.Any]) -> int:
    """Werkzeug's ``content_length`` of the request, or 0 (none declared, or chunked)."""
    declared = environ.get("CONTENT_LENGTH")
    if not declared:
        return 0
    return get_content_length(declared, environ.get("HTTP_TRANSFER_ENCODING")) or 0


class Dispatcher:
    """Routes requests to responders through the steps of the module docstring."""

    def __init__(
        self,
        database: peewee.Database,
        settings: Settings,
        clock: Clock,
        cache: ReadCache | None,
        cors: CorsPolicy,
        addresses: ClientAddresses | None = None,
        rate_limits: RateLimits | None = None,
    ) -> None:
        self.database = database
        self.settings = settings
        self.cors = cors
        #: the client address behind trusted proxies (the login throttle's)
        self.addresses = addresses or ClientAddresses(settings.trusted_proxies)
        #: told whom verified credentials name, so that the next request counts at once
        self.rate_limits = rate_limits
        self.authenticator = Authenticator(database, settings, clock)
        #: the API's routes (what the index and /doc describe), then the pages'
        self.routes = route_table(RESOURCE_CLASSES)
        self.page_routes = page_routes(settings)
        served = self.routes + self.page_routes
        self.url_map = build_url_map(served)
        #: bound once: rules match paths alone (no host, scheme or method), and a
        #: match changes no state, so every thread shares it
        self.adapter: MapAdapter = self.url_map.bind("localhost")
        #: a path's match, kept: matching walks the map's state machine in Python, and
        #: the same paths come again and again (a path names at most one record)
        self.matched = functools.lru_cache(maxsize=MATCHES_KEPT)(self._match_path)
        self.routes_by_key = {route.key: route for route in served}
        #: each route's template, the label of its metrics and its access lines
        self.templates = {route.key: route.rule for route in served}
        classes = {**RESOURCE_CLASSES, **PAGE_RESOURCE_CLASSES}
        self.resources = {name: cls(settings, self.routes) for name, cls in classes.items()}
        self.pages = Pages(settings, self.routes_by_key, database)
        self.targets = bind_targets(served, self.resources)
        self.outbox = Outbox(self.targets)
        self.options = OptionsResponder(settings)
        #: the steps every call takes, holding the clock and the list totals kept
        self.calls = Calls(settings, clock, self.resources)
        self.reads = Reads(settings, self.calls, self.targets, cache)
        self.writes = Writes(database, self.calls, self.reads, self.outbox, self.routes_by_key)
        self.batches = Batches(self)

    # -- the pipeline ----------------------------------------------------------------

    def handle(self, request: Request) -> Answer:
        try:
            response = self._handle(request)
        except RestError as exc:
            response = self.error_response(exc, request)
        except peewee.DataError:
            # A value the database refused (out of range, too long): the client's input.
            log.info("database refused a value on %s %s", request.method, request.path)
            response = self.error_response(bad_param("body"), request)
        except Exception:  # noqa: BLE001 - the last line of defence must catch all
            log.exception("unhandled error on %s %s", request.method, request.path)
            response = self.error_response(RestError("rest_internal_error", 500), request)
        if request.allow and response.status_code != 304:
            response.headers["Allow"] = request.allow
        if response.status_code != 413:
            drain_body(request)  # a refusal reaches a client that sends its whole body
        # A 413's body is left unread. Closing that connection is the server's job: PEP
        # 3333 forbids ``Connection`` to applications (waitress answers 500 to it), and
        # the servers close it themselves (waitress under ``serve`` refuses the
        # declaration before the app runs; Werkzeug's closes every connection).
        if "_envelope" in request.args and not request.page:
            response = enveloped(response)
        if request.negotiated and "Vary" not in response.headers:
            response.headers["Vary"] = "Accept"  # every answer of the route (calendar.md §2.1)
        return response

    def _handle(self, request: Request) -> Answer:
        if _declared_length(request.environ) > self.settings.max_body_bytes:
            raise RestError("rest_payload_too_large", 413)
        if self.cors.refuses(request.environ):
            raise RestError("rest_cors_origin_not_allowed", 403)
        route, values = self.match(request)
        request.allow = "GET"  # an anonymous caller's, until the caller is known
        media_types = route.spec.media_types
        request.negotiated = len(media_types) > 1
        if request.negotiated:
            request.media_type = negotiate(request.environ.get("HTTP_ACCEPT"))
        else:
            request.media_type = media_types[0]
        route, values = self.pages.route_for(route, request, values)
        if request.method == "OPTIONS":
            return self.answer_options(request, route, values)
        target = self.targets.get((route.key, SERVED_AS.get(request.method, request.method)))
        if target is None:
            raise no_route()
        user = None if request.page else self.authenticate(request)  # pages: public
        if request.page and request.method == "POST":
            return self.page_post(request, target, values)
        if target.route.spec.resource == BATCH_RESOURCE:  # its items come down here again
            return self.batches.serve(request, target, values, user)
        if request.method in WRITE_METHODS:
            return self.writes.write(request, target, values, user)
        with request_scope(self.database, write=False):
            return self.reads.read(request, target, values, user)

    def page_post(self, request: Request, target: Target, values: Values) -> Answer:
        """A page's ``POST`` (an event's password form): no write and no cache, the
        caller's address under the login throttle (its counter is the only state
        the form changes, on the throttle's own connection)."""
        with connected(self.database, self.authenticator.store):
            request.allow = self.calls.allowed(target.route, values, None)
            call = self.calls.admit(request, target, values, None)
            address = self.addresses.of(request.environ)
            call.throttle = PageThrottle(self.authenticator, address)
            response, _ = self.calls.render(request.method, call, target)
        return self.calls.discoverable(response, request)

    def match(self, request: Request) -> tuple[Route, Values]:
        """Step 3: the route of the path (a trailing slash ignored, as WordPress does)."""
        path = request.path
        if len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
        match = self.matched if len(path) <= MATCHED_PATH_LENGTH else self._match_path
        key, values = match(path)
        route = self.routes_by_key[key]
        request.environ[ROUTE_KEY] = self.templates[key]
        return route, dict(values)

    def _match_path(self, path: str) -> tuple[str, tuple[tuple[str, t.Any], ...]]:
        try:
            key, values = self.adapter.match(path)
        except HTTPException:
            raise no_route() from None
        return str(key), tuple(values.items())

    def answer_options(self, request: Request, route: Route, values: Values) -> Answer:
        """A plain ``OPTIONS``: 200 with ``Allow`` and the route's description, whatever
        the record (it is looked up for ``Allow`` alone). A CORS preflight ignores the
        credentials (browsers send none): the app adds its headers on the way out."""
        user = None if is_preflight(request.environ) else self.authenticate(request)
        with request_scope(self.database, write=False):
            request.allow = self.calls.allowed(route, values, user)
        urls = urls_for(request, self.settings.site_url)
        response = json_response(self.options.body(route, urls, request.reply_language))
        return self.calls.discoverable(response, request)

    def authenticate(self, request: Request) -> User | None:
        """Step 3: the caller, once, on its own connection (a failed login is counted
        in a transaction of its own, apart from the request's); the rate limits learn
        whom the credentials name (``rate_limits.py``)."""
        header = request.environ.get("HTTP_AUTHORIZATION")
        if not header:
            return None
        user = None
        try:
            with connected(self.database, self.authenticator.store):
                user = self.authenticator.authenticate(header, self.addresses.of(request.environ))
        finally:
            if self.rate_limits is not None:
                self.rate_limits.verified(header, user)
        if user is not None:
            request.environ[USER_KEY] = user.id
        return user

    def refusal(self, error: RestError, request: Request) -> Answer:
        """A refusal before routing (a rate limit's 429), no query run: an HTML page
        where the path is a page's (``/`` for a browser too), else the JSON error."""
        try:
            route, _ = self.match(request)
        except RestError:
            return self.error_response(error, request)
        request.page = self.pages.shows_page(route, request)
        return self.error_response(error, request)

    def error_response(self, error: RestError, request: Request) -> Answer:
        if request.page:
            return self.calls.discoverable(self.pages.error_response(error, request), request)
        translate = translator(request.reply_language)
        response = json_response(error.body(translate), error.status, error.headers.items())
        return self.calls.discoverable(response, request)
