"""WordPress's global parameters (``open-web.md`` §6, §7): the method override,
``_envelope`` and ``_fields``.

Clients behind proxies that only pass GET and POST (and node-wpapi's ``.setHeaders``
users) send writes as ``POST`` with ``_method`` or ``X-HTTP-Method-Override``; clients
that cannot read status codes or headers (JSONP-era widgets, some embedded browsers)
ask for ``_envelope``; mobile clients trim answers with ``_fields``. Each is honoured
as WordPress honours it, except that the override is enforced on POST only (a GET that
deletes could be fired by an ``<img>`` tag, with no ``Origin`` and no preflight).
"""

from __future__ import annotations

import typing as t

import pytest
from conftest import ANONYMOUS, Api, Role, assert_wp_error
from open_web import (
    JSON_TYPE,
    MISSING_ID,
    NO_CACHE,
    Body,
    make_event,
    make_term,
    ok,
    parse_links,
    query_of,
    tokens,
)
from werkzeug.test import TestResponse

WRONG_PASSWORD = "Basic YWRtaW5pc3RyYXRvcjp3cm9uZw=="  # administrator:wrong
#: headers that describe the transport, never the route's answer (§7)
TRANSPORT = {"content-type", "content-length", "date", "cache-control", "vary"}


def who(role: Role) -> str:
    return "anonymous" if role is None else role


def status_of(api: Api, event: Body) -> str:
    """The event's stored status: an editor's read, or ``trash`` when the read says the
    event is no longer available."""
    response = api.get(f"/events/{event['id']}", "administrator")
    if response.status_code == 403 and response.json["code"] == "event-no-longer-available":
        return "trash"
    return str(ok(response)["status"])


def title_of(api: Api, event: Body) -> str:
    return str(ok(api.get(f"/events/{event['id']}", "administrator"))["title"])


# -- §6 method override --------------------------------------------------------------------

OVERRIDES = {
    "_method=DELETE": ({"_method": "DELETE"}, {}),
    "_method=delete": ({"_method": "delete"}, {}),
    "_method=Delete": ({"_method": "Delete"}, {}),
    "X-HTTP-Method-Override: DELETE": ({}, {"X-HTTP-Method-Override": "DELETE"}),
    "X-HTTP-Method-Override: delete": ({}, {"X-HTTP-Method-Override": "delete"}),
}


@pytest.mark.parametrize("by", ["id", "slug"])
@pytest.mark.parametrize("override", list(OVERRIDES))
def test_a_post_overridden_to_delete_trashes_the_event(api: Api, override: str, by: str) -> None:
    """Answered as a DELETE: 200 with the trashed record, its other fields unchanged
    (WordPress's handbook: ``_method`` or the header, any case)."""
    event = make_event(api, "author", "publish", description="Kept as it was.")
    query, headers = OVERRIDES[override]
    path = f"/events/{event['id']}" if by == "id" else f"/events/by-slug/{event['slug']}"

    response = api.post(path, "author", query_string=query, headers=headers)

    trashed = ok(response)
    assert trashed["status"] == "trash"
    assert trashed["id"] == event["id"]
    for key in ("title", "description", "start_date", "end_date", "author"):
        assert trashed[key] == event[key], key
    assert status_of(api, event) == "trash"


BODIES: dict[str, dict[str, t.Any]] = {
    "a JSON update": {"json": {"title": "Changed", "status": "draft"}},
    "invalid fields": {"json": {"start_date": "not a date", "status": "nonsense"}},
    "malformed JSON": {"data": b"{not json", "content_type": "application/json"},
    "a form body": {"data": {"title": "Changed"}},
    "a JSON array": {"json": [1, 2, 3]},
}


@pytest.mark.parametrize("body", list(BODIES))
def test_the_body_of_an_overridden_delete_is_ignored(api: Api, body: str) -> None:
    """A DELETE has no body: whatever comes with it is neither applied nor validated, and
    never an error (``security.md`` C1 step 8)."""
    event = make_event(api, "author", "publish")

    response = api.post(f"/events/{event['id']}?_method=DELETE", "author", **BODIES[body])

    trashed = ok(response)
    assert trashed["status"] == "trash"
    assert trashed["title"] == event["title"]


@pytest.mark.parametrize("body", ["malformed JSON", "invalid fields"])
def test_the_body_of_a_plain_delete_is_ignored_too(api: Api, body: str) -> None:
    event = make_event(api, "author", "publish")
    response = api.delete(f"/events/{event['id']}", "author", **BODIES[body])
    assert ok(response)["status"] == "trash"


