"""``Content-Encoding: gzip`` for text answers (``site.md`` §5, RFC 9110 §8.4, §12.5.3).

A text answer (JSON, iCalendar, HTML, XML, plain text, CSS, JavaScript) of
:data:`MIN_BYTES` or more is *compressible*: it says ``Vary: Accept-Encoding`` whether
it is sent compressed or not, and is gzipped for a request whose ``Accept-Encoding``
takes gzip. Everything else (a 304, a short error, a request without the header) is
sent exactly as before.

The gzip body is ``gzip.compress`` at :data:`LEVEL` with ``mtime=0``, so the same
identity bytes always give the same gzip bytes. Its entity tag is the identity tag
with :data:`TAG_SUFFIX` inside the quotes (``"abc"`` → ``"abc-gzip"``): the two
encodings get two tags (RFC 9110 §8.8.3), and :func:`representation_of` takes a tag
back to the representation it names, so ``If-None-Match`` and ``If-Match`` accept
the tag of either encoding (``conditional.py``). The response cache keeps the gzip
variant beside the identity body (``cache.py``), made on the first request that takes
it, so a hit never compresses again.
"""

from __future__ import annotations

import functools
import gzip
import typing as t

from .answer import BODYLESS, Answer

#: the smallest body worth compressing (``site.md`` §5): below it the gzip header and
#: a round trip of decoding cost more than the bytes saved
MIN_BYTES = 1024
#: zlib's default. On the demo's default list (36 KB, ``bench/transfer.py --levels``)
#: level 1 gives 4.5 KB in 37 µs, 6 gives 3.4 KB in 121 µs, 9 gives 3.3 KB in 221 µs:
#: a body is compressed once per cache entry, and past 6 more time buys nothing
LEVEL = 6
GZIP = "gzip"
#: what the gzip variant's tag adds to the identity tag, inside the quotes
TAG_SUFFIX = "-gzip"
VARY_NAME = "Accept-Encoding"
#: media types that are text although they are not ``text/*``
TEXT_TYPES = frozenset(
    {"application/json", "application/javascript", "application/ecmascript", "application/xml"}
)

Headers = tuple[tuple[str, str], ...]


class Encoded(t.NamedTuple):
    """The gzip variant of an answer: its headers and its compressed body."""

    headers: Headers
    body: bytes


@functools.lru_cache(maxsize=256)
def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether ``Accept-Encoding`` takes gzip (RFC 9110 §12.5.3): ``gzip`` (or its
    alias ``x-gzip``) with a nonzero weight, else ``*`` with one; and not when the
    client weighs ``identity`` above it. No header, or an empty one, takes nothing:
    such a client gets today's bytes."""
    if not accept_encoding:
        return False
    weights: dict[str, float] = {}
    for member in accept_encoding.split(","):
        coding, _, params = member.partition(";")
        name = coding.strip().lower()
        if name:
            weights.setdefault("gzip" if name == "x-gzip" else name, _weight(params))
    chosen = weights.get(GZIP, weights.get("*", 0.0))
    return chosen > 0 and chosen >= weights.get("identity", 0.0)


def _weight(params: str) -> float:
    """The ``q`` of a member's parameters (1 when absent, 0 when unreadable)."""
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                weight = float(value.strip())
            except ValueError:
                return 0.0
            return weight if 0.0 <= weight <= 1.0 else 0.0
    return 1.0


@functools.lru_cache(maxsize=64)
def is_text(content_type: str) -> bool:
    """Whether a ``Content-Type`` names text (``text/*``, JSON, XML, JavaScript and
    their ``+json``/``+xml`` kin)."""
    media_type = content_type.split(";", 1)[0].strip().lower()
    return (
        media_type.startswith("text/")
        or media_type in TEXT_TYPES
        or media_type.endswith(("+json", "+xml"))
    )


