"""Cross-origin requests (``open-web.md`` §5), row by row of its table.

The rules protect users whose browser caches HTTP Basic credentials: a page from an
origin of the ``cors_origins`` allow-list gets credentials; any other page may read what
an anonymous visitor reads (``*``, never with credentials) and may not write at all, its
unsafe requests refused before they have any effect, since CORS only hides responses
and a form POST needs no preflight. Same-origin pages and clients without ``Origin`` are
served as usual. The headers are added after the response cache, so a cached answer
never carries (or leaks) another origin's headers.

The listed origin is ``https://partner.example``; the Werkzeug test client's own origin
is ``http://localhost``.
"""

from __future__ import annotations

import dataclasses
import io
import typing as t

import orjson
import pytest
from conftest import ANONYMOUS, NS, Api, Role, api_for, assert_wp_error
from open_web import MISSING_ID, Body, call, day, make_event, ok, tokens
from werkzeug.test import TestResponse

from calendar_rest import create_app
from calendar_rest.app import Application
from calendar_rest.settings import Settings

Build = t.Callable[..., Application]
LISTED = "https://partner.example"
UNLISTED = "https://elsewhere.example"
SAME = "http://localhost"
#: Access-Control-Expose-Headers, Access-Control-Allow-Methods, -Allow-Headers (§5)
E = [
    "X-WP-Total",
    "X-WP-TotalPages",
    "X-TEC-Total",
    "X-TEC-TotalPages",
    "Link",
    "ETag",
    "Last-Modified",
    "Allow",
    "Content-Disposition",
    "X-Calendar-Generation",
    "X-Calendar-Cache",
    "RateLimit-Policy",
    "RateLimit",
    "Retry-After",
]
M = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]
H = [
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
    "X-Calendar-Min-Generation",
]
WRONG_PASSWORD = "Basic YWRtaW5pc3RyYXRvcjp3cm9uZw=="  # administrator:wrong
VALID_EVENT = {
    "title": "Cross-site party",
    "start_date": f"{day(30)} 19:00:00",
    "end_date": f"{day(30)} 21:00:00",
}


@pytest.fixture
def cors(api: Api, sibling_app: Build) -> Api:
    """A client of an app that lists ``LISTED`` (and nothing else) in ``cors_origins``."""
    return api_for(sibling_app(cors_origins=LISTED), api)


def who(role: Role) -> str:
    return "anonymous" if role is None else role


def access_control(response: TestResponse) -> dict[str, str]:
    """The response's ``Access-Control-*`` headers, by lower-case name."""
    return {
        name.lower(): value
        for name, value in response.headers.items()
        if name.lower().startswith("access-control-")
    }


def names(response: TestResponse, header: str) -> list[str]:
    """A list header's items, lower-cased (header names are case-insensitive)."""
    return [item.lower() for item in tokens(response, header)]


def lower(items: list[str]) -> list[str]:
    return [item.lower() for item in items]


def varies_on_origin(response: TestResponse) -> bool:
    return "origin" in names(response, "Vary")


def assert_credentialed(response: TestResponse, origin: str, *, preflight: bool = False) -> None:
    """The listed row: the origin echoed with credentials, E exposed, and on a preflight
    the methods M and request headers H."""
    headers = access_control(response)
    assert headers.get("access-control-allow-origin") == origin, headers
    assert headers.get("access-control-allow-credentials") == "true", headers
    assert sorted(names(response, "Access-Control-Expose-Headers")) == sorted(lower(E)), headers
    assert varies_on_origin(response), response.headers.get("Vary")
    if preflight:
        assert sorted(names(response, "Access-Control-Allow-Methods")) == sorted(lower(M))
        assert sorted(names(response, "Access-Control-Allow-Headers")) == sorted(lower(H))
    else:
        assert "access-control-allow-methods" not in headers, headers
        assert "access-control-allow-headers" not in headers, headers