@pytest.mark.parametrize(
    ("override", "query", "headers"),
    [
        ("PATCH", {"_method": "PATCH"}, {}),
        ("PUT", {"_method": "put"}, {}),
        ("PATCH by header", {}, {"X-HTTP-Method-Override": "patch"}),
    ],
)
def test_a_post_overridden_to_patch_or_put_applies_its_body(
    api: Api, override: str, query: dict[str, str], headers: dict[str, str]
) -> None:
    event = make_event(api, "author", "publish")

    response = api.post(
        f"/events/{event['id']}",
        "author",
        query_string=query,
        headers=headers,
        json={"title": "Renamed"},
    )

    assert ok(response)["title"] == "Renamed"
    assert title_of(api, event) == "Renamed"


def test_a_query_override_wins_over_the_header(api: Api) -> None:
    """WordPress reads ``_method`` first, the header only without it."""
    event = make_event(api, "author", "publish")
    response = api.post(
        f"/events/{event['id']}?_method=PATCH",
        "author",
        headers={"X-HTTP-Method-Override": "DELETE"},
        json={"title": "Patched"},
    )
    assert ok(response)["title"] == "Patched"
    assert status_of(api, event) == "publish"


@pytest.mark.parametrize(
    ("method", "query", "headers"),
    [
        ("GET", {"_method": "DELETE"}, {}),
        ("GET", {}, {"X-HTTP-Method-Override": "DELETE"}),
        ("HEAD", {"_method": "DELETE"}, {}),
        ("OPTIONS", {"_method": "DELETE"}, {}),
        ("OPTIONS", {}, {"X-HTTP-Method-Override": "DELETE"}),
    ],
    ids=["GET _method", "GET header", "HEAD _method", "OPTIONS _method", "OPTIONS header"],
)
def test_the_override_is_ignored_on_safe_methods(
    api: Api, method: str, query: dict[str, str], headers: dict[str, str]
) -> None:
    """A GET that deletes could be fired by an ``<img>`` tag on any page, with the
    user's cached credentials, no ``Origin`` and no preflight."""
    event = make_event(api, "author", "publish")

    response = api.request(
        method, f"/events/{event['id']}", "author", query_string=query, headers=headers
    )

    assert response.status_code == 200, response.get_data(as_text=True)
    if method == "GET":
        assert response.json["status"] == "publish"
    assert status_of(api, event) == "publish"


@pytest.mark.parametrize(
    ("method", "query", "headers"),
    [
        ("PUT", {"_method": "DELETE"}, {}),
        ("PATCH", {}, {"X-HTTP-Method-Override": "DELETE"}),
    ],
    ids=["PUT with _method=DELETE", "PATCH with the header"],
)
def test_the_override_is_ignored_on_other_writes(
    api: Api, method: str, query: dict[str, str], headers: dict[str, str]
) -> None:
    event = make_event(api, "author", "publish")

    response = api.request(
        method,
        f"/events/{event['id']}",
        "author",
        query_string=query,
        headers=headers,
        json={"title": "Updated"},
    )

    assert ok(response)["title"] == "Updated"
    assert status_of(api, event) == "publish"


def test_a_delete_with_an_override_stays_a_delete(api: Api) -> None:
    event = make_event(api, "author", "publish")
    response = api.delete(
        f"/events/{event['id']}?_method=PATCH", "author", json={"title": "Not applied"}
    )
    assert ok(response)["status"] == "trash"
    assert response.json["title"] == event["title"]


# fmt: off
#: (caller, owner, status, expected status, code): the DELETE rules apply to the override
OVERRIDE_PERMISSIONS = [
    (ANONYMOUS,      "administrator", "publish", 401, "rest_forbidden"),
    ("subscriber",   "administrator", "publish", 403, "rest_forbidden"),
    ("contributor",  "contributor2",  "draft",   403, "rest_forbidden"),
    ("contributor",  "contributor",   "publish", 403, "rest_forbidden"),
    ("author",       "administrator", "publish", 403, "rest_forbidden"),
    ("contributor",  "contributor",   "draft",   200, None),
    ("editor",       "author",        "publish", 200, None),
]
# fmt: on


