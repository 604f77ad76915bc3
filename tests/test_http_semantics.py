"""HTTP semantics every client relies on (``open-web.md`` §1-§4).

§1: every answer is JSON whatever ``Accept`` says, carries a fresh ``Date`` (never the one
replayed from the response cache), carries WordPress's no-cache headers when the request
had credentials, and builds its absolute URLs from the ``Host`` header, the mount point
(``SCRIPT_NAME``) or ``site_url``, never from the bound address. §2: HEAD is GET without a
body on every readable route, errors included. §3: a plain OPTIONS describes the route as
WordPress's ``rest_handle_options_request`` does. §4: ``Allow`` lists what *this* caller
may do to *this* record.

Expected ``Allow`` values are derived from WordPress's default roles and ``map_meta_cap``
(written out below), not read from the service, so a change in the service's permission
code cannot silently change what these tests expect.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import functools
import re
import time
import typing as t

import pytest
from conftest import ALL_ROLES, ANONYMOUS, NS, Api, Role, api_for, assert_wp_error
from open_web import (
    ALLOW_ORDER,
    API_REL,
    JSON_TYPE,
    MISSING_ID,
    NO_CACHE,
    ROOTS,
    Body,
    call,
    create_event_in,
    link,
    make_event,
    make_linked,
    ok,
    tokens,
)
from werkzeug.test import Client, EnvironBuilder, TestResponse, run_wsgi_app

from calendar_rest.app import Application

Build = t.Callable[..., Application]
IMF_FIXDATE = re.compile(
    r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} "
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$"
)
WRONG_PASSWORD = "Basic " + "YWRtaW5pc3RyYXRvcjp3cm9uZw=="  # administrator:wrong
#: every caller of the ownership checks: the roles, and a second contributor and author
CALLERS: tuple[Role, ...] = (*ALL_ROLES, "contributor2", "author2")


def who(role: Role) -> str:
    return "anonymous" if role is None else role


# -- the world every readable route is tried on -----------------------------------------


@pytest.fixture
def world(api: Api) -> dict[str, t.Any]:
    """One published event with an inline venue, organizer, category and tag: a record
    behind every readable route; the path values of each route."""
    event = api.create_event(
        title="Harbor jazz night",
        venue={"venue": "Harbor Hall"},
        organizer=[{"organizer": "Blue Trio"}],
        categories=["Music"],
        tags=["Live"],
    )
    venue, organizer = event["venue"], event["organizer"][0]
    return {
        "event": event["id"],
        "event_slug": event["slug"],
        "venue": venue["id"],
        "venue_slug": venue["slug"],
        "organizer": organizer["id"],
        "organizer_slug": organizer["slug"],
        "category": event["categories"][0]["id"],
        "tag": event["tags"][0]["id"],
    }


#: every route that answers GET: (path below a root, the route's key in the indexes)
READ_ROUTES: list[tuple[str, str]] = [
    ("/", "/"),
    (NS, NS),
    (f"{NS}/", NS),
    (f"{NS}/doc", f"{NS}/doc"),
    (f"{NS}/events", f"{NS}/events"),
    (f"{NS}/events/{{event}}", f"{NS}/events/(?P<id>\\d+)"),
    (f"{NS}/events/by-slug/{{event_slug}}", f"{NS}/events/by-slug/(?P<slug>[^/]+)"),
    (f"{NS}/venues", f"{NS}/venues"),
    (f"{NS}/venues/{{venue}}", f"{NS}/venues/(?P<id>\\d+)"),
    (f"{NS}/venues/by-slug/{{venue_slug}}", f"{NS}/venues/by-slug/(?P<slug>[^/]+)"),
    (f"{NS}/organizers", f"{NS}/organizers"),
    (f"{NS}/organizers/{{organizer}}", f"{NS}/organizers/(?P<id>\\d+)"),
    (
        f"{NS}/organizers/by-slug/{{organizer_slug}}",
        f"{NS}/organizers/by-slug/(?P<slug>[^/]+)",
    ),
    (f"{NS}/categories", f"{NS}/categories"),
    (f"{NS}/categories/{{category}}", f"{NS}/categories/(?P<id>\\d+)"),
    (f"{NS}/tags", f"{NS}/tags"),
    (f"{NS}/tags/{{tag}}", f"{NS}/tags/(?P<id>\\d+)"),
]
ROUTE_IDS = [path.replace(NS, "<ns>") for path, _ in READ_ROUTES]
EVERY_READ_ROUTE = pytest.mark.parametrize(("path", "key"), READ_ROUTES, ids=ROUTE_IDS)
BOTH_ROOTS = pytest.mark.parametrize("root", list(ROOTS.values()), ids=list(ROOTS))


def sent_at(response: TestResponse) -> dt.datetime:
    """The response's ``Date``, which must be an IMF-fixdate (RFC 9110 §5.6.7)."""
    value = response.headers.get("Date")
    assert value is not None, f"no Date on a {response.status_code}"
    assert IMF_FIXDATE.match(value), value
    return email.utils.parsedate_to_datetime(value)


