"""A response cache that stays correct across processes sharing one database.

Entries are stamped with the database's write generation
(``queries.site_state.generation``), which every write bumps inside its own
transaction. A request reads the current generation once (one primary-key read, at
its start; on SQLite none while ``generation_watch`` says no process committed since)
and only reuses an entry stamped with it, so a write made by any process
invalidates everything every process cached. Entries are also keyed by the site's current date
(default windows start today) and by user (what a user may see differs). An entry holds
both encodings of its answer (:class:`CachedResponse`): the key has no ``Accept-Encoding``.

Each answer whose request looked the cache up says how that went in
``X-Calendar-Cache: hit|miss`` (:data:`CACHE_HEADER`), added on its way out so that no
entry holds it: with many processes the hit rate is what an operator must see (in
access logs, or ``bench/run.py``), and it is per process.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import re
import typing as t

from werkzeug.datastructures import MultiDict

from ..caching.stamped import StampedLRU
from ..clock import Clock
from ..media_types import HTML, negotiate, prefers_html
from .encoding import Encoded, compressible, declare, gzipped

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

Key = tuple[t.Hashable, ...]
#: date parameters whose natural-language values ("+1 hour") depend on the clock
DATE_PARAMS = (
    "start_date",
    "end_date",
    "starts_before",
    "starts_after",
    "ends_before",
    "ends_after",
)
ABSOLUTE_DATE = re.compile(r"^[\d\s:T.+\-Z/]*$")
#: the response header saying whether a cacheable read was served from the cache
CACHE_HEADER = "X-Calendar-Cache"
#: the site root's paths (before the language root is split off), negotiated between
#: its page and its JSON index
SITE_ROOTS = frozenset({"", "/", "/fr", "/fr/"})
HIT, MISS = "hit", "miss"
#: the outcome of the latest :meth:`ReadCache.get` of the request this context serves
_lookup: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "calendar_rest_cache_lookup", default=None
)


class CachedResponse:
    """A kept 200: its identity headers and body and, once a request took gzip, its
    gzip variant (``encoding.py``). One entry holds both encodings: a request's key
    needs no ``Accept-Encoding``, the responder runs once for both, and the anonymous
    fast path finds either with one look-up."""

    __slots__ = ("status", "headers", "body", "compressible", "route", "_gzipped")

    def __init__(
        self,
        status: int,
        headers: tuple[tuple[str, str], ...],
        body: bytes,
        route: str | None = None,
    ) -> None:
        self.status = status
        self.body = body
        #: the route template that answered it, for a hit's metrics and log line
        self.route = route
        #: whether it has a gzip variant (text of ``encoding.MIN_BYTES`` or more)
        self.compressible = compressible(status, headers, body)
        #: its identity headers; a compressible entry's ``Vary`` names
        #: ``Accept-Encoding``, whoever stored it (it is sent to both kinds of request)
        self.headers = declare(headers) if self.compressible else headers
        self._gzipped: Encoded | None = None

    def gzipped(self) -> Encoded:
        """The gzip variant, compressed on first use and kept (two threads that race
        here compress the same bytes to the same result)."""
        encoded = self._gzipped
        if encoded is None:
            encoded = self._gzipped = gzipped(self.headers, self.body)
        return encoded

    def weight(self) -> int:
        """Its bytes in the cache's bound: the identity body, and room for a gzip
        variant (text compresses 4x or more: a quarter of the body bounds it)."""
        size = len(self.body)
        return size + size // 4 if self.compressible else size


class ResponseCache(StampedLRU[Key, CachedResponse]):
    """Response bodies, bounded by entries and by bytes (a body over a quarter of the
    byte bound is never kept)."""

    def __init__(self, max_entries: int = 2048, max_bytes: int = 64 * 1024 * 1024) -> None:
        super().__init__(max_entries, max_bytes, CachedResponse.weight)
        self.max_bytes = max_bytes

    def put(self, key: Key, generation: int, response: CachedResponse) -> None:
        if len(response.body) <= self.max_bytes // 4:
            super().put(key, generation, response)


class ReadCache:
    """The app's cache of GET responses: keyed by URL, user and the site's date,
    valid while the write generation is unchanged."""

    def __init__(self, entries: int, clock: Clock, zone: dt.tzinfo) -> None:
        self.responses = ResponseCache(entries)
        self.clock = clock
        self.zone = zone

    def key(self, request: tuple[str, ...], user_id: int) -> Key:
        return (request, user_id, self.clock.now().astimezone(self.zone).date())

    def get(self, key: Key, generation: int) -> CachedResponse | None:
        """The entry for ``key`` if it was stored at this write ``generation``; the
        outcome is noted for :func:`lookup_outcome` (the dispatcher's lookup, made for
        cacheable reads only)."""
        found = self.responses.get(key, generation)
        _lookup.set(MISS if found is None else HIT)
        return found

    def peek(self, key: Key, generation: int) -> CachedResponse | None:
        """:meth:`get` without noting the outcome: the app's anonymous fast path looks up
        every GET before it knows whether the request is cacheable, so only its hits
        count (it answers them itself)."""
        return self.responses.get(key, generation)

    def store(self, key: Key, generation: int, response: CachedResponse) -> None:
        self.responses.put(key, generation, response)

    def __len__(self) -> int:
        return len(self.responses)


def forget_lookup() -> None:
    """Start a request with no lookup noted (a server thread serves many requests)."""
    _lookup.set(None)


def lookup_outcome() -> str | None:
    """``hit`` or ``miss`` if this request looked the cache up since
    :func:`forget_lookup`, else None (cache off, or a request it never keeps)."""
    return _lookup.get()


def request_key(environ: WSGIEnvironment) -> tuple[str, ...] | None:
    """What identifies a GET's response, read off the raw environ (before the language
    root is split off), with the media type ``Accept`` negotiates (``calendar.md`` §7,
    and the site root's page, ``site.md`` §5); None for other methods."""
    if environ.get("REQUEST_METHOD") != "GET":
        return None
    accept = environ.get("HTTP_ACCEPT")
    path = environ.get("PATH_INFO", "")
    media_type = negotiate(accept)  # a calendar is never replayed to JSON
    if path in SITE_ROOTS and prefers_html(accept):
        media_type = HTML  # nor the site root's page to a program
    return (
        environ.get("wsgi.url_scheme", ""),
        environ.get("HTTP_HOST", ""),
        environ.get("SCRIPT_NAME", ""),
        path,
        environ.get("QUERY_STRING", ""),
        media_type,
    )


def cacheable(args: MultiDict[str, str]) -> bool:
    """GETs are cacheable unless a date parameter is relative to the current time, or
    the answer is enveloped (the envelope is built after the cache)."""
    if "_envelope" in args:
        return False
    return all(ABSOLUTE_DATE.match(value) for name in DATE_PARAMS for value in args.getlist(name))