def assert_open_read(response: TestResponse) -> None:
    """The unlisted safe-read row: ``*`` and E, never credentials."""
    headers = access_control(response)
    assert headers.get("access-control-allow-origin") == "*", headers
    assert sorted(names(response, "Access-Control-Expose-Headers")) == sorted(lower(E)), headers
    assert "access-control-allow-credentials" not in headers, headers
    assert varies_on_origin(response), response.headers.get("Vary")


def assert_no_cors(response: TestResponse) -> None:
    assert not access_control(response), access_control(response)


def assert_refused_cross_origin(response: TestResponse) -> None:
    """The unlisted-write row: 403 ``rest_cors_origin_not_allowed``, unreadable by the
    page (no ``Access-Control-Allow-Origin``, no credentials header)."""
    assert_wp_error(response, 403, "rest_cors_origin_not_allowed")
    headers = access_control(response)
    assert "access-control-allow-origin" not in headers, headers
    assert "access-control-allow-credentials" not in headers, headers


def from_origin(origin: str | None, **headers: str) -> dict[str, str]:
    return {**({"Origin": origin} if origin is not None else {}), **headers}


def preflight(api: Api, path: str, origin: str, method: str, **headers: str) -> TestResponse:
    """A browser's preflight for ``method`` on ``path`` (below the namespace)."""
    sent = from_origin(
        origin,
        **{
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization, content-type",
            **headers,
        },
    )
    return api.request("OPTIONS", path, headers=sent)


# -- no Origin ---------------------------------------------------------------------------


def test_requests_without_origin_get_no_cors_headers(cors: Api) -> None:
    """Servers and command-line tools send no ``Origin``: nothing changes for them, and
    nothing in their answers is addressed to browsers of other sites."""
    event = make_event(cors, "administrator", "publish")
    responses = [
        cors.get("/events"),
        cors.get(f"/events/{event['id']}", "editor"),
        cors.get(f"/events/{MISSING_ID}"),
        cors.request("HEAD", "/events"),
        cors.request("OPTIONS", f"/events/{event['id']}"),
        cors.post("/tags", "administrator", json={"name": "Outdoors"}),
        cors.post("/events", json=VALID_EVENT),
        cors.delete(f"/events/{event['id']}", "administrator"),
    ]
    for response in responses:
        assert_no_cors(response)
    assert responses[5].status_code == 201


# -- a listed origin ---------------------------------------------------------------------

# fmt: off
#: (what, method, path, caller, body, status); ``{event}`` is a published event
LISTED_REQUESTS = [
    ("an anonymous list",         "GET",     "/events",                ANONYMOUS,       None, 200),
    ("an authenticated read",     "GET",     "/events/{event}",        "editor",        None, 200),
    ("a HEAD",                    "HEAD",    "/events",                "editor",        None, 200),
    ("a plain OPTIONS",           "OPTIONS", "/events/{event}",        "editor",        None, 200),
    ("a create",                  "POST",    "/tags",                  "administrator",
     {"name": "Outdoors"}, 201),
    ("an update",                 "PATCH",   "/events/{event}",        "administrator",
     {"title": "Renamed"}, 200),
    ("a replacement",             "PUT",     "/events/{event}",        "administrator",
     {"title": "Renamed again"}, 200),
    ("an invalid parameter",      "GET",     "/events?per_page=zero",  ANONYMOUS,       None, 400),
    ("an anonymous write",        "POST",    "/events",                ANONYMOUS,
     VALID_EVENT, 401),
    ("wrong credentials",         "GET",     "/events",                "wrong",         None, 401),
    ("a refused write",           "DELETE",  "/events/{event}",        "subscriber",    None, 403),
    ("a missing record",          "GET",     f"/events/{MISSING_ID}",  ANONYMOUS,       None, 404),
    ("no route",                  "GET",     "/nowhere",               ANONYMOUS,       None, 404),
    ("a delete",                  "DELETE",  "/events/{event}",        "administrator", None, 200),
]
# fmt: on


