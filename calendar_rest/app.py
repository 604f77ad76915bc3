"""The WSGI application: one callable owning the database, settings, map and resources.

Request walk: language root → route match → authentication → one connection (and,
for writes, one transaction) → responder → JSON. Every exception leaves through
``_error_response`` as a WordPress JSON error.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
import typing as t

import peewee
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from werkzeug.routing import Map, MapAdapter
from werkzeug.wrappers import Response

from . import models, state
from .auth import authenticate
from .cache import CachedResponse, ResponseCache
from .dates import resolve_timezone
from .db import connect_database, request_scope
from .errors import RestError, no_route
from .http import Request, collect_params, json_response
from .i18n import Translate, translator
from .models import SiteState, User
from .resources import RESOURCE_CLASSES
from .resources.base import Call, Resource
from .routes import ROUTES, build_url_map, endpoint_name
from .settings import DEFAULT_LANGUAGE, LANGUAGES, Settings
from .wire.urls import Urls

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

log = logging.getLogger("calendar_rest")
ROUTE_SPECS = {endpoint_name(spec): spec for spec in ROUTES}
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: a write that loses a race on a unique key is retried this many times
WRITE_ATTEMPTS = 5


class Application:
    """The WSGI callable. Build it with :func:`create_app`."""

    def __init__(self, database: peewee.Database, settings: Settings) -> None:
        self.database = database
        self.settings = settings
        self.site_zone = resolve_timezone(settings.timezone)
        self.cache = ResponseCache(settings.cache_entries) if settings.cache_entries else None
        models.bind_models(database)
        self._generation_sql = (
            SiteState.select(SiteState.value).where(SiteState.key == state.GENERATION).sql()
        )
        self.url_map: Map = build_url_map()
        self.resources: dict[str, Resource] = {
            name: resource_class(settings) for name, resource_class in RESOURCE_CLASSES.items()
        }
        unserved = {spec.resource for spec in ROUTES} - set(self.resources)
        if unserved:
            raise LookupError(f"routes name resources without a class: {sorted(unserved)}")

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> t.Iterable[bytes]:
        return self.wsgi_app(environ, start_response)

    def wsgi_app(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> t.Iterable[bytes]:
        models.bind_models(self.database)
        cache_key = _cache_key(environ)
        if self.cache is not None and "HTTP_AUTHORIZATION" not in environ:
            hit = self._cached(cache_key, 0)
            if hit is not None:  # anonymous hit: no routing, no request object
                start_response("200 OK", list(hit.headers))
                return [hit.body]
        language = split_language_root(environ)
        request = Request(environ)
        request.max_content_length = self.settings.max_body_bytes
        request.language = language
        request.reply_language = self.language_of(request, request.args)
        request.cache_key = cache_key
        response = self.dispatch_request(request)
        return response(environ, start_response)

    def _cached(self, cache_key: tuple[str, ...] | None, user_id: int) -> CachedResponse | None:
        """The cached response for this URL and user, if no write happened since."""
        if cache_key is None or self.cache is None:
            return None
        key = (cache_key, user_id, self.site_today())
        with self.database.connection_context():
            return self.cache.get(key, self.generation())

    def dispatch_request(self, request: Request) -> Response:
        try:
            return self._dispatch(request)
        except RestError as exc:
            error = exc
        except peewee.DataError:
            # A value the database refused (out of range, too long): the client's input.
            log.info("database refused a value on %s %s", request.method, request.path)
            error = RestError("rest_invalid_param", 400, "body")
        except Exception:  # noqa: BLE001 - the last line of defence must catch all
            log.exception("unhandled error on %s %s", request.method, request.path)
            error = RestError("rest_internal_error", 500)
        return _error_response(error, translator(request.reply_language))

    def _dispatch(self, request: Request) -> Response:
        adapter = self.url_map.bind_to_environ(request.environ)
        endpoint, values = _match(adapter, request)
        resource_name, shape = endpoint.split(".")
        responder = self.resources[resource_name].responder(request.method, shape)
        if responder is None:
            raise no_route()
        write = request.method in WRITE_METHODS
        urls = self.urls_for(request)
        if not write:
            with request_scope(self.database, write=False):
                return self._read(request, responder, endpoint, values, urls)
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                with request_scope(self.database, write=True):
                    # First statement of every write: the row lock it takes queues
                    # writers (as SQLite's IMMEDIATE does), so unique slugs are chosen
                    # one writer at a time on every backend; a failure rolls it back.
                    state.bump_generation()
                    user = authenticate(request.headers.get("Authorization"))
                    return self._respond(request, user, responder, endpoint, values, urls)
            except (peewee.IntegrityError, peewee.OperationalError) as exc:
                # A concurrent writer won a unique-key race or a lock (MySQL deadlock,
                # SQLite busy): the transaction was rolled back whole, so replay it.
                if not _is_transient(exc):
                    raise
                if attempt == WRITE_ATTEMPTS:
                    log.warning("write conflict on %s %s: %s", request.method, request.path, exc)
                    raise RestError("rest_conflict", 409) from None
                time.sleep(0.01 * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _read(
        self,
        request: Request,
        responder: t.Callable[..., Response],
        endpoint: str,
        values: t.Mapping[str, t.Any],
        urls: Urls,
    ) -> Response:
        """A read, answered from the response cache while no write happened since."""
        user = authenticate(request.headers.get("Authorization"))
        if self.cache is None or request.cache_key is None or not cacheable(request):
            return self._respond(request, user, responder, endpoint, values, urls)
        generation = self.generation()
        key = (request.cache_key, user.id if user else 0, self.site_today())
        hit = self.cache.get(key, generation)
        if hit is not None:
            return Response(hit.body, status=hit.status, headers=list(hit.headers))
        response = self._respond(request, user, responder, endpoint, values, urls)
        if response.status_code == 200:
            body = response.get_data()
            self.cache.put(key, generation, CachedResponse(200, tuple(response.headers), body))
        return response

    def _respond(
        self,
        request: Request,
        user: User | None,
        responder: t.Callable[..., Response],
        endpoint: str,
        values: t.Mapping[str, t.Any],
        urls: Urls,
    ) -> Response:
        params = collect_params(request)
        resource_name, shape = endpoint.split(".")
        schema = self.resources[resource_name].schema_for(request.method, shape)
        request.reply_language = self.language_of(request, params)
        call = Call(request, user, params, urls, request.reply_language, schema)
        response = responder(call, **values)
        response.headers["Allow"] = self.allowed_methods(endpoint, user)
        return response

    def allowed_methods(self, endpoint: str, user: User | None) -> str:
        """WordPress's ``Allow`` header: the route's methods this user may call at all."""
        spec = ROUTE_SPECS[endpoint]
        resource = self.resources[spec.resource]
        return ", ".join(method for method in spec.methods if resource.may_call(method, user))

    def generation(self) -> int:
        """The database's write generation: one primary-key read with prepared SQL."""
        row = self.database.execute_sql(*self._generation_sql).fetchone()
        return int(row[0]) if row else 0

    def site_today(self) -> dt.date:
        """The site's current date: default windows and relative dates depend on it."""
        return dt.datetime.now(self.site_zone).date()

    def urls_for(self, request: Request) -> Urls:
        site = self.settings.site_url or request.host_url.rstrip("/") + request.script_root
        if (
            request.language != DEFAULT_LANGUAGE
            and request.script_root.endswith(f"/{request.language}")
            and not self.settings.site_url
        ):
            site = site[: -len(request.language) - 1]
        prefix = "" if request.language == DEFAULT_LANGUAGE else f"/{request.language}"
        return Urls(site.rstrip("/"), prefix)

    @staticmethod
    def language_of(request: Request, params: t.Mapping[str, t.Any]) -> str:
        """``i18n_language`` when it names a language, else the root's language (an
        invalid value is refused by the argument set, in the root's language)."""
        wanted = params.get("i18n_language")
        return wanted if isinstance(wanted, str) and wanted in LANGUAGES else request.language


