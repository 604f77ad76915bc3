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
6. the responder. A write's responder runs twice: first its checks only, on a
   read-only connection, up to ``call.begin_write()``; then, once they passed, whole
   in one write transaction, with the parameters the checks validated and what they
   prepared (``Call.prepared``): what depends on the request alone is not done again
   while other writers wait. Its first statement locks the record it names (writes of
   one record queue; on SQLite every write does), its last takes its position in the
   change log (``repository.changes``). A refused write takes no lock; a write that
   loses a race is replayed whole.

The :class:`Reply` is serialised once, with ``Allow``; a 200 to a read gets its
``ETag`` (and a record's ``Last-Modified``) there, so every route has them, and a
client's matching copy gets a 304 (``conditional.py``). A conditional write on one
record compares its tag with what this caller would GET there now, after the route's
own existence and permission checks but before the body is validated, and again in
the write transaction, behind the record's lock. Every exception leaves through
:meth:`Dispatcher.handle` as a WordPress JSON error.
"""

from __future__ import annotations

import functools
import logging
import time
import typing as t

import peewee
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter
from werkzeug.sansio.utils import get_content_length

from ..caching.memo import Memo
from ..clock import Clock
from ..db import connected, is_transient, read_only_scope, request_scope
from ..describe.options import OptionsResponder
from ..errors import ParamErrors, RestError, bad_param, forbidden, no_route
from ..i18n.catalogs import translator
from ..media_types import negotiate
from ..models import User
from ..queries.lists.counts import CountCache
from ..repository.changes import collecting_changes
from ..repository.record_locks import lock_written_record
from ..resources import RESOURCE_CLASSES
from ..resources.base import Arguments, Call, ReadyToWrite, copied
from ..routes import Route, build_url_map, route_table
from ..settings import Settings
from ..wire.fields import only_fields, requested_fields
from ..wordpress.php_params import php_params
from .answer import Answer
from .auth import Authenticator
from .cache import CachedResponse, ReadCache, cacheable
from .conditional import (
    Current,
    NotModified,
    Preconditions,
    not_modified,
    precondition_failed,
    validators_of,
)
from .cors import CorsPolicy, is_preflight
from .http import (
    Request,
    collect_params,
    drain_body,
    enveloped,
    json_response,
    reply_language,
    reply_response,
    urls_for,
)
from .outbox import Outbox
from .tagging import SINGLE_SHAPES, Record, record_of, validators
from .targets import Target, bind_targets

log = logging.getLogger("calendar_rest")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DISCOVERY_REL = "https://api.w.org/"
#: methods answered by another method's target: HEAD is a GET without its body
#: (Werkzeug's response drops the body of a HEAD request and keeps its headers)
SERVED_AS = {"HEAD": "GET"}
#: a write that loses a race on a unique key is retried this many times
WRITE_ATTEMPTS = 5
#: read query strings kept validated (``Dispatcher.parameters``), up to this length each
VALIDATED_KEPT = 1024
KEPT_QUERY_LENGTH = 512
#: paths whose route match is kept (``Dispatcher.matched``), up to this length each
MATCHES_KEPT = 4096
MATCHED_PATH_LENGTH = 256
Values = t.Mapping[str, t.Any]
READ_METHODS = frozenset({"GET", "HEAD"})
#: the body and record of a GET a write's answer carries the tag of
Shown = tuple[bytes, Record | None]


class _Refused(Exception):
    """Parameters that did not validate: what ``Dispatcher.parameters`` does not keep."""

    def __init__(self, params: dict[str, t.Any], arguments: Arguments) -> None:
        super().__init__()
        self.params = params
        self.arguments = arguments


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
    ) -> None:
        self.database = database
        self.settings = settings
        self.clock = clock
        self.cache = cache
        self.cors = cors
        self.authenticator = Authenticator(database, settings, clock)
        self.routes = route_table(RESOURCE_CLASSES)
        self.url_map = build_url_map(self.routes)
        #: bound once: rules match paths alone (no host, scheme or method), and a
        #: match changes no state, so every thread shares it
        self.adapter: MapAdapter = self.url_map.bind("localhost")
        #: a path's match, kept: matching walks the map's state machine in Python, and
        #: the same paths come again and again (a path names at most one record)
        self.matched = functools.lru_cache(maxsize=MATCHES_KEPT)(self._match_path)
        self.routes_by_key = {route.key: route for route in self.routes}
        self.resources = {
            name: cls(settings, self.routes) for name, cls in RESOURCE_CLASSES.items()
        }
        self.targets = bind_targets(self.routes, self.resources)
        self.outbox = Outbox(self.targets)
        self.options = OptionsResponder(settings)
        self.counts = CountCache(settings.count_cache_entries)
        #: query strings of reads that validated, per argument set (``parameters``)
        self.validated: Memo[tuple[t.Any, str], tuple[dict[str, t.Any], dict[str, t.Any]]] = Memo(
            VALIDATED_KEPT
        )

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
        if "_envelope" in request.args:
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
        if request.method == "OPTIONS":
            return self.answer_options(request, route, values)
        target = self.targets.get((route.key, SERVED_AS.get(request.method, request.method)))
        if target is None:
            raise no_route()
        user = self.authenticate(request)
        if request.method in WRITE_METHODS:
            return self.write(request, target, values, user)
        with request_scope(self.database, write=False):
            return self.read(request, target, values, user)

    def match(self, request: Request) -> tuple[Route, Values]:
        """Step 3: the route of the path (a trailing slash ignored, as WordPress does)."""
        path = request.path
        if len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
        match = self.matched if len(path) <= MATCHED_PATH_LENGTH else self._match_path
        key, values = match(path)
        return self.routes_by_key[key], dict(values)

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
            request.allow = self.allowed(route, values, user)
        urls = urls_for(request, self.settings.site_url)
        response = json_response(self.options.body(route, urls, request.reply_language))
        return self.discoverable(response, request)

    def authenticate(self, request: Request) -> User | None:
        """Step 3: the caller, once, on its own connection (a failed login is counted
        in a transaction of its own, apart from the request's)."""
        header = request.environ.get("HTTP_AUTHORIZATION")
        if not header:
            return None
        with connected(self.database, self.authenticator.store):
            return self.authenticator.authenticate(header, request.remote_addr or "")

    def read(self, request: Request, target: Target, values: Values, user: User | None) -> Answer:
        """A read, answered from the response cache while no write happened since, and
        with a 304 when the client's copy is current."""
        return self.revalidated(request, self.fetch(request, target, values, user))

    def fetch(self, request: Request, target: Target, values: Values, user: User | None) -> Answer:
        if (
            self.cache is None
            or request.cache_key is None
            or not cacheable(request.args)
            or not target.resource.cacheable
        ):
            request.allow = self.allowed(target.route, values, user)
            return self.respond(request, self.admit(request, target, values, user), target)
        key = self.cache.key(request.cache_key, user.id if user else 0)
        hit = self.cache.get(key, request.generation)
        if hit is not None:  # its headers hold its ``Allow``
            request.allow = ""
            return Answer.replayed(hit.body, hit.status, hit.headers)
        request.allow = self.allowed(target.route, values, user)
        response = self.respond(request, self.admit(request, target, values, user), target)
        if response.status_code == 200:  # stamped with the generation read before it
            cached = CachedResponse(200, tuple(response.headers), response.get_data())
            self.cache.store(key, request.generation, cached)
        return response

    def write(self, request: Request, target: Target, values: Values, user: User | None) -> Answer:
        """Steps 4 to 6 of a write: checks without a lock, then the write; the
        preconditions of a single record's write are evaluated in both."""
        single = target.route.spec.shape in SINGLE_SHAPES
        conditions = Preconditions.of(request.headers) if single else None
        with read_only_scope(self.database):
            request.allow = self.allowed(target.route, values, user)
            pending = conditions is not None
            if conditions is not None:
                pending = not self.precheck(request, target, values, user, conditions)
            checked = self.admit(request, target, values, user)
            checked.checking = True
            try:
                return self.tagged(*self.written(request, checked, target))  # nothing written
            except ReadyToWrite:
                pass
            if conditions is not None and pending:
                current = self.representation(request, target.route, values, user)
                self.require(conditions, current)
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                with request_scope(self.database, write=True), collecting_changes() as changes:
                    if single:  # writes of one record queue here, writes of others do not
                        lock_written_record(target.route.spec.resource, values)
                    if conditions is not None:  # again, now that writers of it queue behind us
                        current = self.representation(request, target.route, values, user)
                        self.require(conditions, current)
                    target.resource.path_errors(values).raise_if_any()  # it may be gone
                    call = checked.again()  # validated and prepared before the lock
                    response, shown = self.written(request, call, target)
                    self.outbox.enqueue_changes(changes.entries, call.urls, self.clock)
                    # the last step: from here to the commit, other writers queue
                    request.generation = changes.commit(self.clock.now())
                    return self.tagged(response, shown)
            except (peewee.IntegrityError, peewee.OperationalError) as exc:
                # A concurrent writer won a unique-key race or a lock (a deadlock,
                # SQLite busy): the transaction was rolled back whole, so replay it.
                if not is_transient(exc):
                    raise
                if attempt == WRITE_ATTEMPTS:
                    log.warning("write conflict on %s %s: %s", request.method, request.path, exc)
                    raise RestError("rest_conflict", 409) from None
                time.sleep(0.01 * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def revalidated(request: Request, response: Answer) -> Answer:
        """A 304 for a 200 whose validators match ``If-None-Match`` (else
        ``If-Modified-Since``); ``_envelope`` always answers its 200."""
        if response.status_code != 200 or "_envelope" in request.args:
            return response
        environ = request.environ
        if not not_modified(
            environ.get("HTTP_IF_NONE_MATCH"),
            environ.get("HTTP_IF_MODIFIED_SINCE"),
            response.headers.get("ETag"),
            response.headers.get("Last-Modified"),
        ):
            return response
        return NotModified(validators_of(response.headers.items()))

    def precheck(
        self,
        request: Request,
        target: Target,
        values: Values,
        user: User | None,
        conditions: Preconditions,
    ) -> bool:
        """A write's preconditions, before its body is validated (a stale tag is a 412
        even with an invalid body), once the caller may write here: returns whether
        they were evaluated, else the responder's checks answer first (401, 403, 404,
        410) and they are evaluated when those pass.

        :raises RestError: 412, also for ``If-Match`` on a record that does not exist.
        """
        if user is None or not target.resource.may_call(request.method, user):
            return False  # ``admit`` answers: 401, or this caller's 400/403
        current = self.representation(request, target.route, values, user)
        if not current.exists and conditions.if_match is not None:
            raise precondition_failed()
        if not current.exists or request.method not in request.allow.split(", "):
            return False
        self.require(conditions, current)
        return True

    @staticmethod
    def require(conditions: Preconditions, current: Current) -> None:
        """:raises RestError: 412 when a precondition fails."""
        if not conditions.hold(current):
            raise precondition_failed()

    def representation(
        self, request: Request, route: Route, values: Values, user: User | None
    ) -> Current:
        """What this caller would GET at ``route`` now (the request's query string
        applies, its body does not): the tag a conditional write is compared with."""
        try:
            rendered = self.render_get(request, route, values, user, tag=True)
        except RestError as exc:  # no representation for this caller
            return Current(exists=exc.status != 404)
        if rendered is None:
            return Current(exists=False)
        headers = rendered[0].headers
        return Current(True, headers.get("ETag"), headers.get("Last-Modified"))

    def shown(
        self, request: Request, route: Route, values: Values, user: User | None
    ) -> Shown | None:
        """The body and record of a 200 this caller would GET at ``route`` now, untagged
        (the tag waits for the write's position); None where that GET fails."""
        try:
            rendered = self.render_get(request, route, values, user, tag=False)
        except RestError:
            return None
        if rendered is None or rendered[0].status_code != 200:
            return None
        record = rendered[1]  # its revision is the write's, read once it has its position
        return rendered[0].get_data(), record._replace(revision=None) if record else None

    def render_get(
        self, request: Request, route: Route, values: Values, user: User | None, *, tag: bool
    ) -> tuple[Answer, Record | None] | None:
        """The route's GET for this caller (None: the route has none, or its path names
        no record).

        :raises RestError: the GET's refusal.
        """
        target = self.targets.get((route.key, "GET"))
        if target is None or target.resource.path_errors(values):
            return None
        query = tuple(request.args.items(multi=True))
        params = php_params(query, target.repeatable)
        arguments = Arguments.load(target.schema, params)
        if not target.collects_errors:
            arguments.refuse_invalid()
        call = Call(
            user=user,
            params=params,
            arguments=arguments,
            urls=urls_for(request, self.settings.site_url),
            language=reply_language(params, request.language),
            clock=self.clock,
            values=values,
            query=query,
        )
        return self.render("GET", call, target, tag=tag)

    def admit(self, request: Request, target: Target, values: Values, user: User | None) -> Call:
        """Steps 4 and 5: the route-level permission around the parameters, merged and
        validated once; the call the responder receives."""
        resource, method = target.resource, SERVED_AS.get(request.method, request.method)
        path_errors = resource.path_errors(values)
        allowed = resource.may_call(method, user)
        if not allowed and not path_errors and (user is None or resource.permission_first):
            raise forbidden(user is not None)  # before the body is even parsed
        params, arguments = self.parameters(request, target)
        request.reply_language = reply_language(params, request.language)
        if path_errors:
            path_errors.update(arguments.errors)
            path_errors.raise_if_any()
        if not target.collects_errors or not allowed:
            arguments.refuse_invalid()
        if not allowed:
            raise forbidden(user is not None)
        return Call(
            user=user,
            params=params,
            arguments=arguments,
            urls=urls_for(request, self.settings.site_url),
            language=request.reply_language,
            clock=self.clock,
            values=values,
            query=tuple(request.args.items(multi=True)),
            media_type=request.media_type,
            counts=self.counts,
            # a write reads what it has written: nothing counted before it may answer it
            generation=request.generation if request.method in READ_METHODS else None,
        )

    def parameters(self, request: Request, target: Target) -> tuple[dict[str, t.Any], Arguments]:
        """Step 5: the request's parameters, merged, and their validation.

        A read's parameters are its query string alone, and validating them reads
        neither the clock nor the database (a relative date is kept as written): so a
        query string that validated is kept with what it gave (``marshmallow`` takes
        about a tenth of a filtered list's time), and each request gets its own copy.
        """
        query = request.environ.get("QUERY_STRING", "")
        if (
            request.method not in READ_METHODS
            or len(query) > KEPT_QUERY_LENGTH
            or (query and not cacheable(request.args))
        ):
            params = collect_params(request, target.repeatable)
            return params, Arguments.load(target.schema, params)

        def validated() -> tuple[dict[str, t.Any], dict[str, t.Any]]:
            params = collect_params(request, target.repeatable)
            arguments = Arguments.load(target.schema, params)
            if arguments.errors:
                raise _Refused(params, arguments)  # answered at once, never kept
            return params, arguments.valid

        try:
            params, valid = self.validated.get((target.schema, query), validated)
        except _Refused as refused:
            return refused.params, refused.arguments
        return copied(params), Arguments(target.schema, copied(valid), ParamErrors())

    def respond(self, request: Request, call: Call, target: Target) -> Answer:
        """Step 6: the responder's answer, with ``Allow`` and the discovery link."""
        response, _ = self.render(request.method, call, target)
        response.headers["Allow"] = request.allow
        if request.negotiated:  # kept with the cached entry
            response.headers["Vary"] = "Accept"
        return self.discoverable(response, request)

    def written(self, request: Request, call: Call, target: Target) -> tuple[Answer, Shown | None]:
        """A write's answer, and what a GET of the same URL (of a created record's item
        route) by this caller shows right after, where that GET succeeds: the answer's
        ``ETag`` is taken from it once the write has its position (:meth:`tagged`)."""
        response, record = self.render(request.method, call, target)
        shown = None
        if response.status_code < 300 and record is not None:
            at = self.shown_at(target, call, record)
            shown = self.shown(request, *at, call.user) if at else None
            if record.last_modified:
                response.headers["Last-Modified"] = record.last_modified
        response.headers["Allow"] = request.allow
        return self.discoverable(response, request), shown

    @staticmethod
    def tagged(response: Answer, shown: Shown | None) -> Answer:
        """The answer with the ``ETag`` of what it shows, which covers the record's
        revision: the position its write has just taken."""
        if shown is not None:
            response.headers["ETag"] = validators(*shown)[0][1]
        return response

    def shown_at(self, target: Target, call: Call, record: Record) -> tuple[Route, Values] | None:
        """Where a GET shows the record a write answered with: the same URL, or the
        item route of a created record."""
        if target.route.spec.shape in SINGLE_SHAPES:
            return target.route, call.values
        item = self.routes_by_key.get(f"{target.route.spec.resource}.item")
        return (item, {"id": record.id}) if item is not None and record.id is not None else None

    def render(
        self, method: str, call: Call, target: Target, *, tag: bool = True
    ) -> tuple[Answer, Record | None]:
        """The responder's reply, reduced to the ``_fields`` asked for and serialised
        once; a 200 to a read gets its validators (unless ``tag`` is false), computed
        from the exact bytes."""
        reply = target.responder(call, **call.values)
        record = record_of(target.route.spec, method, reply)
        names = requested_fields(call.query)
        if names and reply.status < 300 and reply.content_type is None:
            spec = target.route.spec
            listed = spec.shape == "collection" and method in READ_METHODS
            reply.body = only_fields(reply.body, names, spec.resource if listed else None)
        response = reply_response(reply)
        if tag and reply.status == 200 and method in READ_METHODS:
            response.headers.extend(validators(response.get_data(), record))
        return response, record

    def discoverable(self, response: Answer, request: Request) -> Answer:
        """Add the link to the REST index (``rel="https://api.w.org/"``), as WordPress
        does on every response, after any paging links."""
        root = urls_for(request, self.settings.site_url).api_root
        link = f'<{root}>; rel="{DISCOVERY_REL}"'
        paging = response.headers.get("Link")
        response.headers["Link"] = f"{paging}, {link}" if paging else link
        return response

    def allowed(self, route: Route, values: Values, user: User | None) -> str:
        """The ``Allow`` header: the route's methods this caller may call, on this
        record for an item route (WordPress's ``rest_send_allow_header``)."""
        resource = self.resources[route.spec.resource]
        return ", ".join(resource.allowed_methods(route, values, user))

    def error_response(self, error: RestError, request: Request) -> Answer:
        translate = translator(request.reply_language)
        response = json_response(error.body(translate), error.status, error.headers.items())
        return self.discoverable(response, request)
