"""Cross-origin requests: who may read what, and who may write (``open-web.md`` §5).

WordPress echoes any ``Origin`` with credentials, which is safe there only because
its cookie authentication also needs a nonce a foreign page cannot get. We
authenticate with HTTP Basic, which browsers attach by themselves once cached, so:

- safe methods (``GET``, ``HEAD``, plain ``OPTIONS``) are readable from any origin
  with ``*`` (never with credentials): public calendars are meant to be embedded;
- the origins of the ``cors_origins`` allow-list get credentials;
- an unsafe method from any other origin is refused before it has any effect (a
  form ``POST`` needs no preflight, and ``_method`` turns it into a ``DELETE``);
- same-origin pages and clients that send no ``Origin`` are served as usual.

The headers are added to each response on its way out, after the response cache,
so no cached entry ever holds an origin's headers.
"""

from __future__ import annotations

import enum
import typing as t
from urllib.parse import urlsplit

from ..settings import normalize_origin

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

#: what a page may read of a response (``Access-Control-Expose-Headers``)
EXPOSED_HEADERS = (
    "X-WP-Total",
    "X-WP-TotalPages",
    "X-TEC-Total",
    "X-TEC-TotalPages",
    "Link",
    "ETag",
    "Last-Modified",
    "Allow",
    "Content-Disposition",
    "X-Calendar-Generation",  # read-your-writes with read replicas (``replicas.py``)
    "X-Calendar-Cache",  # hit or miss of the response cache (``cache.py``)
    "RateLimit-Policy",  # the quotas counted and what is left (``rate_limits.py``)
    "RateLimit",
    "Retry-After",
)
ALLOWED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD")
#: the request headers a page may send (``Access-Control-Allow-Headers``), never ``*``
ALLOWED_HEADERS = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "If-Modified-Since",
    "If-Unmodified-Since",
    "X-HTTP-Method-Override",
    "X-WP-Nonce",
    "Content-Disposition",
    "Content-MD5",
    "X-Calendar-Min-Generation",  # read-your-writes with read replicas (``replicas.py``)
)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: the environ key keeping the method a request came with, before any override
TRANSPORT_METHOD = "calendar_rest.transport_method"


class Origin(enum.Enum):
    """How a request's ``Origin`` relates to the service."""

    ABSENT = "absent"
    LISTED = "listed"
    SAME = "same"
    OTHER = "other"


def transport_method(environ: WSGIEnvironment) -> str:
    """The method the request came with (``POST`` for an overridden one)."""
    return str(environ.get(TRANSPORT_METHOD) or environ.get("REQUEST_METHOD", "GET"))


def is_preflight(environ: WSGIEnvironment) -> bool:
    return (
        environ.get("REQUEST_METHOD") == "OPTIONS"
        and "HTTP_ORIGIN" in environ
        and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in environ
    )


class CorsPolicy:
    """The allow-list and what follows from it for one request."""

    def __init__(self, origins: t.Iterable[str], site_url: str | None) -> None:
        self.origins = frozenset(normalize_origin(origin) for origin in origins)
        self.site_origin = _origin_of(site_url) if site_url else None

    def origin(self, environ: WSGIEnvironment) -> Origin:
        sent = environ.get("HTTP_ORIGIN")
        if sent is None:
            return Origin.ABSENT
        if sent in self.origins:
            return Origin.LISTED
        if sent == self.own_origin(environ):
            return Origin.SAME
        return Origin.OTHER  # ``null`` included: never same-origin, never listed

    def own_origin(self, environ: WSGIEnvironment) -> str:
        """``scheme://Host`` of the request, or the origin of ``site_url``."""
        if self.site_origin is not None:
            return self.site_origin
        host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "")
        return f"{environ.get('wsgi.url_scheme', 'http')}://{host}".lower()

    def refuses(self, environ: WSGIEnvironment) -> bool:
        """Whether this is an unsafe method from an origin that may not write."""
        unsafe = transport_method(environ) not in SAFE_METHODS
        return unsafe and self.origin(environ) is Origin.OTHER

    def headers(self, environ: WSGIEnvironment) -> list[tuple[str, str]]:
        """The ``Access-Control-*`` headers of the response to this request."""
        kind = self.origin(environ)
        if kind is Origin.LISTED:
            headers = [
                ("Access-Control-Allow-Origin", environ["HTTP_ORIGIN"]),
                ("Access-Control-Allow-Credentials", "true"),
                ("Access-Control-Expose-Headers", ", ".join(EXPOSED_HEADERS)),
            ]
            if is_preflight(environ):
                headers += [
                    ("Access-Control-Allow-Methods", ", ".join(ALLOWED_METHODS)),
                    ("Access-Control-Allow-Headers", ", ".join(ALLOWED_HEADERS)),
                ]
            return headers
        if kind is not Origin.OTHER or transport_method(environ) not in SAFE_METHODS:
            return []
        if is_preflight(environ):
            wanted = environ["HTTP_ACCESS_CONTROL_REQUEST_METHOD"].strip().upper()
            if wanted not in ("GET", "HEAD"):
                return []  # the browser stops: this page may not write
            return [
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Allow-Methods", "GET, HEAD"),
                ("Access-Control-Allow-Headers", ", ".join(ALLOWED_HEADERS)),
            ]
        return [
            ("Access-Control-Allow-Origin", "*"),
            ("Access-Control-Expose-Headers", ", ".join(EXPOSED_HEADERS)),
        ]


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