def assert_recent(response: TestResponse, label: str, slack: float = 5.0) -> None:
    """``Date`` within a few seconds of the wall clock (the app under test reads it)."""
    age = abs(dt.datetime.now(dt.timezone.utc).timestamp() - sent_at(response).timestamp())
    assert age <= slack, f"{label}: Date is {age:.0f} s away from now"


def next_second() -> None:
    """Sleep past the next wall-clock second, so that a fresh ``Date`` must differ."""
    time.sleep(1.05 - time.time() % 1)


# -- §1 JSON --------------------------------------------------------------------------

ACCEPTS = [None, "*/*", "text/html", "application/xml", "text/plain", "application/json"]


def test_every_answer_is_json_whatever_the_client_accepts(
    api: Api, world: dict[str, t.Any]
) -> None:
    """Browsers send ``Accept: text/html``; an API that negotiated would answer them
    something else than what a script reading the same URL gets."""
    requests: list[tuple[str, str, Role]] = [
        ("GET", "/", ANONYMOUS),
        ("GET", NS, ANONYMOUS),
        ("GET", f"{NS}/doc", ANONYMOUS),
        ("GET", f"{NS}/events", ANONYMOUS),
        ("GET", f"{NS}/events/{world['event']}", "editor"),
        ("GET", f"{NS}/events/{MISSING_ID}", ANONYMOUS),
        ("GET", f"{NS}/nowhere", ANONYMOUS),
        ("OPTIONS", f"{NS}/events", ANONYMOUS),
        ("POST", f"{NS}/events", ANONYMOUS),
        ("POST", f"{NS}/tags", "administrator"),
    ]
    wrong: list[str] = []
    for accept in ACCEPTS:
        headers = {"Accept": accept} if accept else {}
        for method, path, role in requests:
            if path == "/" and accept == "text/html":
                continue  # the one negotiated route: its page (site.md §1, test_site_pages)
            kwargs = {"json": {"name": f"Tag for {accept}"}} if role == "administrator" else {}
            response = call(api, method, path, role, headers=headers, **kwargs)
            if response.content_type != JSON_TYPE:
                wrong.append(
                    f"{method} {path} with Accept {accept}: "
                    f"{response.status_code} {response.content_type}"
                )
    assert not wrong


# -- §1 Date --------------------------------------------------------------------------


def test_every_response_carries_a_fresh_date_errors_included(
    api: Api, world: dict[str, t.Any], sibling_app: Build
) -> None:
    """HTTP/1.1 origin servers with a clock must send ``Date`` (RFC 9110 §6.6.1); caches
    compute ages from it, so errors need it as much as successes."""
    event = f"{NS}/events/{world['event']}"
    small = Client(sibling_app(max_body_bytes=64))
    responses = {
        "a list": call(api, "GET", f"{NS}/events"),
        "a single read": call(api, "GET", event, "editor"),
        "a missing record": call(api, "GET", f"{NS}/events/{MISSING_ID}"),
        "no route": call(api, "GET", f"{NS}/nowhere"),
        "an invalid parameter": call(api, "GET", event, query_string={"context": "nonsense"}),
        "wrong credentials": call(api, "GET", event, headers={"Authorization": WRONG_PASSWORD}),
        "an anonymous write": call(api, "POST", f"{NS}/events", json={}),
        "a refused write": call(api, "PATCH", event, "subscriber", json={"title": "x"}),
        "a create": call(api, "POST", f"{NS}/tags", "administrator", json={"name": "New"}),
        "a HEAD": call(api, "HEAD", f"{NS}/events"),
        "an OPTIONS": call(api, "OPTIONS", event),
        "the site root": call(api, "GET", "/"),
        "a body too large": small.post(f"{NS}/events", data="x" * 100),
        "a delete": call(api, "DELETE", event, "administrator"),
    }
    for label, response in responses.items():
        assert_recent(response, f"{label} ({response.status_code})")