def test_a_listed_origin_gets_credentials_on_every_answer_errors_included(cors: Api) -> None:
    """A partner page reads whatever it asked for, failures included (a 401 tells it to
    ask for a password, a 404 that the record is gone), and may write as its user."""
    event = make_event(cors, "administrator", "publish")
    wrong = []
    for what, method, path, caller, body, status in LISTED_REQUESTS:
        headers = from_origin(LISTED)
        if caller == "wrong":
            headers["Authorization"] = WRONG_PASSWORD
        role = None if caller == "wrong" else caller
        kwargs = {"json": body} if body is not None else {}
        response = cors.request(
            method, path.format(event=event["id"]), role, headers=headers, **kwargs
        )
        if response.status_code != status:
            wrong.append(f"{what}: {response.status_code} {response.get_data(as_text=True)}")
            continue
        try:
            assert_credentialed(response, LISTED)
        except AssertionError as exc:
            wrong.append(f"{what}: {exc}")
    assert not wrong


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_a_listed_preflight_allows_every_method_and_header_whatever_the_record(
    cors: Api, method: str
) -> None:
    """Preflights never depend on authentication (browsers send none) nor on the record:
    an ``Authorization`` header on one, even a wrong one, is ignored."""
    event = make_event(cors, "administrator", "publish")
    credentials = [{}, cors.headers("editor"), {"Authorization": WRONG_PASSWORD}]
    for extra in credentials:
        for path in ("/events", f"/events/{event['id']}", f"/events/{MISSING_ID}", "/tags"):
            response = preflight(cors, path, LISTED, method, **extra)
            assert response.status_code == 200, (path, extra, response.get_data(as_text=True))
            assert_credentialed(response, LISTED, preflight=True)


def test_a_listed_origin_is_refused_nothing_its_user_may_do(cors: Api) -> None:
    """Listing an origin lets its pages act with the user's own rights: a refusal is
    the user's (403 ``rest_forbidden``), not the origin's."""
    event = make_event(cors, "contributor", "draft")
    headers = from_origin(LISTED)

    mine = cors.patch(
        f"/events/{event['id']}", "contributor", json={"title": "Mine"}, headers=headers
    )
    theirs = cors.patch(f"/events/{event['id']}", "author", json={"title": "No"}, headers=headers)

    assert ok(mine)["title"] == "Mine"
    assert_wp_error(theirs, 403, "rest_forbidden")
    assert_credentialed(theirs, LISTED)


# -- the same origin ---------------------------------------------------------------------


def test_a_same_origin_page_is_served_normally_and_never_refused(cors: Api) -> None:
    """Browsers send ``Origin`` on same-origin POSTs too: the service's own pages (and a
    reverse proxy forwarding ``Host``) must not be treated as foreign."""
    event = make_event(cors, "author", "publish")
    headers = from_origin(SAME)

    listing = cors.get("/events", headers=headers)
    created = cors.post("/events", "author", json=VALID_EVENT, headers=headers)
    updated = cors.post(
        f"/events/{event['id']}?_method=PATCH", "author", json={"title": "Same"}, headers=headers
    )
    deleted = cors.delete(f"/events/{event['id']}", "author", headers=headers)

    ok(listing)
    assert ok(created, 201)["title"] == VALID_EVENT["title"]
    assert ok(updated)["title"] == "Same"
    assert ok(deleted)["status"] == "trash"
    for response in (listing, created, updated, deleted):
        assert_no_cors(response)


def test_the_same_origin_is_the_host_the_request_was_sent_to(cors: Api) -> None:
    """Behind a reverse proxy the page's origin is the proxy's ``Host``, not the address
    the service is bound to."""
    headers = {"Host": "cal.example.org", "Origin": "http://cal.example.org"}
    created = cors.post("/events", "author", json=VALID_EVENT, headers=headers)
    assert ok(created, 201)
    assert_no_cors(created)
    other_scheme = {"Host": "cal.example.org", "Origin": "https://cal.example.org"}
    assert_refused_cross_origin(
        cors.post("/events", "author", json=VALID_EVENT, headers=other_scheme)
    )


def test_the_same_origin_is_the_site_url_when_it_is_set(api: Api, sibling_app: Build) -> None:
    public = api_for(sibling_app(site_url="https://cal.example.org"), api)
    headers = {"Host": "10.0.0.5:8080", "Origin": "https://cal.example.org"}
    created = public.post("/events", "author", json=VALID_EVENT, headers=headers)
    assert ok(created, 201)
    assert_no_cors(created)


