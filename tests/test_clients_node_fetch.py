"""Node's own ``fetch`` (undici, the HTTP client of the runtime) reading the service run by
its CLI (``tests/clients/node_fetch.js``), anonymously and with Basic credentials.

undici's parser is strict where Python's clients are lenient: an answer with two
``Content-Length`` headers is refused (``HPE_UNEXPECTED_CONTENT_LENGTH``). Every read is
sent three times in a row, so the later answers come from the response cache (the
anonymous fast path, and the dispatcher's per-user entries), and once more with the
``ETag`` it got (a 304); HEAD too. Every answer must reach the client whole, with one
length that matches its body.

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
    """Each path read three times, sent as HEAD twice, and read with the tag it got."""
    headers = {"Authorization": service.authorization} if authenticated else {}
    conditional = {**headers, "If-None-Match": "@etag"}
    kinds = (("get", "GET", headers, REPEAT), ("head", "HEAD", headers, 2))
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
        if kind == "get":
            assert [answer["status"] for answer in answers] == [got[0]["status"]] * REPEAT
            for answer in answers:
                assert answer["contentLength"] == str(answer["bodyBytes"]), (url, answer)
            if got[0]["status"] == 200:
                assert [answer["cache"] for answer in answers[1:]] == ["hit"] * (REPEAT - 1), url
        elif kind == "head":
            for answer in answers:
                assert answer["status"] == got[0]["status"] and answer["bodyBytes"] == 0
                assert answer["contentLength"] == got[0]["contentLength"], (url, answer)
        elif got[0]["status"] == 200:  # conditional: a 200, then a 304 without a length
            assert [answer["status"] for answer in answers] == [200, 304], (url, answers)
            assert answers[1]["contentLength"] is None and answers[1]["etag"] == got[0]["etag"]
