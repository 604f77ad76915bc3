"""The request and the response, the WordPress way.

WordPress merges parameters from the JSON body, the form body and the query string
(that precedence), reads PHP-style ``name[]=`` keys as lists, and answers malformed
JSON with ``rest_invalid_json``. A request comes in through a language root (``/fr``
is French) and its links follow the mount point; a response is a :class:`Reply`
serialised once, with the headers WordPress adds to every answer.
"""

from __future__ import annotations

import functools
import time
import typing as t
from urllib.parse import parse_qs

import orjson
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.http import http_date
from werkzeug.sansio.utils import get_current_url, get_host
from werkzeug.wrappers import Request as BaseRequest

from ..errors import RestError
from ..media_types import JSON
from ..settings import DEFAULT_LANGUAGE, LANGUAGES
from ..wire.reply import Reply
from ..wordpress.php_params import Params, php_params
from ..wordpress.urls import Urls
from .answer import Answer
from .cors import TRANSPORT_METHOD

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

JSON_CONTENT_TYPE = "application/json; charset=UTF-8"
BASE_HEADERS = (("X-Robots-Tag", "noindex"), ("X-Content-Type-Options", "nosniff"))
#: the public pages and their static files are for search engines too
PAGE_BASE_HEADERS = (("X-Content-Type-Options", "nosniff"),)
PAGE_CONTENT_TYPES = ("text/html", "text/css")
#: headers that describe the transport, kept outside an ``_envelope``
TRANSPORT_HEADERS = frozenset(
    {"Content-Type", "Content-Length", "Vary", *(name for name, _ in BASE_HEADERS)}
)
#: ``wp_get_nocache_headers()``: what every answer to an authenticated request carries
NO_CACHE = "no-cache, must-revalidate, max-age=0, no-store, private"
#: the methods whose body holds parameters (a DELETE's body is ignored, open-web.md §6)
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class Request(BaseRequest):
    """Werkzeug request with the language and cache identity the app works out."""

    #: the language of the root the request came through (``/fr/...`` is French)
    language: str = DEFAULT_LANGUAGE
    #: the language texts are answered in: ``i18n_language`` when valid, else the root's
    reply_language: str = DEFAULT_LANGUAGE
    #: the response-cache identity of a GET (see ``cache.request_key``)
    cache_key: tuple[str, ...] | None = None
    #: the write generation read when the request came in (what cached entries match)
    generation: int = 0
    #: the largest body served (``max_body_bytes``)
    body_limit: int = 1_048_576
    #: the ``Allow`` header of the answer, once the route is known ("" before)
    allow: str = ""
    #: the route offers several media types (``Accept`` decides, ``Vary: Accept``)
    negotiated: bool = False
    #: the media type the answer is in (``media_types.negotiate`` on such routes)
    media_type: str = JSON
    #: a public page's route (``site/``): never authenticated, errors as HTML
    page: bool = False

    def limit_body(self, limit: int) -> None:
        """Serve bodies of at most ``limit`` bytes. The stream is cut one byte later:
        Werkzeug stops silently at ``max_content_length`` when no length is declared
        (a chunked body), so the byte past the limit is what shows the body too long."""
        self.body_limit = limit
        self.max_content_length = limit + 1


def apply_method_override(environ: WSGIEnvironment) -> None:
    """Serve a ``POST`` as the method its ``_method`` query parameter, else its
    ``X-HTTP-Method-Override`` header, names (WordPress's global parameter).

    Only ``POST`` is overridden: a ``GET`` that deletes could be fired by an image tag.
    The transport method is kept for the CORS check (``cors.TRANSPORT_METHOD``).
    """
    if environ.get("REQUEST_METHOD") != "POST":
        return
    query = environ.get("QUERY_STRING", "")
    wanted = parse_qs(query).get("_method", [""])[-1] if "_method" in query else ""
    wanted = wanted or environ.get("HTTP_X_HTTP_METHOD_OVERRIDE", "")
    if wanted.strip():
        environ[TRANSPORT_METHOD] = "POST"
        environ["REQUEST_METHOD"] = wanted.strip().upper()


def new_request(
    environ: WSGIEnvironment,
    body_limit: int,
    cache_key: tuple[str, ...] | None = None,
    generation: int = 0,
) -> Request:
    """The request object the pipeline reads, its language root split off (a request
    as it came in, or one item of a batch)."""
    language = split_language_root(environ)
    request = Request(environ)
    request.limit_body(body_limit)
    request.language = language
    if environ.get("QUERY_STRING"):  # else no i18n_language: no query to parse
        request.reply_language = reply_language(request.args, language)
    else:
        request.reply_language = language
    request.cache_key = cache_key
    request.generation = generation
    return request


def http_now() -> str:
    """The ``Date`` header for a response sent now."""
    return _http_date(int(time.time()))


@functools.lru_cache(maxsize=2)
def _http_date(second: int) -> str:
    return http_date(second)  # formatted once a second, not once a response


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


def reply_language(params: t.Mapping[str, t.Any], root_language: str) -> str:
    """``i18n_language`` when it names a language, else the root's (an invalid value is
    refused by the argument set, in the root's language)."""
    wanted = params.get("i18n_language")
    return wanted if isinstance(wanted, str) and wanted in LANGUAGES else root_language