# -- an unlisted origin: reads -------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        UNLISTED,
        "null",
        "https://PARTNER.example",
        "https://partner.example:443",
        "http://partner.example",
    ],
    ids=["another site", "null", "a listed origin in capitals", "with a port", "http"],
)
def test_an_unlisted_origin_reads_like_anonymous_visitors_with_a_star(
    cors: Api, origin: str
) -> None:
    """Public calendars are embedded by widgets on any site: safe reads are open to every
    origin with ``*``, which browsers never combine with credentials. ``Origin`` is
    compared exactly (``null`` is never listed; browsers never write default ports)."""
    event = make_event(cors, "administrator", "publish")
    draft = make_event(cors, "contributor", "draft")
    headers = from_origin(origin)
    wrong_headers = {**headers, "Authorization": WRONG_PASSWORD}
    responses = {
        "an anonymous list": (cors.get("/events", headers=headers), 200),
        "an authenticated read": (
            cors.get(f"/events/{event['id']}", "editor", headers=headers),
            200,
        ),
        "a HEAD": (cors.request("HEAD", "/events", headers=headers), 200),
        "a plain OPTIONS": (
            cors.request("OPTIONS", f"/events/{event['id']}", headers=headers),
            200,
        ),
        "an invalid parameter": (cors.get("/events?per_page=zero", headers=headers), 400),
        "wrong credentials": (cors.get("/events", headers=wrong_headers), 401),
        "a hidden draft": (cors.get(f"/events/{draft['id']}", "subscriber", headers=headers), 403),
        "a missing record": (cors.get(f"/events/{MISSING_ID}", headers=headers), 404),
        "no route": (cors.get("/nowhere", headers=headers), 404),
    }
    for what, (response, status) in responses.items():
        assert response.status_code == status, (what, response.get_data(as_text=True))
        assert_open_read(response)


@pytest.mark.parametrize("origin", [LISTED, UNLISTED])
def test_a_locked_login_is_429_readable_by_the_page(
    api: Api, sibling_app: Build, origin: str
) -> None:
    """The listed and unlisted-read rows hold for every status, the login throttle's 429
    included, so a page can tell its user to wait."""
    guarded = api_for(sibling_app(cors_origins=LISTED, login_max_failures_per_user=2), api)
    wrong = {"Authorization": "Basic c3Vic2NyaWJlcjp3cm9uZw=="}  # subscriber:wrong
    statuses = [guarded.get("/events", headers=wrong).status_code for _ in range(4)]
    assert statuses[-1] == 429, statuses

    response = guarded.get("/events", headers={**wrong, "Origin": origin})

    assert_wp_error(response, 429, response.json["code"])
    if origin == LISTED:
        assert_credentialed(response, LISTED)
    else:
        assert_open_read(response)


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_an_unlisted_preflight_for_a_read_allows_get_and_head_only(cors: Api, method: str) -> None:
    """Reads are open to every origin, without credentials; the preflight says so
    whatever ``Authorization`` it carries."""
    for extra in ({}, {"Authorization": WRONG_PASSWORD}):
        for path in ("/events", f"/events/{MISSING_ID}", "/categories", ""):
            response = preflight(cors, path, UNLISTED, method, **extra)
            assert response.status_code == 200, (path, extra, response.get_data(as_text=True))
            headers = access_control(response)
            assert headers.get("access-control-allow-origin") == "*", headers
            assert names(response, "Access-Control-Allow-Methods") == ["get", "head"], headers
            assert sorted(names(response, "Access-Control-Allow-Headers")) == sorted(lower(H))
            assert "access-control-allow-credentials" not in headers, headers
            assert varies_on_origin(response)


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_an_unlisted_preflight_for_a_write_gets_no_allow_header_so_the_browser_stops(
    cors: Api, method: str
) -> None:
    """The plain OPTIONS answer (200, ``Allow``) without any ``Access-Control-Allow-*``
    header: the browser never sends the write. Never a 401, even with a wrong password."""
    event = make_event(cors, "administrator", "publish")
    for extra in ({}, {"Authorization": WRONG_PASSWORD}):
        for path in ("/events", f"/events/{event['id']}", f"/events/{MISSING_ID}"):
            response = preflight(cors, path, UNLISTED, method, **extra)
            assert response.status_code == 200, (path, extra, response.get_data(as_text=True))
            assert response.headers.get("Allow"), path
            allowing = [name for name in access_control(response) if "-allow-" in name]
            assert not allowing, (path, access_control(response))


