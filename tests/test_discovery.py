"""WordPress REST discovery (``open-web.md`` §8).

WordPress clients (node-wpapi's ``WPAPI.discover``, the block editor's tooling, generic
crawlers) find an API by a ``Link: <root>; rel="https://api.w.org/"`` header, usually
from a HEAD that follows no redirect, then read the REST index at that root and the
namespace index under it. Route keys are WordPress's registered regexes (clients build
URLs from them), with each endpoint's methods and arguments.
"""

from __future__ import annotations

import typing as t

import pytest
from conftest import NS, Api, assert_wp_error
from open_web import API_REL, JSON_TYPE, ROOTS, call, link, links, ok
from werkzeug.test import Client, TestResponse

from calendar_rest.app import Application

Build = t.Callable[..., Application]
NAMESPACE = "calendar/events/v1"
ID = "(?P<id>\\d+)"
SLUG = "(?P<slug>[^/]+)"
GET = ["GET"]
COLLECTION = ["GET", "POST"]
ITEM = ["GET", "POST", "PUT", "PATCH", "DELETE"]
#: the keys of §8's table and the endpoints' method groups, per key
ROUTES: dict[str, list[list[str]]] = {
    NS: [GET],
    f"{NS}/doc": [GET],
    **{
        key: groups
        for collection in ("events", "venues", "organizers")
        for key, groups in (
            (f"{NS}/{collection}", [GET, ["POST"]]),
            (f"{NS}/{collection}/{ID}", [GET, ["POST", "PUT", "PATCH"], ["DELETE"]]),
            (f"{NS}/{collection}/by-slug/{SLUG}", [GET, ["POST", "PUT", "PATCH"], ["DELETE"]]),
        )
    },
    **{
        key: groups
        for collection in ("categories", "tags")
        for key, groups in (
            (f"{NS}/{collection}", [GET, ["POST"]]),
            (f"{NS}/{collection}/{ID}", [GET, ["POST", "PUT", "PATCH"], ["DELETE"]]),
        )
    },
}
#: the discovery routes of each root: the site root and both forms of the namespace index
DISCOVERY_PATHS = ["/", NS, f"{NS}/"]
BOTH_ROOTS = pytest.mark.parametrize("root", list(ROOTS.values()), ids=list(ROOTS))


def site_root(root: str) -> str:
    """The absolute site root URL the test client's requests name (``/fr/`` in French)."""
    return f"http://localhost{root}/"


def discovered(response: TestResponse) -> str | None:
    return link(response, API_REL)


# -- the site root index ---------------------------------------------------------------------


@BOTH_ROOTS
def test_the_site_root_is_a_wordpress_rest_index(api: Api, root: str) -> None:
    """What ``GET /wp-json/`` answers, for one namespace: a client that starts from the
    discovered root finds the namespace and every route without another request."""
    response = call(api, "GET", f"{root}/")

    body = ok(response)
    assert response.content_type == JSON_TYPE
    assert isinstance(body.get("name"), str) and body["name"]
    assert isinstance(body.get("description"), str) and body["description"]
    assert body.get("url") == site_root(root)
    assert body.get("home") == site_root(root)
    # WordPress's batch route has a namespace of its own (anchors.md §2)
    assert body.get("namespaces") == [NAMESPACE, "batch/v1"]
    assert body["_links"]["help"][0]["href"] == f"{site_root(root)}{NAMESPACE}/doc"
    index = ok(call(api, "GET", f"{root}{NS}"))
    routes = body["routes"]
    assert list(routes)[0] == "/"
    assert list(routes)[1:-1] == list(index["routes"])
    assert list(routes)[-1] == "/batch/v1"
    assert routes["/batch/v1"]["namespace"] == "batch/v1"
    for key, entry in index["routes"].items():
        assert routes[key] == entry, key


def test_the_site_root_route_describes_itself(api: Api) -> None:
    entry = ok(call(api, "GET", "/"))["routes"]["/"]
    assert entry["methods"] == GET
    assert [endpoint["methods"] for endpoint in entry["endpoints"]] == [GET]


