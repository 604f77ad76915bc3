"""``Content-Encoding: gzip`` (``site.md`` §5, ``calendar_rest/edge/encoding.py``).

A text answer of 1 KB or more is gzipped for a request whose ``Accept-Encoding`` takes
gzip, with ``Vary: Accept-Encoding``, its compressed length and a tag of its own; the
same answer to any other request is what it was before gzip existed. Both encodings
come from one cache entry, compressed once; a tag of either encoding revalidates a
copy and protects a write.
"""

from __future__ import annotations

import datetime as dt
import gzip
import typing as t

import pytest
from conftest import NS, Api, api_for
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.edge import encoding
from calendar_rest.edge.encoding import MIN_BYTES, accepts_gzip, gzip_tag

GZIP = {"Accept-Encoding": "gzip, deflate, br"}
ROOTS = ("", "/fr")
DAY = dt.date.today() + dt.timedelta(days=40)
FRENCH = {"start_date": f"{DAY} 19:00:00", "end_date": f"{DAY} 21:00:00"}
#: URLs given whole to ``Api`` (which puts the namespace before a bare path)
SITE = "http://localhost"
#: headers that differ between two answers for reasons other than the encoding
CHANGING = {"date", "x-calendar-cache", "x-request-id"}


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        (None, False),
        ("", False),
        ("gzip", True),
        ("GZip", True),
        ("x-gzip", True),
        ("deflate, gzip;q=0.8", True),
        ("br;q=1.0, gzip;q=0.8, *;q=0.1", True),
        ("gzip;q=0", False),
        ("gzip; q=0.000", False),
        ("gzip;q=nonsense", False),
        ("*", True),
        ("*;q=0", False),
        ("*;q=0.5, gzip;q=0", False),
        ("identity", False),
        ("identity, *;q=0", False),
        ("gzip;q=0.5, identity", False),  # identity weighed higher
        ("gzip, identity;q=0.5", True),
        ("deflate, br", False),
    ],
)
def test_accept_encoding_is_read_as_rfc_9110_says(header: str | None, takes: bool) -> None:
    assert accepts_gzip(header) is takes


def test_the_gzip_tag_keeps_the_quotes_and_weakness() -> None:
    assert gzip_tag('"abc"') == '"abc-gzip"'
    assert gzip_tag('W/"abc"') == 'W/"abc-gzip"'


DESCRIPTION = "<p>An evening of chamber music by candlelight, with a talk before it.</p>" * 4


@pytest.fixture
def ids(api: Api) -> dict[str, int]:
    """Enough events in each language that every list is over 1 KB, and a venue;
    each event's own feed is over 1 KB too."""
    events = [
        api.create_event(
            title=f"Concert number {n}", description=DESCRIPTION, venue={"venue": f"Hall {n}"}
        )
        for n in range(4)
    ]
    for n in range(4):
        french = api.post(
            f"{SITE}/fr{NS}/events",
            "administrator",
            json={
                **FRENCH,
                "title": f"Concert numéro {n}",
                "description": DESCRIPTION,
                "venue": {"venue": f"Salle {n}"},
            },
        )
        assert french.status_code == 201, french.get_data()
    return {"event": int(events[0]["id"]), "venue": int(events[0]["venue"]["id"])}


def paths(ids: dict[str, int]) -> list[str]:
    """One path (under the namespace) of every kind of read: the namespace index,
    lists, single records, feeds, the change feed, the OpenAPI document."""
    event = ids["event"]
    return [
        "",
        "/events",
        "/events?per_page=2&page=2",
        f"/events/{event}",
        "/events.ics",
        f"/events/{event}.ics",
        "/changes",
        "/venues",
        "/doc",
    ]


def headers_of(response: TestResponse) -> dict[str, str]:
    return {name.lower(): value for name, value in response.headers if name.lower() not in CHANGING}


def vary_names(response: TestResponse) -> list[str]:
    return [name.strip() for name in response.headers.get("Vary", "").split(",") if name]


def assert_gzipped(plain: TestResponse, zipped: TestResponse, url: str) -> None:
    """``zipped`` is ``plain`` gzipped: same status, decoded body, the other headers
    alike but for the length, the encoding and the tag."""
    assert len(plain.get_data()) >= MIN_BYTES, url  # else the case tests nothing
    assert zipped.status_code == plain.status_code, url
    assert zipped.headers["Content-Encoding"] == "gzip", url
    body = zipped.get_data()
    assert gzip.decompress(body) == plain.get_data(), url
    assert zipped.headers["Content-Length"] == str(len(body)), url
    assert "Accept-Encoding" in vary_names(plain) and "Accept-Encoding" in vary_names(zipped)
    if "ETag" in plain.headers:
        assert zipped.headers["ETag"] == gzip_tag(plain.headers["ETag"]), url
    expected = headers_of(plain)
    expected.pop("etag", None)
    got = headers_of(zipped)
    got.pop("etag", None)
    assert got.pop("content-encoding") == "gzip"
    expected.pop("content-length"), got.pop("content-length")
    assert got == expected, url