# -- an unlisted origin: writes --------------------------------------------------------------


@dataclasses.dataclass
class Attempt:
    """One cross-site write: how it is sent, and how to tell it had no effect."""

    method: str
    path: str
    caller: str | None
    body: Body | None = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    raw: bytes | None = None


def attempts(event: Body) -> dict[str, Attempt]:
    item = f"/events/{event['id']}"
    rename = {"title": "Hijacked"}
    return {
        "POST create": Attempt("POST", "/events", "administrator", VALID_EVENT),
        "PUT": Attempt("PUT", item, "administrator", rename),
        "PATCH": Attempt("PATCH", item, "administrator", rename),
        "DELETE": Attempt("DELETE", item, "administrator"),
        "POST update": Attempt("POST", item, "administrator", rename),
        "POST with _method=DELETE": Attempt("POST", f"{item}?_method=DELETE", "administrator"),
        "POST with X-HTTP-Method-Override": Attempt(
            "POST", item, "administrator", headers={"X-HTTP-Method-Override": "DELETE"}
        ),
        "POST with a form body": Attempt(
            "POST",
            item,
            "administrator",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            raw=b"title=Hijacked",
        ),
        "POST with a text/plain body": Attempt(
            "POST", item, "administrator", headers={"Content-Type": "text/plain"}, raw=b"{}"
        ),
        "anonymous POST": Attempt("POST", "/events", ANONYMOUS, VALID_EVENT),
        "POST with wrong credentials": Attempt(
            "POST", "/events", None, VALID_EVENT, {"Authorization": WRONG_PASSWORD}
        ),
        "POST with malformed JSON": Attempt(
            "POST",
            item,
            "administrator",
            headers={"Content-Type": "application/json"},
            raw=b"{not json",
        ),
        "POST to no route": Attempt("POST", "/nowhere", "administrator", rename),
        "DELETE of a missing record": Attempt("DELETE", f"/events/{MISSING_ID}", "administrator"),
        "POST a term": Attempt("POST", "/tags", "administrator", {"name": "Hijacked"}),
    }


ATTEMPTS = list(attempts({"id": 0}))


def send(api: Api, attempt: Attempt, origin: str) -> TestResponse:
    headers = {"Origin": origin, **attempt.headers}
    if attempt.raw is not None:
        return api.request(
            attempt.method, attempt.path, attempt.caller, headers=headers, data=attempt.raw
        )
    kwargs = {"json": attempt.body} if attempt.body is not None else {}
    return api.request(attempt.method, attempt.path, attempt.caller, headers=headers, **kwargs)


def snapshot(api: Api) -> tuple[list[Body], list[str]]:
    """Every event and tag as an editor sees them (without ``Origin``)."""
    events = ok(
        api.get(
            "/events",
            "editor",
            query_string={"per_page": 50, "status": "publish,future,draft,pending,private"},
        )
    )
    tags = ok(api.get("/tags", "editor", query_string={"hide_empty": "false"}))
    return events["events"], [tag["name"] for tag in tags["tags"]]


@pytest.mark.parametrize("what", ATTEMPTS)
def test_an_unlisted_origin_cannot_write_and_nothing_happens(cors: Api, what: str) -> None:
    """A cross-site form POST needs no preflight and ``_method`` turns it into a DELETE:
    the refusal comes before authentication, body parsing and any look-up, so nothing is
    created, changed or deleted whatever the request's credentials or body, and the page
    cannot even read the refusal."""
    event = make_event(cors, "administrator", "publish")
    before = snapshot(cors)
    for origin in (UNLISTED, "null"):
        response = send(cors, attempts(event)[what], origin)

        assert_refused_cross_origin(response)
        assert snapshot(cors) == before, origin