def test_the_french_site_root_speaks_french_with_the_same_keys(api: Api) -> None:
    english = ok(call(api, "GET", "/"))
    french = ok(call(api, "GET", "/fr/"))
    assert list(french["routes"]) == list(english["routes"])
    assert french["description"] != english["description"]
    page = f"{NS}/events"
    argument = "per_page"
    texts = [
        body["routes"][page]["endpoints"][0]["args"][argument]["description"]
        for body in (english, french)
    ]
    assert texts[0] != texts[1], texts


# -- the namespace index ---------------------------------------------------------------------


@BOTH_ROOTS
@pytest.mark.parametrize("slash", ["", "/"], ids=["without a slash", "with a slash"])
def test_the_namespace_index_answers_both_slash_forms_directly(
    api: Api, root: str, slash: str
) -> None:
    """No redirect between the two forms: discovery clients do not follow them."""
    response = call(api, "GET", f"{root}{NS}{slash}")

    body = ok(response)
    assert body["namespace"] == NAMESPACE
    assert body["_links"]["up"][0]["href"] == site_root(root)
    assert set(ROUTES) <= set(body["routes"])
    assert body == ok(call(api, "GET", f"{root}{NS}{'/' if not slash else ''}"))


@BOTH_ROOTS
def test_route_keys_are_wordpress_regexes_with_the_methods_of_the_table(
    api: Api, root: str
) -> None:
    """Clients (node-wpapi) build their route handlers from these keys: PCRE named
    groups, never ``{id}`` templates; ``methods`` is the union of the endpoints'."""
    routes = ok(call(api, "GET", f"{root}{NS}"))["routes"]
    wrong = []
    for key, groups in ROUTES.items():
        entry = routes.get(key)
        if entry is None:
            wrong.append(f"{key}: missing")
            continue
        endpoints = [endpoint.get("methods") for endpoint in entry["endpoints"]]
        if endpoints != groups:
            wrong.append(f"{key}: endpoints {endpoints} != {groups}")
        union = [method for group in groups for method in group]
        if entry.get("methods") != union:
            wrong.append(f"{key}: methods {entry.get('methods')} != {union}")
    assert not wrong
    for key in routes:
        assert "{" not in key and "}" not in key, key
        assert key.startswith(f"/{NAMESPACE}"), key
        assert not key.startswith("/fr"), key


@BOTH_ROOTS
def test_every_route_entry_has_wordpress_shape(api: Api, root: str) -> None:
    """``{namespace, methods, endpoints: [{methods, args}], _links}``; an endpoint
    without arguments shows ``[]``, as PHP serialises an empty array, never null; a
    ``self`` link only where the key has no variable to fill in."""
    routes = ok(call(api, "GET", f"{root}{NS}"))["routes"]
    for key, entry in routes.items():
        assert entry["namespace"] == NAMESPACE, key
        assert entry["methods"] == [m for e in entry["endpoints"] for m in e["methods"]], key
        for endpoint in entry["endpoints"]:
            assert set(endpoint) >= {"methods", "args"}, key
            args = endpoint["args"]
            assert args == [] or (isinstance(args, dict) and args), (key, args)
        self_links = entry.get("_links", {}).get("self")
        if "(?P<" in key:
            assert self_links is None, key
        else:
            assert self_links == [{"href": f"http://localhost{root}{key}"}], key


# -- the discovery link ----------------------------------------------------------------------


@BOTH_ROOTS
@pytest.mark.parametrize("path", DISCOVERY_PATHS, ids=["/", "<ns>", "<ns>/"])
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_the_discovery_routes_carry_the_api_link(
    api: Api, root: str, path: str, method: str
) -> None:
    """``WPAPI.discover`` sends a HEAD without ``Accept`` or credentials and reads the
    ``Link`` header; it must find the root there, directly (2xx, no redirect)."""
    url = root + path
    response = api.client.open(url, method=method)

    assert 200 <= response.status_code < 300, response.status_code
    assert discovered(response) == site_root(root)


# fmt: off
#: (what, path below a root, query, the answer's status)
DISCOVERY_ERRORS = [
    ("an unknown namespace",    NS,  {"namespace": "wp/v2"},  404),
    ("an invalid context",      NS,  {"context": "nonsense"}, 400),
    ("a trailing-slash error",  f"{NS}/", {"context": "nonsense"}, 400),
    ("wrong credentials",       "/", {},                      401),
    ("wrong credentials on the index", NS, {},                401),
]
# fmt: on