@pytest.mark.parametrize("root", ROOTS, ids=["en", "fr"])
@pytest.mark.parametrize("as_", [None, "administrator"], ids=["anonymous", "authenticated"])
def test_every_kind_of_read_is_gzipped_for_a_client_that_takes_it(
    api: Api, ids: dict[str, int], root: str, as_: str | None
) -> None:
    """A miss, two hits (the anonymous fast path, or the caller's own entries) and a
    HEAD, each the identity answer gzipped; the hits send the miss's bytes."""
    for path in paths(ids):
        url = f"{SITE}{root}{NS}{path}"
        plain = api.get(url, as_)
        answers = [api.get(url, as_, headers=GZIP) for _ in range(3)]
        for zipped in answers:
            assert_gzipped(plain, zipped, url)
            assert zipped.get_data() == answers[0].get_data(), url
        if path != "/changes":  # the change feed is not cached
            cache = [answer.headers.get("X-Calendar-Cache") for answer in answers]
            assert cache[1:] == ["hit", "hit"], (url, cache)
        head = api.request("HEAD", url, as_, headers=GZIP)
        assert head.get_data() == b"" and headers_of(head) == headers_of(answers[0]), url


@pytest.mark.parametrize("as_", [None, "administrator"], ids=["anonymous", "authenticated"])
@pytest.mark.parametrize(
    "accept_encoding", [None, "identity", "gzip;q=0", "*;q=0", "deflate, br"], ids=str
)
def test_a_client_that_does_not_take_gzip_gets_the_identity_answer(
    api: Api, ids: dict[str, int], as_: str | None, accept_encoding: str | None
) -> None:
    """The same bytes and headers as a request with no ``Accept-Encoding``, which
    the rest of the suite (TEC captures included) holds to today's answers."""
    sent = {"Accept-Encoding": accept_encoding} if accept_encoding is not None else {}
    for path in paths(ids):
        url = f"{SITE}{NS}{path}"
        plain = api.get(url, as_)
        for _ in range(2):  # a miss or a hit, then a hit
            other = api.get(url, as_, headers=sent)
            assert other.get_data() == plain.get_data(), url
            assert headers_of(other) == headers_of(plain), url
            assert "Content-Encoding" not in other.headers


def test_short_answers_and_their_errors_are_never_gzipped(api: Api, ids: dict[str, int]) -> None:
    """Under 1 KB (an empty list, a 404) the answer is today's, with no ``Vary``
    on the encoding it cannot have."""
    for path in ("/tags", "/events/999999", "/events?per_page=abc", f"/venues/{ids['venue']}"):
        plain = api.get(path)
        zipped = api.get(path, headers=GZIP)
        assert len(plain.get_data()) < MIN_BYTES, path
        assert zipped.get_data() == plain.get_data(), path
        assert "Content-Encoding" not in zipped.headers, path
        assert "Accept-Encoding" not in vary_names(zipped), path
        assert headers_of(zipped) == headers_of(plain), path


def test_an_error_of_1_kb_or_more_is_gzipped(api: Api) -> None:
    """A 400 naming many bad parameters is text of more than 1 KB like any other."""
    bad = "&".join(f"{name}=not-valid-{name}" for name in BAD_PARAMS)
    plain = api.get(f"/events?{bad}")
    assert plain.status_code == 400
    assert_gzipped(plain, api.get(f"/events?{bad}", headers=GZIP), "400")


BAD_PARAMS = (
    "page",
    "per_page",
    "start_date",
    "end_date",
    "venue",
    "organizer",
    "featured",
    "geoloc",
    "geoloc_lat",
    "geoloc_lng",
    "starts_before",
    "starts_after",
    "ends_before",
    "ends_after",
    "status",
    "orderby",
    "order",
)


def test_options_and_envelopes_are_gzipped_at_the_exit(api: Api, ids: dict[str, int]) -> None:
    for method, path in (("OPTIONS", "/events"), ("GET", "/events?_envelope")):
        plain = api.request(method, path)
        assert_gzipped(plain, api.request(method, path, headers=GZIP), path)


@pytest.mark.parametrize("cached", [True, False], ids=["cached", "uncached"])
@pytest.mark.parametrize("as_", [None, "administrator"], ids=["anonymous", "authenticated"])
def test_if_none_match_takes_the_tag_of_either_encoding(
    api: Api,
    ids: dict[str, int],
    sibling_app: t.Callable[..., Application],
    as_: str | None,
    cached: bool,
) -> None:
    """A 304 from the cache (the anonymous fast path, the caller's entries) and from a
    rendered answer, carrying the tag of the encoding the request would get, and its
    ``Vary``."""
    if not cached:
        api = api_for(sibling_app(cache_entries=0), api)
    for path in (f"/events/{ids['event']}", "/events", "/events.ics"):
        for _ in range(2):
            plain = api.get(path, as_)
            identity = plain.headers["ETag"]
            for sent, expected in (({}, identity), (GZIP, gzip_tag(identity))):
                for tag in (identity, gzip_tag(identity), f'"other", W/{gzip_tag(identity)}'):
                    answer = api.get(path, as_, headers={**sent, "If-None-Match": tag})
                    if cached and as_ is None:
                        assert answer.headers["X-Calendar-Cache"] == "hit"
                    assert answer.status_code == 304, (path, sent, tag)
                    assert answer.get_data() == b"" and "Content-Encoding" not in answer.headers
                    assert answer.headers["ETag"] == expected, (path, sent, tag)
                    assert "Accept-Encoding" in vary_names(answer), (path, sent)
                stale = api.get(path, as_, headers={**sent, "If-None-Match": '"other-gzip"'})
                assert stale.status_code == 200 and stale.headers["ETag"] == expected


