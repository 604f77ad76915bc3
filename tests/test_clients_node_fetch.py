"""Node's own ``fetch`` (undici, the HTTP client of the runtime) reading the service run by
its CLI (``tests/clients/node_fetch.js``), anonymously and with Basic credentials.

undici's parser is strict where Python's clients are lenient: an answer with two
``Content-Length`` headers is refused (``HPE_UNEXPECTED_CONTENT_LENGTH``). Every read is
sent three times in a row, so the later answers come from the response cache (the
anonymous fast path, and the dispatcher's per-user entries), and once more with the
``ETag`` it got (a 304); HEAD too. Every answer must reach the client whole, with one
length that matches its body.

fetch asks for gzip on its own and decodes it (``site.md`` §5): every text answer of 1 KB
or more arrives gzipped, and decodes to the bytes a read with ``Accept-Encoding:
identity`` gets; a write protected by the tag of a gzip read goes through.

Needs Node.js and ``npm ci --prefix tests/clients``; skipped without them, failed under
``CALENDAR_REST_REQUIRE_CLIENTS=1`` (CI).
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from client_servers import NS, Service, calendar_service, call, node, run_node

pytestmark = [pytest.mark.clients, pytest.mark.server]

REPEAT = 3
#: the smallest answer the service gzips (``calendar_rest/edge/encoding.py``)
GZIP_MIN_BYTES = 1024
DAY = dt.date.today() + dt.timedelta(days=12)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Service]:
    node()  # skip (or fail in CI) before starting anything
    with calendar_service(tmp_path_factory.mktemp("node-fetch-service")) as running:
        yield running


@pytest.fixture(scope="module")
def ids(service: Service) -> dict[str, int]:
    """A published event of the demo data and a draft only the administrator reads."""
    published = service.all_events()[0]["id"]
    draft = call(
        "POST",
        f"{service.api}/events",
        headers={"Authorization": service.authorization},
        json_body={
            "title": "A draft read by a Node app",
            "status": "draft",
            "start_date": f"{DAY} 18:00:00",
            "end_date": f"{DAY} 20:00:00",
        },
    )
    assert draft.status == 201, draft.body
    return {"published": int(published), "draft": int(draft.body["id"])}


def paths(ids: dict[str, int], authenticated: bool) -> list[str]:
    """What a Node app reads: lists, single records, feeds and the change feed, on both
    language roots; the draft only with credentials."""
    event = ids["draft"] if authenticated else ids["published"]
    read = [
        f"{NS}/",
        f"{NS}/events",
        f"{NS}/events?per_page=2&page=2",
        f"{NS}/events/{event}",
        f"{NS}/events.ics",
        f"{NS}/events/{event}.ics",
        f"{NS}/changes",
        f"{NS}/venues",
        f"{NS}/organizers",
        f"{NS}/categories",
        f"{NS}/tags",
        f"/fr{NS}/events/{event}",
        f"/fr{NS}/events",
        f"{NS}/events/999999",  # an error, cached by nobody
    ]
    if authenticated:
        read.append(f"{NS}/events?status=draft")
    return read


def plan(service: Service, ids: dict[str, int], authenticated: bool) -> list[dict[str, t.Any]]:
    """Each path read three times (gzip, fetch's default), twice without gzip, sent as
    HEAD twice, and read with the tag it got."""
    headers = {"Authorization": service.authorization} if authenticated else {}
    conditional = {**headers, "If-None-Match": "@etag"}
    kinds = (
        ("get", "GET", headers, REPEAT),
        ("identity", "GET", {**headers, "Accept-Encoding": "identity"}, 2),
        ("head", "HEAD", headers, 2),
    )
    requests = []
    for path in paths(ids, authenticated):
        url = f"{service.origin}{path}"
        for kind, method, sent, repeat in (*kinds, ("conditional", "GET", conditional, 2)):
            requests.append(
                {"kind": kind, "url": url, "method": method, "headers": sent, "repeat": repeat}
            )
    return requests


@pytest.mark.parametrize("authenticated", [False, True], ids=["anonymous", "basic-auth"])
def test_every_read_reaches_node_fetch_whole_through_cache_hits(
    service: Service, ids: dict[str, int], authenticated: bool
) -> None:
    """No answer is refused; each has one ``Content-Length``, its body's (a HEAD's is
    its GET's); the repeated reads are cache hits; a read sent with its tag is a 304."""
    results = run_node("node_fetch.js", {"requests": plan(service, ids, authenticated)})
    assert isinstance(results, list), results
    refused = [
        (result["method"], result["url"], answer)
        for result in results
        for answer in result["answers"]
        if "error" in answer
    ]
    assert refused == [], f"undici refused {len(refused)} of the answers: {refused[:3]}"
    by_kind = {(result["kind"], result["url"]): result["answers"] for result in results}
    for (kind, url), answers in by_kind.items():
        got = by_kind[("get", url)]
        identity = by_kind[("identity", url)]
        if kind == "get":
            assert [answer["status"] for answer in answers] == [got[0]["status"]] * REPEAT
            for answer in answers:
                assert_decoded(answer, identity[0], url)
            if got[0]["status"] == 200:
                assert [answer["cache"] for answer in answers[1:]] == ["hit"] * (REPEAT - 1), url
        elif kind == "identity":
            for answer in answers:
                assert answer["contentEncoding"] is None, (url, answer)
                assert answer["contentLength"] == str(answer["bodyBytes"]), (url, answer)
                assert answer["bodySha256"] == identity[0]["bodySha256"], url
        elif kind == "head":
            for answer in answers:
                assert answer["status"] == got[0]["status"] and answer["bodyBytes"] == 0
                assert answer["contentLength"] == got[0]["contentLength"], (url, answer)
        elif got[0]["status"] == 200:  # conditional: a 200, then a 304 without a length
            assert [answer["status"] for answer in answers] == [200, 304], (url, answers)
            assert answers[1]["contentLength"] is None and answers[1]["etag"] == got[0]["etag"]


def assert_decoded(answer: dict[str, t.Any], identity: dict[str, t.Any], url: str) -> None:
    """A read with fetch's own ``Accept-Encoding``: gzipped when it is 1 KB or more
    (every such answer here is text), decoded by fetch to the identity bytes."""
    assert answer["bodySha256"] == identity["bodySha256"], (url, answer)
    if identity["bodyBytes"] < GZIP_MIN_BYTES:
        assert answer["contentEncoding"] is None, (url, answer)
        assert answer["contentLength"] == str(answer["bodyBytes"]), (url, answer)
        return
    assert answer["contentEncoding"] == "gzip", (url, answer)
    assert int(answer["contentLength"]) < answer["bodyBytes"], (url, answer)
    assert "Accept-Encoding" in answer["vary"], (url, answer)
    if identity["etag"]:
        assert answer["etag"] == identity["etag"][:-1] + '-gzip"', (url, answer)


def test_a_gzip_read_decodes_to_the_json_and_its_tag_protects_a_write(
    service: Service, ids: dict[str, int]
) -> None:
    """A list read with gzip is the identity JSON; an event read with gzip, then
    ``PATCH``ed with ``If-Match`` of the tag that read got: 200 (``sync.md`` §1)."""
    auth = {"Authorization": service.authorization}
    events = f"{service.origin}{NS}/events"
    event = f"{service.origin}{NS}/events/{ids['draft']}"
    write = {"title": "Renamed after a gzip read"}
    results = run_node(
        "node_fetch.js",
        {
            "requests": [
                {"kind": "gzip", "url": events, "method": "GET", "headers": {}},
                {
                    "kind": "identity",
                    "url": events,
                    "method": "GET",
                    "headers": {"Accept-Encoding": "identity"},
                },
                {"kind": "read", "url": event, "method": "GET", "headers": auth},
                {
                    "kind": "write",
                    "url": event,
                    "method": "PATCH",
                    "headers": {
                        **auth,
                        "Content-Type": "application/json",
                        "If-Match": "@last-etag",
                    },
                    "body": write,
                },
            ]
        },
    )
    assert isinstance(results, list), results
    (zipped,), (plain,), (read,), (written,) = (result["answers"] for result in results)
    assert zipped["status"] == plain["status"] == 200 and zipped["contentEncoding"] == "gzip"
    assert zipped["bodySha256"] == plain["bodySha256"] and plain["contentEncoding"] is None
    assert read["contentEncoding"] == "gzip" and read["etag"].endswith('-gzip"'), read
    assert written["status"] == 200, written
    assert written["etag"] != read["etag"]