@pytest.mark.parametrize(
    ("caller", "owner", "status", "http", "code"),
    [
        pytest.param(*row, id=f"{who(row[0])} on {row[1]}'s {row[2]} event gets {row[3]}")
        for row in OVERRIDE_PERMISSIONS
    ],
)
def test_an_overridden_delete_needs_the_right_to_delete(
    api: Api, caller: Role, owner: str, status: str, http: int, code: str | None
) -> None:
    """Authorized as the method it becomes: a subscriber cannot delete by POSTing."""
    event = make_event(api, owner, status)

    response = api.post(f"/events/{event['id']}?_method=DELETE", caller)

    if code is None:
        assert ok(response)["status"] == "trash"
    else:
        assert_wp_error(response, http, code)
        assert status_of(api, event) == status


def test_an_overridden_request_carries_the_allow_of_its_record(api: Api) -> None:
    event = make_event(api, "contributor", "draft")
    refused = api.post(f"/events/{event['id']}?_method=DELETE", "author")
    allowed = api.post(f"/events/{event['id']}?_method=PATCH", "contributor", json={"title": "x"})
    assert refused.headers.get("Allow") == "GET"
    assert allowed.headers.get("Allow") == "GET, POST, PUT, PATCH, DELETE"


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/events", {"_method": "DELETE"}),
        ("/events", {"_method": "PUT"}),
        ("/tags", {"_method": "PATCH"}),
        ("/doc", {"_method": "DELETE"}),
        ("/events/{id}", {"_method": "TRACE"}),
        ("/events/{id}", {"_method": "FROBNICATE"}),
    ],
    ids=[
        "DELETE on a collection",
        "PUT on a collection",
        "PATCH on a term collection",
        "DELETE on /doc",
        "TRACE",
        "an unknown method",
    ],
)
def test_an_override_to_a_method_the_route_does_not_serve_is_no_route(
    api: Api, path: str, query: dict[str, str]
) -> None:
    """What that method gets when sent directly: 404 ``rest_no_route`` (WordPress)."""
    event = make_event(api, "administrator", "publish")
    response = api.post(path.format(id=event["id"]), "administrator", query_string=query)
    assert_wp_error(response, 404, "rest_no_route")
    assert status_of(api, event) == "publish"


def test_a_post_overridden_to_get_is_answered_as_a_read(api: Api) -> None:
    """Routed as the method it names, so an anonymous ``POST ?_method=GET`` is a read,
    not an anonymous write (WordPress)."""
    make_event(api, "administrator", "publish", title="Readable")
    response = api.post("/events", query_string={"_method": "GET"})
    assert [event["title"] for event in ok(response)["events"]] == ["Readable"]


# -- §7 _envelope ------------------------------------------------------------------------


def envelope(response: TestResponse) -> Body:
    """The outer answer: always 200 JSON, ``{body, status, headers}``."""
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.content_type == JSON_TYPE
    body = t.cast(Body, response.json)
    assert set(body) == {"body", "status", "headers"}, list(body)
    assert isinstance(body["status"], int) and not isinstance(body["status"], bool)
    assert isinstance(body["headers"], dict)
    return body


def enveloped_header(wrapped: Body, name: str) -> str | None:
    """A header of the envelope, by case-insensitive name (None when absent); a header
    given as a list of values reads as one comma-separated value, as on the wire."""
    for key, value in wrapped["headers"].items():
        if key.lower() == name.lower():
            return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return None


def assert_no_transport_headers(wrapped: Body) -> None:
    inside = {key.lower() for key in wrapped["headers"]}
    leaked = {key for key in inside if key in TRANSPORT or key.startswith("access-control-")}
    assert not leaked, leaked


@pytest.mark.parametrize("value", ["", "1", "true", "0"], ids=["bare", "1", "true", "0"])
def test_an_enveloped_read_carries_the_body_status_and_route_headers(api: Api, value: str) -> None:
    """``_envelope`` with any value (even ``0``, as WordPress tests only its presence)."""
    event = make_event(api, "administrator", "publish")
    plain = api.get(f"/events/{event['id']}", "editor")
    query = "_envelope" if value == "" else f"_envelope={value}"

    response = api.get(f"/events/{event['id']}?{query}", "editor")

    wrapped = envelope(response)
    assert wrapped["status"] == 200
    assert wrapped["body"] == ok(plain)
    assert enveloped_header(wrapped, "Allow") == plain.headers["Allow"]
    assert_no_transport_headers(wrapped)
    assert {item.lower() for item in tokens(response, "Cache-Control")} == NO_CACHE
    assert response.headers.get("Date")