#: date parameters whose natural-language values ("+1 hour") depend on the clock
DATE_PARAMS = ("start_date", "end_date", "starts_before", "starts_after", "ends_before",
               "ends_after")
ABSOLUTE_DATE = re.compile(r"^[\d\s:T.+\-Z/]*$")


def _cache_key(environ: WSGIEnvironment) -> tuple[str, ...] | None:
    """What identifies a GET's response, read off the raw environ (before the language
    root is split off); None for other methods."""
    if environ.get("REQUEST_METHOD") != "GET":
        return None
    return (
        environ.get("wsgi.url_scheme", ""),
        environ.get("HTTP_HOST", ""),
        environ.get("SCRIPT_NAME", ""),
        environ.get("PATH_INFO", ""),
        environ.get("QUERY_STRING", ""),
    )


def cacheable(request: Request) -> bool:
    """GETs are cacheable unless a date parameter is relative to the current time."""
    return all(
        ABSOLUTE_DATE.match(value)
        for name in DATE_PARAMS
        for value in request.args.getlist(name)
    )


def split_language_root(environ: WSGIEnvironment) -> str:
    """Serve ``/fr/...`` as the French root: move ``/fr`` from PATH_INFO to SCRIPT_NAME,
    the way ``DispatcherMiddleware`` mounts an app."""
    path = environ.get("PATH_INFO", "")
    for language in LANGUAGES:
        prefix = f"/{language}"
        if language != DEFAULT_LANGUAGE and (path == prefix or path.startswith(prefix + "/")):
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + prefix
            environ["PATH_INFO"] = path[len(prefix) :]
            return language
    return DEFAULT_LANGUAGE


def _match(adapter: MapAdapter, request: Request) -> tuple[str, t.Mapping[str, t.Any]]:
    """Match with the trailing slash ignored; wrong paths and methods are both 404."""
    path = request.path
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    try:
        endpoint, values = adapter.match(path, method=request.method)
    except (NotFound, MethodNotAllowed):
        raise no_route() from None
    except HTTPException:
        raise no_route() from None
    return str(endpoint), values


def _is_transient(exc: peewee.PeeweeException) -> bool:
    """Unique-key races, deadlocks and lock time-outs: failures a replay can fix."""
    if isinstance(exc, peewee.IntegrityError):
        return True
    text = str(exc).lower()
    return any(sign in text for sign in ("deadlock", "lock wait", "database is locked", "1213"))


def _error_response(error: RestError, translate: Translate) -> Response:
    return json_response(
        error.body(translate), status=error.status, headers=error.headers.items()
    )


def create_app(database_url: str | None = None, **settings: t.Any) -> Application:
    """Build the WSGI app for ``database_url`` (else ``$CALENDAR_REST_DATABASE_URL``,
    else ``sqlite:///calendar.db``); keyword arguments override :class:`Settings`."""
    resolved = Settings.build(database_url, **settings)
    database = connect_database(resolved.database_url)
    models.bind_models(database)
    return Application(database, resolved)


__all__ = ["Application", "create_app", "User"]
