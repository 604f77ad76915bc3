"""The floor: the cheapest WSGI app waitress can serve, for comparison with the real one.

``GET /?size=N`` answers ``200`` with ``N`` bytes of ``x`` as ``application/json``; the
body is built once per size. Served under the same waitress settings as the app, its
figures are what the server, the client and the loopback cost on their own.
"""

from __future__ import annotations

import functools
import typing as t
from urllib.parse import parse_qs

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

#: refuse absurd sizes instead of allocating them
MAX_SIZE = 64 * 1024 * 1024


@functools.lru_cache(maxsize=256)
def body(size: int) -> bytes:
    return b"x" * size


def app(environ: WSGIEnvironment, start_response: StartResponse) -> t.Iterable[bytes]:
    """``size`` from the query string (default 0), clamped to ``0..MAX_SIZE``."""
    try:
        size = int(parse_qs(environ.get("QUERY_STRING", "")).get("size", ["0"])[0])
    except ValueError:
        size = 0
    data = body(min(max(size, 0), MAX_SIZE))
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    )
    return [data]