def urls_for(request: Request, site_url: str | None) -> Urls:
    """The link builder of this request: the public ``site_url`` when set, else the
    request's own scheme, host and mount point, without the language root. Worked out
    once per request."""
    urls = request.__dict__.get("_urls")
    if urls is None:
        host_header = request.environ.get("HTTP_HOST")
        if host_header is None:  # HTTP/1.0: the server's own name and port
            urls = _urls(
                site_url, request.scheme, request.host, request.script_root, request.language
            )
        else:
            urls = _urls_for_host(
                site_url, request.scheme, host_header, request.script_root, request.language
            )
        request.__dict__["_urls"] = urls
    return t.cast(Urls, urls)


@functools.lru_cache(maxsize=64)
def _urls_for_host(
    site_url: str | None, scheme: str, host_header: str, script_root: str, language: str
) -> Urls:
    """:func:`_urls` of a ``Host`` header as sent (validated as Werkzeug's
    ``Request.host`` validates it), without making the request work it out."""
    return _urls(site_url, scheme, get_host(scheme, host_header), script_root, language)


@functools.lru_cache(maxsize=64)
def _urls(site_url: str | None, scheme: str, host: str, script_root: str, language: str) -> Urls:
    """:func:`urls_for` of one origin and mount point (Werkzeug's IRI of the host URL
    costs more than a cached response: a server sees few distinct ones, and the cache is
    bounded against clients that send many ``Host`` values)."""
    site = site_url or get_current_url(scheme, host).rstrip("/") + script_root
    if language != DEFAULT_LANGUAGE and script_root.endswith(f"/{language}") and not site_url:
        site = site[: -len(language) - 1]
    prefix = "" if language == DEFAULT_LANGUAGE else f"/{language}"
    return Urls(site.rstrip("/"), prefix)


def json_body(request: Request) -> Params:
    """The decoded JSON object body, ``{}`` if the body is empty or not JSON."""
    if not request.mimetype or not (
        request.mimetype == "application/json" or request.mimetype.endswith("+json")
    ):
        return {}
    raw = read_body(request)
    if not raw.strip():
        return {}
    try:
        decoded = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise RestError("rest_invalid_json", 400) from exc
    if not isinstance(decoded, dict):
        raise RestError("rest_invalid_json", 400)
    return decoded


def read_body(request: Request) -> bytes:
    """The whole body, kept for the form parser.

    :raises RestError: 413 when it passes the limit (a declared length over it was
        refused before; this catches a body without one, counted as it is read).
    """
    try:
        data = request.get_data(cache=True)
    except RequestEntityTooLarge as exc:
        raise RestError("rest_payload_too_large", 413) from exc
    if len(data) > request.body_limit:
        raise RestError("rest_payload_too_large", 413)
    return data


def drain_body(request: Request) -> None:
    """Read what is left of the body (at most the declared length, itself within the
    limit), so that a refusal answered before the body was parsed reaches a client
    still sending it, and a kept-alive connection stays in step."""
    environ = request.environ
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    if not chunked and environ.get("CONTENT_LENGTH", "").strip() in ("", "0"):
        return  # no body was sent
    try:
        while request.stream.read(64 * 1024):
            pass
    except (RequestEntityTooLarge, OSError, ValueError):
        pass  # a broken or oversized stream: the server closes the connection anyway


def collect_params(request: Request, repeatable: t.Container[str] = ()) -> Params:
    """All request parameters merged with WordPress precedence: JSON > form > query;
    the query and the form read as PHP reads them, the values of a ``repeatable``
    parameter united (``php_params``)."""
    params = php_params(request.args.items(multi=True), repeatable)
    if request.method in BODY_METHODS:
        if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            read_body(request)  # counted first; the form is then parsed from memory
            try:
                form = request.form
            except RequestEntityTooLarge as exc:
                raise RestError("rest_payload_too_large", 413) from exc
            params.update(php_params(form.items(multi=True), repeatable))
        else:
            params.update(json_body(request))
    return params


def json_response(
    body: t.Any, status: int = 200, headers: t.Iterable[tuple[str, str]] = ()
) -> Answer:
    """Serialise ``body`` with orjson (key order kept) and add WordPress's headers."""
    response = Answer(orjson.dumps(body), status, BASE_HEADERS, JSON_CONTENT_TYPE)
    for name, value in headers:
        response.headers[name] = value
    return response


def enveloped(response: Answer) -> Answer:
    """``_envelope``: a 200 whose body holds the answer's body, status and own headers
    (WordPress's global parameter); the transport headers stay outside."""
    return json_response(envelope_of(response))


def envelope_of(response: Answer) -> dict[str, t.Any]:
    """``{"body", "status", "headers"}`` of an answer: what ``_envelope`` answers, and
    each item of a batch's answer (``batch.py``)."""
    data = response.get_data()
    headers = {
        name: value for name, value in response.headers.items() if name not in TRANSPORT_HEADERS
    }
    content = orjson.loads(data) if data and response.mimetype == JSON else data.decode() or None
    return {"body": content, "status": response.status_code, "headers": headers}


def reply_response(reply: Reply) -> Answer:
    """The response of ``reply``: its body as JSON, or as given when already serialised
    (``content_type``), with WordPress's headers."""
    if reply.content_type is None:
        return json_response(reply.body, reply.status, reply.headers)
    page = reply.content_type.startswith(PAGE_CONTENT_TYPES)
    base = PAGE_BASE_HEADERS if page else BASE_HEADERS
    response = Answer(reply.body, reply.status, base, reply.content_type)
    for name, value in reply.headers:
        response.headers[name] = value
    return response
