"""Request parameters the WordPress way, and JSON responses.

WordPress merges parameters from the JSON body, the form body and the query string
(that precedence), reads PHP-style ``name[]=`` keys as lists, and answers malformed
JSON with ``rest_invalid_json``. This module does exactly that and nothing more.
"""

from __future__ import annotations

import typing as t

import orjson
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Request as BaseRequest
from werkzeug.wrappers import Response

from .errors import RestError

JSON_CONTENT_TYPE = "application/json; charset=UTF-8"
BASE_HEADERS = (
    ("X-Robots-Tag", "noindex"),
    ("X-Content-Type-Options", "nosniff"),
    (
        "Access-Control-Expose-Headers",
        "X-WP-Total, X-WP-TotalPages, X-TEC-Total, X-TEC-TotalPages, Link",
    ),
    (
        "Access-Control-Allow-Headers",
        "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type",
    ),
)

Params = dict[str, t.Any]


class Request(BaseRequest):
    """Werkzeug request with the language and params the dispatcher works out."""

    #: the language of the root the request came through (``/fr/...`` is French)
    language: str = "en"
    #: the language texts are answered in: ``i18n_language`` when valid, else the root's
    reply_language: str = "en"
    #: the namespace root as mounted, e.g. ``http://host/api/fr/calendar/events/v1``
    rest_base: str = ""
    #: the site root as mounted, e.g. ``http://host/api``
    site_base: str = ""
    #: the response-cache identity of a GET (see ``app._cache_key``)
    cache_key: tuple[str, ...] | None = None


def php_multidict(items: MultiDict[str, str]) -> Params:
    """Read a query string or form the way PHP does: ``a[]=1&a[]=2`` is a list and a
    repeated plain key keeps its last value."""
    params: Params = {}
    for key, values in items.lists():
        if key.endswith("[]"):
            name = key[:-2]
            existing = params.get(name)
            base = existing if isinstance(existing, list) else []
            params[name] = base + list(values)
        else:
            params[key] = values[-1]
    return params


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
    try:
        return request.get_data(cache=True)
    except RequestEntityTooLarge as exc:
        raise RestError("rest_payload_too_large", 413) from exc


def collect_params(request: Request) -> Params:
    """All request parameters merged with WordPress precedence: JSON > form > query."""
    params = php_multidict(request.args)
    if request.method != "GET":
        if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            try:
                form = request.form
            except RequestEntityTooLarge as exc:
                raise RestError("rest_payload_too_large", 413) from exc
            params.update(php_multidict(form))
        else:
            params.update(json_body(request))
    return params


def json_response(
    body: t.Any, status: int = 200, headers: t.Iterable[tuple[str, str]] = ()
) -> Response:
    """Serialise ``body`` with orjson (key order kept) and add WordPress's headers."""
    response = Response(orjson.dumps(body), status=status, content_type=JSON_CONTENT_TYPE)
    for name, value in BASE_HEADERS:
        response.headers[name] = value
    for name, value in headers:
        response.headers[name] = value
    return response