def compressible(status: int, headers: t.Iterable[tuple[str, str]], body: bytes) -> bool:
    """Whether an answer is sent gzipped to a client that takes it: text of
    :data:`MIN_BYTES` or more, with a status that carries a body, not encoded yet."""
    if len(body) < MIN_BYTES or status < 200 or status in BODYLESS:
        return False
    content_type = None
    for name, value in headers:
        lower = name.lower()
        if lower == "content-encoding":
            return False
        if lower == "content-type":
            content_type = value
    return content_type is not None and is_text(content_type)


def varied(vary: str | None) -> str:
    """``vary`` with ``Accept-Encoding`` in it, once."""
    if not vary:
        return VARY_NAME
    if VARY_NAME.lower() in (name.strip().lower() for name in vary.split(",")):
        return vary
    return f"{vary}, {VARY_NAME}"


def declare(headers: Headers) -> Headers:
    """``headers`` of a compressible answer with ``Accept-Encoding`` in their ``Vary``
    (where it stands, else last), as :func:`declared` marks an answer."""
    for index, (name, value) in enumerate(headers):
        if name.lower() == "vary":
            marked = varied(value)
            if marked == value:
                return headers
            return (*headers[:index], (name, marked), *headers[index + 1 :])
    return (*headers, ("Vary", VARY_NAME))


def gzip_tag(tag: str) -> str:
    """The gzip variant's tag of an identity tag: ``"x"`` → ``"x-gzip"`` (``W/`` kept)."""
    if not tag.endswith('"'):
        return tag  # not a tag this service made: left alone
    return f'{tag[:-1]}{TAG_SUFFIX}"'


def representation_of(opaque: str) -> str:
    """The opaque tag of the representation an opaque tag names, whatever its
    encoding: the gzip suffix taken off."""
    return opaque.removesuffix(TAG_SUFFIX)


def gzipped(headers: t.Iterable[tuple[str, str]], body: bytes) -> Encoded:
    """The gzip variant of a compressible answer with ``headers`` (its ``Vary``
    already naming ``Accept-Encoding``): ``Content-Encoding`` after its
    ``Content-Length``, which becomes the compressed length, and the gzip tag."""
    compressed = gzip.compress(body, compresslevel=LEVEL, mtime=0)
    encoded: list[tuple[str, str]] = []
    for name, value in headers:
        lower = name.lower()
        if lower == "content-length":
            encoded.append((name, str(len(compressed))))
            encoded.append(("Content-Encoding", GZIP))
        elif lower == "etag":
            encoded.append((name, gzip_tag(value)))
        else:
            encoded.append((name, value))
    if "Content-Encoding" not in (name for name, _ in encoded):
        encoded.append(("Content-Encoding", GZIP))
        encoded.append(("Content-Length", str(len(compressed))))
    return Encoded(tuple(encoded), compressed)


def declared(answer: Answer) -> bool:
    """Mark a compressible answer with ``Vary: Accept-Encoding``; returns whether it
    is compressible (an answer that is not keeps its headers)."""
    headers = answer.headers
    if not compressible(answer.status_code, headers, answer.body):
        return False
    vary = headers.get("Vary")
    marked = varied(vary)
    if marked != vary:
        headers["Vary"] = marked
    return True


def encode(
    answer: Answer,
    accept_encoding: str | None,
    variant: t.Callable[[], Encoded] | None = None,
) -> Answer:
    """``answer`` as a request with ``accept_encoding`` gets it: gzipped where it is
    compressible and the request takes gzip, else as it is (with ``Vary`` marked).
    ``variant`` gives its gzip variant when one is kept (a cache entry's); an answer
    that is encoded already is left alone, so calling this twice is harmless."""
    if "Content-Encoding" in answer.headers or not declared(answer):
        return answer
    if not accepts_gzip(accept_encoding):
        return answer
    encoded = variant() if variant is not None else gzipped(answer.headers, answer.body)
    return Answer.replayed(encoded.body, answer.status_code, encoded.headers)