def test_a_cached_answer_gets_the_date_it_is_sent_not_the_date_it_was_stored(
    api: Api, world: dict[str, t.Any]
) -> None:
    """The response cache (the anonymous fast path and the per-user one) replays bodies;
    a replayed ``Date`` would make every cache downstream think the answer is old."""
    requests = [
        (role, path)
        for role in (ANONYMOUS, "editor")
        for path in (f"{NS}/events", f"{NS}/events/{world['event']}", NS)
    ]
    first = {(role, path): sent_at(call(api, "GET", path, role)) for role, path in requests}
    next_second()
    for role, path in requests:
        again = call(api, "GET", path, role)
        assert again.status_code == 200, again.get_data(as_text=True)
        assert sent_at(again) > first[role, path], (who(role), path)
        assert_recent(again, f"{path} as {who(role)}", slack=2)


# -- §1 Cache-Control of authenticated answers --------------------------------------------

# fmt: off
#: (what, method, path, credentials, body); ``{event}`` is a published event's ID
AUTHENTICATED = [
    ("a list",                "GET",     "/events",             "editor",     None),
    ("a single read",         "GET",     "/events/{event}",     "editor",     None),
    ("the same read, cached", "GET",     "/events/{event}",     "editor",     None),
    ("a missing record",      "GET",     f"/events/{MISSING_ID}", "editor",   None),
    ("an invalid parameter",  "GET",     "/events?per_page=x",  "editor",     None),
    ("no route",              "GET",     "/nowhere",            "editor",     None),
    ("a HEAD",                "HEAD",    "/events/{event}",     "subscriber", None),
    ("an OPTIONS",            "OPTIONS", "/events/{event}",     "subscriber", None),
    ("a refused write",       "PATCH",   "/events/{event}",     "subscriber", {"title": "x"}),
    ("an update",             "PATCH",   "/events/{event}",     "editor",     {"title": "x"}),
    ("a create",              "POST",    "/tags",               "editor",     {"name": "New"}),
    ("a delete",              "DELETE",  "/events/{event}",     "editor",     None),
    ("wrong credentials",     "GET",     "/events",             "wrong",      None),
    ("wrong credentials on a write", "POST", "/events",         "wrong",      {}),
]
# fmt: on


def test_every_answer_to_a_request_with_credentials_forbids_caching(
    api: Api, world: dict[str, t.Any]
) -> None:
    """As WordPress's ``wp_get_nocache_headers()``: a private answer (or a refusal of the
    credentials) must never be stored by a browser or a shared cache. The cases run in
    the table's order (the cached read follows the first read, the delete comes last)."""
    wrong = []
    for what, method, path, caller, body in AUTHENTICATED:
        url = NS + path.format(event=world["event"])
        headers = {"Authorization": WRONG_PASSWORD} if caller == "wrong" else {}
        role = None if caller == "wrong" else caller
        kwargs = {"json": body} if body is not None else {}
        response = call(api, method, url, role, headers=headers, **kwargs)
        directives = {item.lower() for item in tokens(response, "Cache-Control")}
        if directives != NO_CACHE:
            wrong.append(f"{what} ({response.status_code}): {directives}")
    assert not wrong


# -- §1 absolute URLs -------------------------------------------------------------------

# fmt: off
#: (scenario, settings, request headers, environ overrides, site root URL of ``/``)
PLACES = [
    ("the Host header, not the bound address", {},
     {"Host": "cal.example.org:8443"}, {"SERVER_NAME": "10.0.0.5", "SERVER_PORT": "8080"},
     "http://cal.example.org:8443/"),
    ("a SCRIPT_NAME mount", {},
     {}, {"SCRIPT_NAME": "/mount"},
     "http://localhost/mount/"),
    ("the request scheme", {},
     {"Host": "cal.example.org"}, {"wsgi.url_scheme": "https"},
     "https://cal.example.org/"),
    ("the site_url setting", {"site_url": "https://cal.example.org"},
     {"Host": "internal:8000"}, {"SCRIPT_NAME": "/ignored"},
     "https://cal.example.org/"),
]
# fmt: on