def test_refused_cross_site_logins_are_not_counted_as_failures(
    api: Api, sibling_app: Build
) -> None:
    """The refusal comes before authentication: a foreign page cannot lock a user out by
    posting wrong passwords in their name."""
    guarded = api_for(sibling_app(cors_origins=LISTED, login_max_failures_per_user=2), api)
    wrong = {"Authorization": WRONG_PASSWORD, "Origin": UNLISTED}
    for _ in range(4):
        assert_refused_cross_origin(guarded.post("/events", json=VALID_EVENT, headers=wrong))
    assert ok(guarded.get("/events", "administrator"))
    assert_wp_error(
        guarded.get("/events", headers={"Authorization": WRONG_PASSWORD}), 401, "incorrect_password"
    )


def test_a_refused_cross_site_write_still_consumes_its_body(cors: Api) -> None:
    """``security.md`` C4: the refusal reaches a client still sending its body, and a
    kept-alive connection stays in step."""
    body = orjson.dumps({**VALID_EVENT, "description": "x" * 20_000})
    stream = io.BytesIO(body)

    response = cors.client.open(
        f"{NS}/events",
        method="POST",
        input_stream=stream,
        content_length=len(body),
        headers={
            **cors.headers("administrator"),
            "Origin": UNLISTED,
            "Content-Type": "application/json",
        },
    )

    assert_refused_cross_origin(response)
    assert stream.tell() == len(body)


def test_an_oversized_body_is_413_before_the_origin_is_judged(api: Api, sibling_app: Build) -> None:
    """``security.md`` C1: the declared length is step 1, the origin step 2."""
    small = api_for(sibling_app(cors_origins=LISTED, max_body_bytes=64), api)
    response = small.post("/events", "administrator", data=b"x" * 200, headers={"Origin": UNLISTED})
    assert_wp_error(response, 413, "rest_payload_too_large")


# -- Vary ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin", [None, LISTED, UNLISTED, SAME], ids=["none", "listed", "unlisted", "same"]
)
def test_every_read_varies_on_origin_so_shared_caches_keep_variants_apart(
    cors: Api, origin: str | None
) -> None:
    """A shared cache that stored the ``*`` variant must not serve it to a listed
    partner (nor a partner's credentialed variant to anyone), so ``Vary: Origin`` is on
    every GET, HEAD and OPTIONS answer, with or without ``Origin``."""
    event = make_event(cors, "administrator", "publish")
    headers = from_origin(origin)
    responses = [
        cors.get("/events", headers=headers),
        cors.get("/events", headers=headers),  # the cached answer
        cors.get(f"/events/{event['id']}", "editor", headers=headers),
        cors.get(f"/events/{MISSING_ID}", headers=headers),
        cors.request("HEAD", f"/events/{event['id']}", headers=headers),
        cors.request("OPTIONS", "/events", headers=headers),
        call(cors, "GET", "/", headers=headers),
        cors.get("", headers=headers),
    ]
    for response in responses:
        assert varies_on_origin(response), (response.status_code, response.headers.get("Vary"))


def test_a_credentialed_write_answer_varies_on_origin(cors: Api) -> None:
    response = cors.post(
        "/tags", "administrator", json={"name": "Outdoors"}, headers={"Origin": LISTED}
    )
    assert ok(response, 201)
    assert varies_on_origin(response)


# -- the response cache ---------------------------------------------------------------------

ORDERS = {
    "no Origin first": [None, LISTED, UNLISTED, None, SAME],
    "listed first": [LISTED, None, UNLISTED, LISTED, None],
    "unlisted first": [UNLISTED, None, LISTED, SAME, UNLISTED],
}