def test_an_enveloped_list_carries_its_totals_and_links(api: Api) -> None:
    for number in range(3):
        make_event(api, "administrator", "publish", title=f"Night {number}")
    plain = api.get("/events", query_string={"per_page": 1, "page": 2})

    response = api.get("/events", query_string={"per_page": 1, "page": 2, "_envelope": "1"})

    wrapped = envelope(response)
    assert wrapped["status"] == 200
    body, expected = wrapped["body"], ok(plain)
    assert list(body) == list(expected)
    for key, value in expected.items():
        if key.endswith("rest_url"):  # the page links repeat the request, _envelope too
            assert without_envelope(body[key]) == query_of(value), key
        else:
            assert body[key] == value, key
    for name in ("X-WP-Total", "X-WP-TotalPages", "X-TEC-Total", "X-TEC-TotalPages"):
        assert enveloped_header(wrapped, name) == plain.headers[name], name
    page_links = parse_links(enveloped_header(wrapped, "Link") or "")
    assert (body["next_rest_url"], {"next"}) in page_links
    assert (body["previous_rest_url"], {"prev"}) in page_links
    assert enveloped_header(wrapped, "Allow") == "GET"
    assert_no_transport_headers(wrapped)


def without_envelope(url: str) -> list[tuple[str, str]]:
    return [(name, value) for name, value in query_of(url) if name != "_envelope"]


# fmt: off
#: (what, method, path, caller, body, status, code)
ENVELOPED_ERRORS = [
    ("a missing event",     "GET",    f"/events/{MISSING_ID}", ANONYMOUS,     None,       404,
     "rest-event-not-found"),
    ("a hidden draft",      "GET",    "/events/{draft}",       "subscriber",  None,       403,
     "event-not-accessible"),
    ("an invalid parameter", "GET",   "/events?per_page=zero", ANONYMOUS,     None,       400,
     "rest_invalid_param"),
    ("wrong credentials",   "GET",    "/events",               "wrong",       None,       401,
     "incorrect_password"),
    ("an anonymous write",  "POST",   "/events",               ANONYMOUS,     {},         401,
     "rest_forbidden"),
    ("a refused write",     "PATCH",  "/events/{draft}",       "author",      {"title": "x"}, 403,
     "rest_forbidden"),
    ("no route",            "GET",    "/nowhere",              ANONYMOUS,     None,       404,
     "rest_no_route"),
    ("a trashed event",     "DELETE", "/events/{trashed}",     "administrator", None,     410,
     "event-is-in-trash"),
]
# fmt: on


@pytest.mark.parametrize(
    ("what", "method", "path", "caller", "body", "status", "code"),
    [pytest.param(*row, id=row[0]) for row in ENVELOPED_ERRORS],
)
def test_an_enveloped_error_is_a_200_holding_the_error(
    api: Api,
    what: str,
    method: str,
    path: str,
    caller: str | None,
    body: Body | None,
    status: int,
    code: str,
) -> None:
    """A client that cannot read status codes still learns what went wrong: the error
    body and status inside a 200, as WordPress's ``envelope_response``."""
    draft = make_event(api, "contributor", "draft")
    trashed = make_event(api, "administrator", "trash")
    url = path.format(draft=draft["id"], trashed=trashed["id"])
    url += ("&" if "?" in url else "?") + "_envelope"
    headers = {"Authorization": WRONG_PASSWORD} if caller == "wrong" else {}
    role = None if caller == "wrong" else caller
    kwargs = {"json": body} if body is not None else {}

    response = api.request(method, url, role, headers=headers, **kwargs)

    wrapped = envelope(response)
    assert wrapped["status"] == status
    assert wrapped["body"]["code"] == code
    assert wrapped["body"]["data"]["status"] == status
    assert_no_transport_headers(wrapped)


def test_an_enveloped_create_holds_its_201(api: Api) -> None:
    response = api.post("/tags?_envelope", "administrator", json={"name": "Outdoors"})
    wrapped = envelope(response)
    assert wrapped["status"] == 201
    assert wrapped["body"]["name"] == "Outdoors"
    assert enveloped_header(wrapped, "Allow") == "GET, POST"


def test_an_enveloped_head_has_no_body_either(api: Api) -> None:
    response = api.request("HEAD", "/events?_envelope")
    assert response.status_code == 200
    assert response.get_data() == b""


# -- §7 _fields ----------------------------------------------------------------------------

FIELDS_FORMS = {
    "a comma list": "_fields=id,title",
    "a comma list with spaces": "_fields=id, title",
    "PHP brackets": "_fields[]=id&_fields[]=title",
    "repeated keys": "_fields=id&_fields=title",
    "indexed brackets": "_fields[0]=id&_fields[1]=title",
    "an unknown name among them": "_fields=id,title,no_such_field",
    "a percent-encoded comma": "_fields=id%2Ctitle",
}