@BOTH_ROOTS
@pytest.mark.parametrize(
    ("scenario", "settings", "headers", "environ", "site_root"),
    [pytest.param(*row, id=row[0]) for row in PLACES],
)
def test_absolute_urls_name_the_host_and_mount_the_client_used(
    api: Api,
    sibling_app: Build,
    root: str,
    scenario: str,
    settings: dict[str, str],
    headers: dict[str, str],
    environ: dict[str, str],
    site_root: str,
) -> None:
    """A reverse proxy forwards ``Host``; the URLs it relays must point back through it,
    never at the address the service is bound to. Every kind of absolute URL the service
    writes is checked: list and record links, pagination, indexes, ``/doc``, discovery."""
    client = Client(sibling_app(**settings)) if settings else api.client
    first = create_event_in(api, root, title="First night")
    create_event_in(api, root, title="Second night")
    here = site_root + root.lstrip("/") + ("/" if root else "")
    namespace = here + NS.lstrip("/")

    def get(path: str, **kwargs: t.Any) -> TestResponse:
        return client.get(root + path, headers=headers, environ_overrides=environ, **kwargs)

    listing = get(f"{NS}/events", query_string={"per_page": 1})
    single = get(f"{NS}/events/{first['id']}")
    site = get("/")
    index = get(NS)
    doc = get(f"{NS}/doc")
    urls = {
        "list rest_url": ok(listing)["rest_url"],
        "list next_rest_url": listing.json.get("next_rest_url"),
        "Link rel=next": link(listing, "next"),
        "record rest_url": ok(single)["rest_url"],
        "site index url": ok(site).get("url"),
        "site index home": site.json.get("home"),
        "site index help link": (site.json.get("_links", {}).get("help") or [{}])[0].get("href"),
        "namespace index up link": ok(index)["_links"]["up"][0]["href"],
        "discovery Link of /": link(site, API_REL),
        "discovery Link of the namespace index": link(index, API_REL),
        "/doc servers[0].url": ok(doc)["servers"][0]["url"],
    }
    expected = {
        "list rest_url": namespace + "/events",
        "list next_rest_url": namespace + "/events",
        "Link rel=next": namespace + "/events",
        "record rest_url": f"{namespace}/events/{first['id']}",
        "site index url": here,
        "site index home": here,
        "site index help link": namespace + "/doc",
        "namespace index up link": here,
        "discovery Link of /": here,
        "discovery Link of the namespace index": here,
        "/doc servers[0].url": namespace,
    }
    exact = {"record rest_url", "site index url", "site index home", "site index help link"}
    exact |= {"namespace index up link", "discovery Link of /", "/doc servers[0].url"}
    exact |= {"discovery Link of the namespace index"}
    wrong = {
        what: url
        for what, url in urls.items()
        if url is None
        or (url != expected[what] if what in exact else not url.startswith(expected[what]))
    }
    assert not wrong, f"expected under {here}"


# -- §2 HEAD ----------------------------------------------------------------------------


def assert_head_is_get_without_body(get: TestResponse, head: TestResponse, what: str) -> None:
    """Same status and headers (``Date`` aside, ``Content-Length`` the GET's or absent,
    and ``X-Calendar-Cache``: only a GET looks the response cache up), no body byte."""
    assert head.status_code == get.status_code, what
    assert head.get_data() == b"", what
    ignored = {"date", "content-length", "x-calendar-cache", "x-request-id"}
    got = sorted((k.lower(), v) for k, v in head.headers.items() if k.lower() not in ignored)
    wanted = sorted((k.lower(), v) for k, v in get.headers.items() if k.lower() not in ignored)
    assert got == wanted, what
    if "Content-Length" in head.headers:
        assert head.headers["Content-Length"] == get.headers.get("Content-Length"), what


@EVERY_READ_ROUTE
def test_head_answers_every_readable_route_like_get_without_a_body(
    api: Api, world: dict[str, t.Any], path: str, key: str
) -> None:
    """Link checkers, discovery clients and monitors send HEAD; WordPress serves it on
    every GET route. Tried on both roots and for each kind of caller, since headers
    such as ``Allow`` depend on the caller."""
    for root in ROOTS.values():
        url = root + path.format(**world)
        for role in (ANONYMOUS, "contributor", "administrator"):
            get = call(api, "GET", url, role)
            head = call(api, "HEAD", url, role)
            assert get.status_code == 200, (url, who(role), get.get_data(as_text=True))
            assert_head_is_get_without_body(get, head, f"HEAD {url} as {who(role)}")


# fmt: off
#: (what, path below the English namespace, caller, the GET's status)
HEAD_ERRORS = [
    ("a missing event",           f"/events/{MISSING_ID}",   "administrator", 404),
    ("an unknown event slug",     "/events/by-slug/nope",    ANONYMOUS,       400),
    ("an unknown venue",          f"/venues/{MISSING_ID}",   ANONYMOUS,       400),
    ("an unknown category",       f"/categories/{MISSING_ID}", "editor",      400),
    ("a draft hidden from the caller", "/events/{draft}",    "subscriber",    403),
    ("an invalid parameter",      "/events?per_page=zero",   ANONYMOUS,       400),
    ("a page after the last",     "/events?page=9",          ANONYMOUS,       404),
    ("wrong credentials",         "/events",                 "wrong",         401),
    ("no route",                  "/nowhere",                ANONYMOUS,       404),
    ("a malformed ID",            "/events/abc",             ANONYMOUS,       404),
]
# fmt: on


