"""Conditional requests (RFC 9110 §13, ``sync.md`` §1): validators and preconditions.

A client that keeps a copy revalidates it with ``If-None-Match``/``If-Modified-Since``
(a ``304`` instead of the body) and protects its writes from lost updates with
``If-Match``/``If-Unmodified-Since``. The entity tag is a digest of the exact body
bytes, so it follows everything a body shows (embedded linked records, the caller's
view); a single record's tag also covers its revision (the position of its latest
change), so two writes within one second still give two tags. This module only
compares: the dispatcher works out what the current representation is. A tag matches
the current representation in either content encoding (``encoding.py``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import re
import typing as t

from werkzeug.datastructures import Headers
from werkzeug.http import http_date, parse_date

from ..errors import RestError
from .answer import Answer
from .encoding import representation_of

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

#: one entity tag of a list: ``"x"`` or ``W/"x"``
TAG_RE = re.compile(r'\s*(W/)?"([^"]*)"\s*(?:,|$)')
#: the headers a 304 keeps of the 200 it stands for (the app adds ``Date``,
#: ``Cache-Control``, ``Vary`` and the CORS headers on the way out)
VALIDATORS = ("ETag", "Last-Modified")
#: the request headers of a conditional write
WRITE_CONDITIONS = ("If-Match", "If-Unmodified-Since", "If-None-Match")

#: a wire date, "Y-m-d H:i:s"
WIRE_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\Z")


def entity_tag(body: bytes, revision: int | None = None) -> str:
    """The strong tag of ``body``: the first 128 bits of SHA-256 over the exact bytes,
    and over the record's ``revision`` for a single record. SHA-256 rather than
    BLAKE2b: OpenSSL's runs on the CPU's SHA extensions where there are some, twice
    as fast here (19 against 36 µs for a 38 KB page of events)."""
    digest = hashlib.sha256(body)
    if revision is not None:
        digest.update(b"\x00revision:%d" % revision)
    return f'"{digest.hexdigest()[:32]}"'


def last_modified(modified_utc: t.Any) -> str | None:
    """``Last-Modified`` of a record from its wire ``modified_utc`` ("Y-m-d H:i:s",
    already whole seconds); None for TEC's zero date or anything unreadable."""
    if not isinstance(modified_utc, str):
        return None
    return _last_modified(modified_utc)


@functools.lru_cache(maxsize=4096)
def _last_modified(modified_utc: str) -> str | None:
    """:func:`last_modified` of a string, worked out once: a record is read far more
    often than it changes."""
    if not WIRE_DATE_RE.match(modified_utc):
        return None
    try:
        when = dt.datetime.fromisoformat(modified_utc)  # a tenth of strptime's cost
    except ValueError:
        return None
    return http_date(when.replace(tzinfo=dt.timezone.utc))


def _tags(header: str) -> list[tuple[bool, str]] | None:
    """The tags of an ``If-Match``/``If-None-Match`` value as (weak, opaque) pairs;
    None for ``*``. Malformed members are skipped (they match nothing)."""
    if header.strip() == "*":
        return None
    return [(bool(match[1]), match[2]) for match in TAG_RE.finditer(header)]


def _opaque(tag: str) -> str:
    return tag.removeprefix("W/").strip('"')


def _same(opaque: str, current: str) -> bool:
    """Whether a client's opaque tag names the representation the ``current`` tag
    does, in either encoding (``encoding.py``: the gzip variant's tag is the identity
    tag with a suffix, so a copy read either way matches, and a write protected by
    either tag goes through)."""
    return opaque == current or representation_of(opaque) == representation_of(current)


def matches_weakly(header: str, current: str | None) -> bool:
    """``If-None-Match``: ``*`` matches any current representation; otherwise weak
    comparison, so ``W/"x"`` matches ``"x"``."""
    if current is None:
        return False
    tags = _tags(header)
    if tags is None:
        return True
    mine = _opaque(current)
    return any(_same(opaque, mine) for _, opaque in tags)