@pytest.mark.parametrize("form", list(FIELDS_FORMS))
def test_fields_reduces_a_single_event_to_the_names_asked_for(api: Api, form: str) -> None:
    """``rest_filter_response_fields``: every array form WordPress reads; unknown names
    are ignored."""
    event = make_event(api, "administrator", "publish", title="Trimmed")
    response = api.get(f"/events/{event['id']}?{FIELDS_FORMS[form]}")
    assert ok(response) == {"id": event["id"], "title": "Trimmed"}


def test_fields_takes_dotted_paths_into_nested_objects(api: Api) -> None:
    event = make_event(
        api, "administrator", "publish", venue={"venue": "Harbor Hall", "city": "Lyon"}
    )
    query = "_fields=id,venue.venue,venue.city,start_date_details.year"

    body = ok(api.get(f"/events/{event['id']}?{query}"))

    assert body == {
        "id": event["id"],
        "venue": {"venue": "Harbor Hall", "city": "Lyon"},
        "start_date_details": {"year": event["start_date_details"]["year"]},
    }


def test_fields_naming_a_parent_keeps_the_whole_object(api: Api) -> None:
    event = make_event(api, "administrator", "publish", venue={"venue": "Harbor Hall"})
    body = ok(api.get(f"/events/{event['id']}?_fields=venue,venue.city"))
    assert body["venue"]["venue"] == "Harbor Hall"
    assert body["venue"]["id"] == event["venue"]["id"]


def test_fields_keeps_links_so_link_following_clients_keep_working(api: Api) -> None:
    """WordPress drops ``_links`` unless named; we keep it (a deliberate difference)."""
    term = make_term(api, "categories", "Music")
    body = ok(api.get(f"/categories/{term['id']}?_fields=id,name"))
    assert body == {"id": term["id"], "name": "Music", "_links": term["_links"]}


@pytest.mark.parametrize(
    ("collection", "key"),
    [
        ("events", "events"),
        ("venues", "venues"),
        ("organizers", "organizers"),
        ("categories", "categories"),
        ("tags", "tags"),
    ],
)
def test_fields_reduces_each_record_of_a_list_and_keeps_the_wrapper(
    api: Api, collection: str, key: str
) -> None:
    """The list wrapper (totals, ``rest_url``, page links) stays whatever ``_fields``
    names: a paging client needs it on every page, and its page link repeats the
    request's own query, ``_fields`` included (§9)."""
    for number in range(3):
        make_event(
            api,
            "administrator",
            "publish",
            title=f"Night {number}",
            venue={"venue": f"Hall {number}"},
            organizer=[{"organizer": f"Band {number}"}],
            categories=[f"Genre {number}"],
            tags=[f"Mood {number}"],
        )
    plain = ok(api.get(f"/{collection}", query_string={"per_page": 2}))

    response = api.get(f"/{collection}", query_string={"per_page": 2, "_fields": "id,slug"})

    body = ok(response)
    wrapper = [name for name in plain if name not in (key, "next_rest_url")]
    assert {name: body.get(name) for name in wrapper} == {name: plain[name] for name in wrapper}
    assert body["next_rest_url"] == plain["next_rest_url"].replace(
        "?per_page=2&", "?per_page=2&_fields=id%2Cslug&"
    )
    assert body[key] == [{"id": item["id"], "slug": item["slug"]} for item in plain[key]]
    assert response.headers["X-WP-Total"] == "3"


def test_fields_leaves_errors_whole(api: Api) -> None:
    """WordPress filters successful answers only: an error keeps its code and message."""
    response = api.get(f"/events/{MISSING_ID}?_fields=id")
    assert_wp_error(response, 404, "rest-event-not-found")


def test_fields_reduces_create_and_update_answers(api: Api) -> None:
    created = api.post("/tags?_fields=id,name", "administrator", json={"name": "Outdoors"})
    body = ok(created, 201)
    assert set(body) == {"id", "name", "_links"}
    updated = api.patch(f"/tags/{body['id']}?_fields=name", "administrator", json={"name": "Out"})
    assert set(ok(updated)) == {"name", "_links"}
    assert updated.json["name"] == "Out"


def test_fields_applies_before_the_envelope(api: Api) -> None:
    event = make_event(api, "administrator", "publish", title="Wrapped")
    response = api.get(f"/events/{event['id']}?_fields=id,title&_envelope")
    wrapped = envelope(response)
    assert wrapped["body"] == {"id": event["id"], "title": "Wrapped"}
    assert wrapped["status"] == 200