def test_head_of_an_error_is_the_get_error_without_a_body(
    api: Api, world: dict[str, t.Any]
) -> None:
    """A monitor probing with HEAD must see the same 4xx as a GET would, or it reports a
    broken link as fine (or a fine one as broken)."""
    draft = make_event(api, "contributor", "draft")
    for what, path, caller, status in HEAD_ERRORS:
        url = NS + path.format(draft=draft["id"])
        headers = {"Authorization": WRONG_PASSWORD} if caller == "wrong" else {}
        role = None if caller == "wrong" else caller

        get = call(api, "GET", url, role, headers=headers)
        head = call(api, "HEAD", url, role, headers=headers)

        assert get.status_code == status, (what, get.get_data(as_text=True))
        assert_head_is_get_without_body(get, head, what)


@pytest.mark.parametrize("role", [ANONYMOUS, "editor"], ids=who)
def test_head_and_get_share_the_response_cache_without_losing_the_body(
    api: Api, world: dict[str, t.Any], role: Role
) -> None:
    """The GET response cache may serve HEAD, but a HEAD must never store an empty body
    that a later GET would replay (nor a cached GET give a HEAD a body)."""
    for path, first in ((f"/events/{world['event']}", "HEAD"), ("/events", "GET")):
        url = NS + path
        methods = ["HEAD", "GET"] if first == "HEAD" else ["GET", "HEAD"]
        for _ in range(2):
            answers = {method: call(api, method, url, role) for method in methods}
            assert ok(answers["GET"]), f"{url} after a {first}"
            assert_head_is_get_without_body(answers["GET"], answers["HEAD"], f"{first} first")


def test_the_app_itself_returns_no_body_bytes_for_head(
    app: Application, api: Api, world: dict[str, t.Any]
) -> None:
    """Waitress does not strip a HEAD response's body, so the WSGI app must return an
    empty iterable (a stray body corrupts the next response on a kept-alive connection).
    Each path is asked after a GET and twice, so that answers may come from the cache."""
    for path in ("/", NS, f"{NS}/events", f"{NS}/events/{MISSING_ID}", f"{NS}/nowhere"):
        call(api, "GET", path)
        for _ in range(2):
            environ = EnvironBuilder(path, method="HEAD").get_environ()
            app_iter, status, _headers = run_wsgi_app(app, environ)
            try:
                assert b"".join(app_iter) == b"", (path, status)
            finally:
                close = getattr(app_iter, "close", None)
                if close is not None:
                    close()


# -- §3 OPTIONS -------------------------------------------------------------------------


def index_entry(api: Api, root: str, key: str, role: Role = ANONYMOUS) -> Body:
    """The route's entry in the index of its root: the site index for ``/``, the
    namespace index otherwise."""
    index = ok(call(api, "GET", root + ("/" if key == "/" else NS), role))
    assert key in index["routes"], sorted(index["routes"])
    return t.cast(Body, index["routes"][key])


@EVERY_READ_ROUTE
def test_plain_options_describes_the_route_as_its_index_entry(
    api: Api, world: dict[str, t.Any], path: str, key: str
) -> None:
    """What ``rest_handle_options_request`` answers: 200 (never 204, which has no body
    to describe anything), ``Allow``, and the route's data as the index of its root
    shows it (French texts on the French root), plus its ``schema`` when it has one."""
    for root in ROOTS.values():
        url = root + path.format(**world)
        entry = index_entry(api, root, key)

        response = call(api, "OPTIONS", url)

        body = ok(response)
        assert response.content_type == JSON_TYPE
        assert response.headers.get("Allow"), f"no Allow on {url}"
        assert set(body) <= {"namespace", "methods", "endpoints", "_links", "schema"}, list(body)
        for name in ("namespace", "methods", "endpoints"):
            assert body.get(name) == entry[name], (url, name)
        if "_links" in body:
            assert body["_links"] == entry.get("_links"), url
        if "schema" in body:
            assert isinstance(body["schema"], dict) and body["schema"], url