@BOTH_ROOTS
@pytest.mark.parametrize(
    ("what", "path", "query", "status"), [pytest.param(*row, id=row[0]) for row in DISCOVERY_ERRORS]
)
def test_the_api_link_is_on_every_answer_of_the_discovery_routes_errors_included(
    api: Api, root: str, what: str, path: str, query: dict[str, str], status: int
) -> None:
    headers = {"Authorization": "Basic YWRtaW5pc3RyYXRvcjp3cm9uZw=="} if status == 401 else {}
    for method in ("GET", "HEAD"):
        response = call(api, method, root + path, headers=headers, query_string=query)
        assert response.status_code == status, (method, response.get_data(as_text=True))
        assert discovered(response) == site_root(root), method


def test_the_api_link_sits_with_the_page_links_when_sent_on_a_list(api: Api) -> None:
    """Sending the discovery link on every response is allowed (WordPress does); it must
    then share the ``Link`` header with the page links without breaking them."""
    for number in range(3):
        api.create_event(title=f"Night {number}")
    response = api.get("/events", query_string={"per_page": 1, "page": 2})
    found = links(response)
    relations = sorted(relation for _, rels in found for relation in rels)
    assert relations.count("next") == relations.count("prev") == 1, found
    assert all(target.startswith("http://localhost/") for target, _ in found), found
    if any(API_REL in relations for _, relations in found):
        assert discovered(response) == "http://localhost/"


# fmt: off
#: (scenario, settings, request headers, environ overrides, site root URL)
PLACES = [
    ("a SCRIPT_NAME mount",  {}, {}, {"SCRIPT_NAME": "/mount"}, "http://localhost/mount/"),
    ("the Host header",      {}, {"Host": "cal.example.org"}, {"SERVER_NAME": "10.0.0.5"},
     "http://cal.example.org/"),
    ("the site_url setting", {"site_url": "https://cal.example.org"}, {}, {},
     "https://cal.example.org/"),
    ("the site_url setting with a path", {"site_url": "https://example.org/events"}, {}, {},
     "https://example.org/events/"),
]
# fmt: on


@pytest.mark.parametrize(
    ("scenario", "settings", "headers", "environ", "expected"),
    [pytest.param(*row, id=row[0]) for row in PLACES],
)
def test_the_api_link_is_absolute_and_ends_with_a_slash_wherever_the_app_is_mounted(
    api: Api,
    sibling_app: Build,
    scenario: str,
    settings: dict[str, str],
    headers: dict[str, str],
    environ: dict[str, str],
    expected: str,
) -> None:
    client = Client(sibling_app(**settings)) if settings else api.client
    for root in ROOTS.values():
        here = expected + (root.lstrip("/") + "/" if root else "")
        for path in DISCOVERY_PATHS:
            for method in ("GET", "HEAD"):
                response = client.open(
                    root + path, method=method, headers=headers, environ_overrides=environ
                )
                assert response.status_code == 200, (root + path, method)
                assert discovered(response) == here, (root + path, method)
        site = ok(client.get(f"{root}/", headers=headers, environ_overrides=environ))
        assert (site["url"], site["home"]) == (here, here)
        index = ok(client.get(root + NS, headers=headers, environ_overrides=environ))
        assert index["_links"]["up"][0]["href"] == here


def test_discovery_works_without_any_request_header(app: Application) -> None:
    """The barest client: no ``Accept``, no credentials, no ``User-Agent``."""
    response = Client(app).open("/", method="HEAD", headers={})
    assert response.status_code == 200
    assert discovered(response) == "http://localhost/"
    assert response.get_data() == b""


def test_an_unknown_path_next_to_the_roots_is_no_route(api: Api) -> None:
    """The site root is one route, not a prefix that answers anything under it."""
    for path in ("/nowhere", "/calendar/events", "/fr/nowhere"):
        assert_wp_error(call(api, "GET", path), 404, "rest_no_route")
