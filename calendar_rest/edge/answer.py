"""The app's responses: a status, a list of headers and a body, all known at once.

Every answer of this API is built whole before it is sent (JSON, or an iCalendar
feed): nothing streams. Werkzeug's ``Response`` serves every case a web framework
meets, and its bookkeeping (a ``Headers`` that lower-cases and validates on every
operation, a copy of them per response, a closing iterator) costs about 45 µs per
answer here, as much as a single event's own SQL. An :class:`Answer` keeps what the
WSGI call needs and sends its headers as the app set them, with Werkzeug's rules for
what a status or ``HEAD`` implies: no body for ``HEAD``, 1xx, 204 and 304; no
``Content-Length`` for 1xx and 204; otherwise the body's length, set when the answer
is made (so a cached copy of its headers has it too).
"""

from __future__ import annotations

import functools
import typing as t

from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.urls import iri_to_uri

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

_MISSING: t.Any = object()
#: statuses that never carry a body (RFC 9110 §6.4.1)
BODYLESS = frozenset({204, 304})
#: headers whose value is a URL, sent as a URI (Werkzeug's rule)
URL_HEADERS = ("Location", "Content-Location")


class HeaderList:
    """Response headers in the order they were set, read case-insensitively: the part
    of Werkzeug's ``Headers`` an answer uses. A value holding a line break is refused
    (``ValueError``), as Werkzeug refuses it: it would split the header."""

    __slots__ = ("_list", "_lower")

    def __init__(self, items: t.Iterable[tuple[str, t.Any]] = ()) -> None:
        self._list: list[tuple[str, str]] = []
        #: the names lower-cased, in the same order (looked up without a loop in Python)
        self._lower: list[str] = []
        self.extend(items)

    def __iter__(self) -> t.Iterator[tuple[str, str]]:
        return iter(self._list)

    def __len__(self) -> int:
        return len(self._list)

    def __repr__(self) -> str:
        return f"HeaderList({self._list!r})"

    def items(self) -> list[tuple[str, str]]:
        return list(self._list)

    def get(self, name: str, default: t.Any = None) -> t.Any:
        """The first value of ``name``, else ``default``."""
        lower = name.lower()
        if lower not in self._lower:
            return default
        return self._list[self._lower.index(lower)][1]

    def getlist(self, name: str) -> list[str]:
        lower = name.lower()
        return [item[1] for item, key in zip(self._list, self._lower, strict=True) if key == lower]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._lower

    def __getitem__(self, name: str) -> str:
        value = self.get(name, _MISSING)
        if value is _MISSING:
            raise KeyError(name)
        return t.cast(str, value)

    def __setitem__(self, name: str, value: t.Any) -> None:
        """Set ``name`` to ``value`` alone: its first occurrence is replaced in place,
        any other removed (Werkzeug's ``set``)."""
        value = _checked(value)
        lower = name.lower()
        if lower not in self._lower:
            self._list.append((name, value))
            self._lower.append(lower)
            return
        index = self._lower.index(lower)
        self._list[index] = (name, value)
        while self._lower.count(lower) > 1:  # later occurrences go
            later = self._lower.index(lower, index + 1)
            del self._list[later], self._lower[later]

    def add(self, name: str, value: t.Any) -> None:
        self._list.append((name, _checked(value)))
        self._lower.append(name.lower())

    def extend(self, items: t.Iterable[tuple[str, t.Any]]) -> None:
        for name, value in items:
            self.add(name, value)

    def remove(self, name: str) -> None:
        """Remove every occurrence of ``name`` (none is fine)."""
        lower = name.lower()
        while lower in self._lower:
            index = self._lower.index(lower)
            del self._list[index], self._lower[index]

    def pop(self, name: str, default: t.Any = _MISSING) -> t.Any:
        """The first value of ``name``, every occurrence removed; ``default`` (else
        ``KeyError``) when there is none."""
        value = self.get(name, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise KeyError(name)
            return default
        self.remove(name)
        return value


def _checked(value: t.Any) -> str:
    text = value if isinstance(value, str) else str(value)
    if "\n" in text or "\r" in text:
        raise ValueError("Header values must not contain newline characters.")
    return text


@functools.cache
def status_line(status: int) -> str:
    """``200 OK``, as Werkzeug words it."""
    return f"{status} {HTTP_STATUS_CODES.get(status, 'UNKNOWN').upper()}"


class Answer:
    """A finished response; a WSGI application of its own (see the module docstring)."""

    __slots__ = ("status_code", "headers", "body")

    def __init__(
        self,
        body: bytes = b"",
        status: int = 200,
        headers: t.Iterable[tuple[str, t.Any]] = (),
        content_type: str | None = None,
    ) -> None:
        self.status_code = status
        self.headers = HeaderList()
        if content_type is not None:
            self.headers.add("Content-Type", content_type)
        if status >= 200 and status not in BODYLESS:  # what a cached copy is sent with
            self.headers.add("Content-Length", len(body))
        self.headers.extend(headers)
        self.body = body

    @classmethod
    def replayed(cls, body: bytes, status: int, headers: t.Iterable[tuple[str, str]]) -> Answer:
        """An answer made earlier, sent again with exactly its headers: they hold its
        ``Content-Length`` already (a second one makes HTTP clients refuse the answer)."""
        answer = cls.__new__(cls)
        answer.status_code = status
        answer.headers = HeaderList(headers)
        answer.body = body
        return answer

    def get_data(self) -> bytes:
        return self.body

    @property
    def mimetype(self) -> str:
        """The media type of ``Content-Type``, lower-cased, without parameters."""
        content_type = self.headers.get("Content-Type") or ""
        return str(content_type).split(";", 1)[0].strip().lower()

    def wsgi_headers(self) -> list[tuple[str, str]]:
        """The headers to send (a new list): ``Content-Length`` where a body may be sent,
        URL headers as URIs."""
        status = self.status_code
        headers = list(self.headers)
        if any(name in URL_HEADERS for name, _ in headers):
            headers = [
                (name, iri_to_uri(value) if name in URL_HEADERS else value)
                for name, value in headers
            ]
        if 100 <= status < 200 or status == 204:
            return [item for item in headers if item[0].lower() != "content-length"]
        if status != 304 and "Content-Length" not in self.headers:
            headers.append(("Content-Length", str(len(self.body))))
        return headers

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> t.Iterable[bytes]:
        status = self.status_code
        start_response(status_line(status), self.wsgi_headers())
        if environ.get("REQUEST_METHOD") == "HEAD" or status in BODYLESS or status < 200:
            return []
        return [self.body]