# fmt: off
MISSING_RECORDS = [
    f"/events/{MISSING_ID}",
    "/events/by-slug/no-such-event",
    f"/venues/{MISSING_ID}",
    "/venues/by-slug/no-such-venue",
    f"/organizers/{MISSING_ID}",
    "/organizers/by-slug/no-such-organizer",
    f"/categories/{MISSING_ID}",
    f"/tags/{MISSING_ID}",
]
# fmt: on


def test_options_on_a_missing_record_is_still_200_with_allow_get(api: Api) -> None:
    """The record is looked up only to compute ``Allow``: the route exists whatever the
    ID, so OPTIONS describes it (WordPress matches routes by pattern)."""
    wrong = []
    for path in MISSING_RECORDS:
        for role in (ANONYMOUS, "administrator"):
            response = call(api, "OPTIONS", NS + path, role)
            answer = (response.status_code, response.headers.get("Allow"))
            if answer != (200, "GET"):
                wrong.append(f"{path} as {who(role)}: {answer}")
    assert not wrong


def test_options_with_wrong_credentials_is_401_as_get_is(api: Api, world: dict[str, t.Any]) -> None:
    """Credentials are checked as for GET: a client learns its password is wrong from
    whichever request it sends first."""
    unknown_user = "Basic bm9ib2R5Ondob2V2ZXI="  # nobody:whoever
    for path in ("/events", f"/events/{world['event']}", ""):
        for authorization, code in (
            (WRONG_PASSWORD, "incorrect_password"),
            (unknown_user, "invalid_username"),
        ):
            response = call(api, "OPTIONS", NS + path, headers={"Authorization": authorization})
            assert_wp_error(response, 401, code)


@pytest.mark.parametrize("path", ["/nowhere", "/events/abc", "/events/by-slug/"])
def test_options_on_an_unknown_path_is_no_route(api: Api, path: str) -> None:
    assert_wp_error(call(api, "OPTIONS", NS + path), 404, "rest_no_route")


# -- §4 Allow ---------------------------------------------------------------------------

#: WordPress's default roles, with the capabilities the post checks use
ROLE_CAPABILITIES: dict[str, set[str]] = {
    "subscriber": {"read"},
    "contributor": {"read", "edit_posts", "delete_posts"},
    "author": {
        "read",
        "edit_posts",
        "delete_posts",
        "edit_published_posts",
        "delete_published_posts",
        "publish_posts",
    },
}
ROLE_CAPABILITIES["editor"] = ROLE_CAPABILITIES["author"] | {
    "edit_others_posts",
    "delete_others_posts",
    "edit_private_posts",
    "delete_private_posts",
    "read_private_posts",
    "manage_categories",
}
ROLE_CAPABILITIES["administrator"] = set(ROLE_CAPABILITIES["editor"])


def has_cap(login: Role, capability: str) -> bool:
    """The role of ``login`` (``author2`` is an author) holds ``capability``."""
    return login is not None and capability in ROLE_CAPABILITIES[login.rstrip("2")]


def may(login: Role, verb: str, owner: str, status: str) -> bool:
    """WordPress's ``map_meta_cap`` for ``edit_post`` / ``delete_post``."""
    if login is None:
        return False
    if login == owner:
        published = status in ("publish", "future")
        return has_cap(login, f"{verb}_published_posts" if published else f"{verb}_posts")
    if not has_cap(login, f"{verb}_others_posts"):
        return False
    if status in ("publish", "future"):
        return has_cap(login, f"{verb}_published_posts")
    if status == "private":
        return has_cap(login, f"{verb}_private_posts")
    return True


def readable(login: Role, owner: str, status: str) -> bool:
    """``read_post``; a trashed event is unavailable to everyone (events.md)."""
    if status == "trash":
        return False
    if status == "publish":
        return True
    if status == "private":
        return login == owner or has_cap(login, "read_private_posts")
    return may(login, "edit", owner, status)


def expected_allow(login: Role, owner: str, status: str) -> str:
    """The table of §4: ``GET``, plus the edit methods and ``DELETE`` this caller may use
    on this record, when it may read it."""
    if not readable(login, owner, status):
        return "GET"
    methods = ["GET"]
    if may(login, "edit", owner, status):
        methods += ["POST", "PUT", "PATCH"]
    if may(login, "delete", owner, status):
        methods.append("DELETE")
    return ", ".join(methods)