def test_a_write_accepts_the_tag_of_a_gzip_read(api: Api, ids: dict[str, int]) -> None:
    """Read with gzip, write with that tag (sync.md §1): 200; a stale gzip tag: 412.
    The write's own answer is gzipped too, tagged as the next gzip read is."""
    path = f"/events/{ids['event']}"
    read = api.get(path, "administrator", headers=GZIP)
    tag = read.headers["ETag"]
    assert tag.endswith('-gzip"')
    written = api.patch(
        path, "administrator", json={"title": "Renamed"}, headers={**GZIP, "If-Match": tag}
    )
    assert written.status_code == 200, written.get_data()
    assert written.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(written.get_data()).count(b"Renamed") >= 1
    again = api.get(path, "administrator", headers=GZIP)
    assert written.headers["ETag"] == again.headers["ETag"] != tag
    stale = api.patch(path, "administrator", json={"title": "Lost"}, headers={"If-Match": tag})
    assert stale.status_code == 412
    assert "Content-Encoding" not in stale.headers
    for encoded in (False, True):  # either tag of the current state
        current = api.get(path, "administrator").headers["ETag"]
        sent = {"If-Match": gzip_tag(current) if encoded else current}
        assert (
            api.patch(path, "administrator", json={"title": "Again"}, headers=sent).status_code
            == 200
        )


@pytest.mark.parametrize("as_", [None, "administrator"], ids=["anonymous", "authenticated"])
def test_a_cache_hit_does_not_compress_again(
    api: Api, ids: dict[str, int], as_: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    compressed: list[int] = []
    real = gzip.compress

    def counting(data: bytes, *args: t.Any, **kwargs: t.Any) -> bytes:
        compressed.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(encoding.gzip, "compress", counting)
    for path in ("/events", f"/events/{ids['event']}", "/events.ics"):
        compressed.clear()
        api.get(path, as_)  # an identity read stores the entry, compresses nothing
        assert compressed == [], path
        first = api.get(path, as_, headers=GZIP)
        for _ in range(3):
            assert api.get(path, as_, headers=GZIP).get_data() == first.get_data()
        assert len(compressed) == 1, (path, compressed)


def test_the_gzip_bytes_and_tag_are_stable_across_apps(
    api: Api, ids: dict[str, int], sibling_app: t.Callable[..., Application]
) -> None:
    """``mtime=0``: another process compresses the same body to the same bytes."""
    first = api.get("/events", headers=GZIP)
    other = api_for(sibling_app(), api)
    second = other.get("/events", headers=GZIP)
    assert second.headers["X-Calendar-Cache"] == "miss"
    assert second.get_data() == first.get_data()
    assert second.headers["ETag"] == first.headers["ETag"]


def test_the_cache_weighs_room_for_the_gzip_variant() -> None:
    from calendar_rest.edge.cache import CachedResponse

    text = CachedResponse(200, (("Content-Type", "application/json"),), b"x" * 2000)
    binary = CachedResponse(200, (("Content-Type", "image/png"),), b"x" * 2000)
    assert text.compressible and text.weight() == 2500
    assert not binary.compressible and binary.weight() == 2000
    assert text.gzipped() is text.gzipped()  # made once


def test_an_entry_says_it_varies_whoever_stored_it() -> None:
    """A compressible entry's ``Vary`` names ``Accept-Encoding`` once, in place (a
    layer that keeps its answers without the read pipeline, pages say, gets it too)."""
    from calendar_rest.edge.cache import CachedResponse

    json = ("Content-Type", "application/json")
    body = b"[" + b"1," * 600 + b"1]"
    assert CachedResponse(200, (json,), body).headers == (json, ("Vary", "Accept-Encoding"))
    negotiated = CachedResponse(200, (json, ("Vary", "Accept"), ("Allow", "GET")), body)
    assert negotiated.headers == (json, ("Vary", "Accept, Accept-Encoding"), ("Allow", "GET"))
    again = CachedResponse(200, negotiated.headers, body)
    assert again.headers == negotiated.headers
    short = CachedResponse(200, (json,), b"[]")
    assert short.headers == (json,) and not short.compressible
    assert dict(negotiated.gzipped().headers)["Vary"] == "Accept, Accept-Encoding"