@pytest.mark.parametrize("role", [ANONYMOUS, "editor"], ids=who)
@pytest.mark.parametrize("order", list(ORDERS))
def test_cached_answers_get_the_cors_headers_of_each_request_and_leak_none(
    cors: Api, role: Role, order: str
) -> None:
    """The response cache (the anonymous fast path included) stores answers without
    origin-specific headers: each request gets the headers its own ``Origin`` calls
    for, whatever the request that filled the cache sent."""
    event = make_event(cors, "administrator", "publish")
    for path in ("/events", f"/events/{event['id']}"):
        for origin in ORDERS[order]:
            response = cors.get(path, role, headers=from_origin(origin))
            assert response.status_code == 200, response.get_data(as_text=True)
            if origin == LISTED:
                assert_credentialed(response, LISTED)
            elif origin == UNLISTED:
                assert_open_read(response)
            else:
                assert_no_cors(response)


# -- the setting ------------------------------------------------------------------------------

BAD_ORIGINS = [
    "*",
    "null",
    "https://partner.example/calendar",
    "https://partner.example/?x=1",
    "ftp://partner.example",
    "file:///etc",
    "partner.example",
    "https://",
]


@pytest.mark.parametrize("value", BAD_ORIGINS)
def test_the_setting_refuses_what_is_not_an_exact_http_origin(
    value: str, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    """A wildcard or ``null`` in the allow-list would hand every page (or every sandboxed
    iframe) the users' credentials; a path or another scheme can never equal an
    ``Origin`` and betrays a misunderstanding. Refused at start-up, however given."""
    with pytest.raises(ValueError):
        dataclasses.replace(Settings(), cors_origins=(value,)).validate()
    with pytest.raises(ValueError):
        Settings.build(environ={}, cors_origins=value)
    with pytest.raises(ValueError):
        Settings.build(environ={"CALENDAR_REST_CORS_ORIGINS": f"https://ok.example,{value}"})
    monkeypatch.setenv("CALENDAR_REST_CORS_ORIGINS", value)
    with pytest.raises(ValueError):
        create_app(database_url)


def test_the_setting_is_empty_by_default(api: Api, sibling_app: Build) -> None:
    """Nobody gets credentials until an operator lists an origin."""
    assert not Settings.build(environ={}).cors_origins
    default = api_for(sibling_app(), api)
    response = default.get("/events", "editor", headers={"Origin": LISTED})
    assert_open_read(response)
    assert_refused_cross_origin(
        default.post("/tags", "administrator", json={"name": "x"}, headers={"Origin": LISTED})
    )


def assert_listed(client: Api, origin: str) -> None:
    response = client.post(
        "/tags", "administrator", json={"name": f"From {origin}"}, headers={"Origin": origin}
    )
    assert response.status_code == 201, (origin, response.get_data(as_text=True))
    assert_credentialed(response, origin)


@pytest.mark.parametrize(
    "value",
    [
        "HTTPS://Partner.Example/, http://localhost:8080",
        ("https://partner.example/", "HTTP://LOCALHOST:8080"),
    ],
    ids=["a comma-separated string", "a tuple"],
)
def test_listed_origins_are_normalised_lower_case_without_a_trailing_slash(
    api: Api, sibling_app: Build, value: str | tuple[str, ...]
) -> None:
    """Operators paste origins from address bars; browsers send them lower-case and
    without a path."""
    client = api_for(sibling_app(cors_origins=value), api)
    assert_listed(client, LISTED)
    assert_listed(client, "http://localhost:8080")


def test_the_setting_is_read_from_the_environment(
    api: Api, sibling_app: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALENDAR_REST_CORS_ORIGINS", "https://a.example, https://B.example:8443/")
    client = api_for(sibling_app(), api)
    assert_listed(client, "https://a.example")
    assert_listed(client, "https://b.example:8443")
    assert_refused_cross_origin(
        client.post("/tags", "administrator", json={"name": "x"}, headers={"Origin": LISTED})
    )


def test_a_keyword_setting_wins_over_the_environment(
    api: Api, sibling_app: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALENDAR_REST_CORS_ORIGINS", "https://a.example")
    client = api_for(sibling_app(cors_origins=LISTED), api)
    assert_listed(client, LISTED)
    assert_open_read(client.get("/events", headers={"Origin": "https://a.example"}))