def test_the_expected_allow_values_follow_wordpress_roles() -> None:
    """The model above, spot-checked against the answers the permission tests pin down."""
    assert expected_allow("contributor", "contributor", "draft") == ", ".join(ALLOW_ORDER)
    assert expected_allow("contributor", "contributor", "publish") == "GET"
    assert expected_allow("contributor2", "contributor", "draft") == "GET"
    assert expected_allow("author", "author", "publish") == ", ".join(ALLOW_ORDER)
    assert expected_allow("author", "administrator", "publish") == "GET"
    assert expected_allow("editor", "author", "private") == ", ".join(ALLOW_ORDER)
    assert expected_allow(ANONYMOUS, "administrator", "publish") == "GET"
    assert expected_allow("administrator", "author", "trash") == "GET"


def allow_mismatches(api: Api, paths: list[str], expected: t.Callable[[Role], str]) -> list[str]:
    """Every (method, path, caller) whose ``Allow`` differs from ``expected(caller)``,
    for GET, HEAD and a plain OPTIONS."""
    wrong = []
    for path in paths:
        for role in CALLERS:
            for method in ("GET", "HEAD", "OPTIONS"):
                allow = call(api, method, NS + path, role).headers.get("Allow")
                if allow != expected(role):
                    wrong.append(f"{method} {path} as {who(role)}: {allow!r} != {expected(role)!r}")
    return wrong


EVENT_STATES = [
    ("administrator", "publish"),
    ("author", "publish"),
    ("author", "draft"),
    ("author", "private"),
    ("author", "future"),
    ("editor", "pending"),
    ("contributor", "draft"),
    ("contributor", "pending"),
    ("contributor", "publish"),
    ("author", "trash"),
    ("contributor", "trash"),
]


@pytest.mark.parametrize(
    ("owner", "status"), EVENT_STATES, ids=[f"{o}'s {s} event" for o, s in EVENT_STATES]
)
def test_allow_on_an_event_lists_what_each_caller_may_do_to_it(
    api: Api, owner: str, status: str
) -> None:
    """Clients (the block editor, node-wpapi) read ``Allow`` to show or hide edit and
    delete buttons: it must say what this caller may do to this record, by ID and by
    slug alike, and never offer HEAD or OPTIONS."""
    event = make_event(api, owner, status)
    paths = [f"/events/{event['id']}", f"/events/by-slug/{event['slug']}"]
    assert not allow_mismatches(api, paths, lambda role: expected_allow(role, owner, status))


LINKED_STATES = [
    ("administrator", "publish"),
    ("author", "publish"),
    ("author", "draft"),
    ("contributor", None),
    ("editor", "private"),
]


@pytest.mark.parametrize(
    ("owner", "status"),
    LINKED_STATES,
    ids=[f"{o}'s {s or 'default'} record" for o, s in LINKED_STATES],
)
def test_allow_on_a_venue_or_organizer_lists_what_each_caller_may_do_to_it(
    api: Api, owner: str, status: str | None
) -> None:
    """The same rules as events: venues and organizers are posts with the same
    capabilities (TEC's ``Capabilities.php``)."""
    wrong = []
    for collection in ("venues", "organizers"):
        record = make_linked(api, collection, owner, status, f"{owner} {status} place")
        state = record["status"]
        paths = [f"/{collection}/{record['id']}", f"/{collection}/by-slug/{record['slug']}"]
        wrong += allow_mismatches(
            api, paths, functools.partial(expected_allow, owner=owner, status=state)
        )
    assert not wrong


#: who manages each taxonomy's terms (``taxonomies.py``: TEC's capability mapping)
TERM_MANAGERS = {
    "categories": {"author", "author2", "editor", "administrator"},
    "tags": {"editor", "administrator"},
}


@pytest.mark.parametrize("collection", ["categories", "tags"])
def test_allow_on_a_term_lists_the_writes_of_its_managers(api: Api, collection: str) -> None:
    term = ok(api.post(f"/{collection}", "administrator", json={"name": "Outdoors"}), 201)
    managers = TERM_MANAGERS[collection]

    def expected(role: Role) -> str:
        return ", ".join(ALLOW_ORDER) if role in managers else "GET"

    assert not allow_mismatches(api, [f"/{collection}/{term['id']}"], expected)


#: who may create records of each kind (``POST`` on the collection)
CREATORS = {
    "events": {"contributor", "contributor2", "author", "author2", "editor", "administrator"},
    "venues": {"contributor", "contributor2", "author", "author2", "editor", "administrator"},
    "organizers": {"contributor", "contributor2", "author", "author2", "editor", "administrator"},
    **TERM_MANAGERS,
}