def matches_strongly(header: str, current: str | None, exists: bool) -> bool:
    """``If-Match``: ``*`` matches an existing record; otherwise strong comparison, so
    a weak tag never matches."""
    tags = _tags(header)
    if tags is None:
        return exists
    if current is None:
        return False
    mine = _opaque(current)
    return any(not weak and _same(opaque, mine) for weak, opaque in tags)


def _date(value: str | None) -> dt.datetime | None:
    """An HTTP date, whole seconds in UTC; None when absent or invalid (ignored)."""
    parsed = parse_date(value) if value else None
    return parsed.replace(microsecond=0) if parsed is not None else None


def not_modified(
    if_none_match: str | None,
    if_modified_since: str | None,
    etag: str | None,
    modified: str | None,
) -> bool:
    """Whether a GET/HEAD whose 200 carries ``etag`` and ``modified`` is answered 304:
    ``If-None-Match`` decides when present; ``If-Modified-Since`` counts only without
    it, and only where the 200 has a ``Last-Modified``."""
    if if_none_match is not None:
        return matches_weakly(if_none_match, etag)
    since = _date(if_modified_since)
    if since is None:  # most requests: no date to parse on either side
        return False
    changed = _date(modified)
    return changed is not None and changed <= since


def header_of(headers: t.Iterable[tuple[str, str]], name: str) -> str | None:
    """The value of header ``name`` in a list of pairs (a cached entry's)."""
    wanted = name.lower()
    return next((value for key, value in headers if key.lower() == wanted), None)


def validators_of(headers: t.Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The ``ETag`` and ``Last-Modified`` of a 200, for the 304 that stands for it."""
    return [(name, value) for name, value in headers if name in VALIDATORS]


def environ_not_modified(environ: WSGIEnvironment, headers: t.Sequence[tuple[str, str]]) -> bool:
    """:func:`not_modified` for a raw request and a cached 200's headers (the
    anonymous fast path of ``app.py``, which builds no request object)."""
    if_none_match = environ.get("HTTP_IF_NONE_MATCH")
    if_modified_since = environ.get("HTTP_IF_MODIFIED_SINCE")
    if if_none_match is None and if_modified_since is None:
        return False
    return not_modified(
        if_none_match,
        if_modified_since,
        header_of(headers, "ETag"),
        header_of(headers, "Last-Modified"),
    )


class NotModified(Answer):
    """A ``304``: no body and no ``Content-Type``, but the 200's validators, which RFC
    9110 §15.4.5 wants kept (Werkzeug's own responses strip them as "entity headers")."""

    __slots__ = ()

    def __init__(self, headers: t.Iterable[tuple[str, str]]) -> None:
        super().__init__(status=304, headers=headers)


@dataclasses.dataclass(frozen=True)
class Current:
    """What a caller would GET at a URL now, as preconditions see it."""

    #: the record exists (whether or not this caller may read it)
    exists: bool
    etag: str | None = None
    last_modified: str | None = None


@dataclasses.dataclass(frozen=True)
class Preconditions:
    """The conditional headers of a write (``sync.md`` §1.4)."""

    if_match: str | None
    if_unmodified_since: str | None
    if_none_match: str | None

    @classmethod
    def of(cls, headers: t.Mapping[str, str] | Headers) -> Preconditions | None:
        """The write's conditions; None when it carries none."""
        values = [headers.get(name) for name in WRITE_CONDITIONS]
        if all(value is None for value in values):
            return None
        return cls(*values)

    def hold(self, current: Current) -> bool:
        """RFC 9110 §13.2.2: ``If-Match``, else ``If-Unmodified-Since`` (ignored where
        there is no ``Last-Modified`` or the date is invalid); then ``If-None-Match``."""
        if self.if_match is not None:
            if not matches_strongly(self.if_match, current.etag, current.exists):
                return False
        elif self.if_unmodified_since is not None:
            since, changed = _date(self.if_unmodified_since), _date(current.last_modified)
            if since is not None and changed is not None and changed > since:
                return False
        if self.if_none_match is not None and current.exists:
            if _tags(self.if_none_match) is None:
                return False
            return not matches_weakly(self.if_none_match, current.etag)
        return True


def precondition_failed() -> RestError:
    return RestError("rest_precondition_failed", 412)