@pytest.mark.parametrize("collection", list(CREATORS))
def test_allow_on_a_collection_adds_post_for_who_may_create(api: Api, collection: str) -> None:
    def expected(role: Role) -> str:
        return "GET, POST" if role in CREATORS[collection] else "GET"

    assert not allow_mismatches(api, [f"/{collection}"], expected)


@pytest.mark.parametrize("path", ["", "/", "/doc"], ids=["<ns>", "<ns>/", "/doc"])
def test_allow_on_the_descriptions_is_get_for_everyone(api: Api, path: str) -> None:
    assert not allow_mismatches(api, [path], lambda role: "GET")


def test_allow_on_the_site_root_is_get_for_everyone(api: Api) -> None:
    for role in CALLERS:
        for method in ("GET", "HEAD", "OPTIONS"):
            assert call(api, method, "/", role).headers.get("Allow") == "GET", (method, role)


# fmt: off
#: (what, method, path, caller, body, status, Allow); ``{own}`` is the contributor's draft,
#: ``{published}`` the administrator's published event
ALLOW_ON_WRITES_AND_ERRORS = [
    ("an update of one's own draft", "PATCH", "/events/{own}", "contributor",
     {"title": "x"}, 200, "GET, POST, PUT, PATCH, DELETE"),
    ("a refused update", "PATCH", "/events/{published}", "author",
     {"title": "x"}, 403, "GET"),
    ("a refused delete", "DELETE", "/events/{published}", "subscriber",
     None, 403, "GET"),
    ("an invalid update", "PUT", "/events/{own}", "contributor",
     {"start_date": "not a date"}, 400, "GET, POST, PUT, PATCH, DELETE"),
    ("an invalid read parameter", "GET", "/events/{published}?context=nonsense", "editor",
     None, 400, "GET, POST, PUT, PATCH, DELETE"),
    ("a hidden draft", "GET", "/events/{own}", "author",
     None, 403, "GET"),
    ("a missing record", "GET", f"/events/{MISSING_ID}", "administrator",
     None, 404, "GET"),
    ("a missing record written to", "PATCH", f"/events/{MISSING_ID}", "administrator",
     {"title": "x"}, 404, "GET"),
    ("a create", "POST", "/venues", "contributor",
     {"venue": "Hall"}, 201, "GET, POST"),
    ("a refused create", "POST", "/tags", "author",
     {"name": "x"}, 403, "GET"),
]
# fmt: on


def test_allow_is_sent_on_writes_and_errors_of_a_matched_route(api: Api) -> None:
    """``rest_send_allow_header`` runs on every response of a matched route: a client
    told 403 learns from the same answer what it may do instead."""
    own = make_event(api, "contributor", "draft")
    published = make_event(api, "administrator", "publish")
    wrong = []
    for what, method, path, caller, body, status, allow in ALLOW_ON_WRITES_AND_ERRORS:
        url = path.format(own=own["id"], published=published["id"])
        kwargs = {"json": body} if body is not None else {}
        response = api.request(method, url, caller, **kwargs)
        answer = (response.status_code, response.headers.get("Allow"))
        if answer != (status, allow):
            wrong.append(f"{what}: {answer} != {(status, allow)}")
    assert not wrong


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/events", "GET"),
        ("DELETE", "/venues", "GET"),
        ("PATCH", "/categories", "GET"),
        ("POST", "/doc", "GET"),
        ("DELETE", "", "GET"),
    ],
    ids=["PUT events", "DELETE venues", "PATCH categories", "POST doc", "DELETE index"],
)
def test_a_method_the_route_does_not_serve_is_no_route_with_an_anonymous_allow(
    api: Api, method: str, path: str, allow: str
) -> None:
    """WordPress answers ``rest_no_route``; the refusal comes before authentication, so
    the ``Allow`` it carries is what an anonymous caller may do, even for an editor."""
    response = api.request(method, path, "administrator", json={})
    assert_wp_error(response, 404, "rest_no_route")
    assert response.headers.get("Allow") == allow


def test_allow_depends_on_the_caller_even_from_the_response_cache(
    api: Api, sibling_app: Build
) -> None:
    """The cache keys by user: an editor's cached ``Allow`` never reaches a subscriber."""
    event = make_event(api, "administrator", "publish")
    path = f"/events/{event['id']}"
    cached = api_for(sibling_app(), api)
    for _ in range(2):
        assert cached.get(path, "editor").headers.get("Allow") == ", ".join(ALLOW_ORDER)
        assert cached.get(path, "subscriber").headers.get("Allow") == "GET"
        assert cached.get(path).headers.get("Allow") == "GET"
