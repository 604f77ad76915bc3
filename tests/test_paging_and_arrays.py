"""Pagination (``open-web.md`` §9), array parameters and form bodies (§10).

A paging client (node-wpapi, FullCalendar's event sources, any WordPress client) reads
the totals from ``X-WP-Total``/``X-WP-TotalPages`` and follows ``Link: rel="next"``
verbatim, with its credentials, until there is none; so the links must repeat the
request itself (not the server's expanded defaults, which a logged-in replay may be
refused), be percent-encoded so that splitting ``Link`` on commas is safe, and the
totals must agree everywhere. Array parameters come in every form PHP clients write
them, and are united; form-encoded bodies mean what JSON bodies mean, as WordPress
reads ``$_POST``.
"""

from __future__ import annotations

import re
import typing as t
from urllib.parse import urlencode

import pytest
from conftest import ALL_ROLES, ANONYMOUS, NS, Api, Role, api_for, assert_wp_error
from open_web import (
    ROOTS,
    Body,
    call,
    create_event_in,
    day,
    link,
    make_event,
    ns,
    ok,
    path_and_query,
    query_of,
)
from werkzeug.test import TestResponse

from calendar_rest.app import Application

Build = t.Callable[..., Application]
LISTS = ["events", "venues", "organizers", "categories", "tags"]
BOTH_ROOTS = pytest.mark.parametrize("root", list(ROOTS.values()), ids=list(ROOTS))
FORM = "application/x-www-form-urlencoded"
#: what RFC 3986 requires escaped in a URL inside ``<...>`` of a ``Link`` header
UNSAFE_IN_LINK = re.compile(r"[,;<> \"]")


def who(role: Role) -> str:
    return "anonymous" if role is None else role


# -- §9 pagination -----------------------------------------------------------------------


def fill(api: Api, root: str, count: int = 5) -> None:
    """``count`` published events through ``root``, each with its own venue, organizer,
    category and tag, so that every list of that root has ``count`` records."""
    for number in range(count):
        create_event_in(
            api,
            root,
            title=f"Jazz night {number}",
            venue={"venue": f"Hall {number}"},
            organizer=[{"organizer": f"Band {number}"}],
            categories=[f"Genre {number}"],
            tags=[f"Mood {number}"],
        )


def totals(response: TestResponse, key: str) -> tuple[int, int]:
    """The list's totals, checked to agree between WordPress's and TEC's headers and the
    body (JSON integers)."""
    body = ok(response)
    headers = response.headers
    assert headers["X-WP-Total"] == headers["X-TEC-Total"]
    assert headers["X-WP-TotalPages"] == headers["X-TEC-TotalPages"]
    for name in ("total", "total_pages"):
        assert type(body[name]) is int, (name, body[name])
    assert (body["total"], body["total_pages"]) == (
        int(headers["X-WP-Total"]),
        int(headers["X-WP-TotalPages"]),
    )
    assert isinstance(body[key], list)
    return body["total"], body["total_pages"]


def expected_query(request: list[tuple[str, str]], page: int) -> list[tuple[str, str]]:
    """The request's own parameters with only ``page`` replaced."""
    kept = [(name, value) for name, value in request if name != "page"]
    return sorted([*kept, ("page", str(page))])


def assert_page_link(url: str, request: list[tuple[str, str]], page: int, what: str) -> None:
    """A page link repeats the request with ``page`` replaced; the first page may be
    named by ``page=1`` or by no ``page`` at all."""
    got = sorted(query_of(url))
    if page == 1 and ("page", "1") not in got:
        got = sorted([*got, ("page", "1")])
    assert got == expected_query(request, page), what


def walk(api: Api, first: str, role: Role, key: str) -> list[t.Any]:
    """Follow ``rel="next"`` from ``first`` verbatim with the same credentials, checking
    every page; the IDs listed on the way."""
    url: str | None = first
    seen: list[t.Any] = []
    expected_totals: tuple[int, int] | None = None
    page = 0
    while url is not None:
        page += 1
        assert page <= 20, "the walk does not end"
        response = call(api, "GET", url, role)
        assert response.status_code == 200, (page, url, response.get_data(as_text=True))
        found = totals(response, key)
        expected_totals = expected_totals or found
        assert found == expected_totals, f"page {page}: totals changed"
        body = ok(response)
        request = query_of(url)
        after, before = link(response, "next"), link(response, "prev")
        assert after == body.get("next_rest_url"), page
        assert before == body.get("previous_rest_url"), page
        assert (after is not None) == (page < found[1]), f"page {page}: next"
        assert (before is not None) == (page > 1), f"page {page}: prev"
        if after is not None:
            assert_page_link(after, request, page + 1, f"next of page {page}")
        if before is not None:
            assert_page_link(before, request, page - 1, f"prev of page {page}")
        seen += [item.get("id") for item in body[key]]
        url = path_and_query(after) if after is not None else None
    assert expected_totals is not None
    assert len(seen) == expected_totals[0] == len(set(seen))
    assert page == max(expected_totals[1], 1)
    return seen


@BOTH_ROOTS
@pytest.mark.parametrize("key", LISTS)
def test_every_caller_can_walk_every_list_to_its_last_page(api: Api, key: str, root: str) -> None:
    """Anonymous and logged-in walks alike: the links replayed verbatim with the same
    credentials answer 200 until the last page (a logged-in walk must not trip over an
    echoed ``status=any`` or default dates it is refused)."""
    fill(api, root)
    for role in ALL_ROLES:
        seen = walk(api, ns(root, f"/{key}?per_page=2"), role, key)
        assert len(seen) == 5, who(role)


def test_page_links_repeat_the_request_not_the_server_defaults(api: Api) -> None:
    """An editor's list is filtered by defaults (the date window, every status they may
    read); the links must not spell them out, since a replay may read them otherwise."""
    fill(api, "")
    response = api.get("/events", "editor", query_string={"per_page": 2})
    after = link(response, "next")
    assert after is not None
    assert sorted(query_of(after)) == [("page", "2"), ("per_page", "2")]


def test_page_links_repeat_every_filter_of_the_request(api: Api) -> None:
    fill(api, "")
    request = [
        ("per_page", "1"),
        ("categories", "genre-0,genre-1"),
        ("tags[]", "mood-0"),
        ("tags[]", "mood-1"),
        ("search", "jazz night"),
        ("start_date", day(0)),
    ]
    url = f"{NS}/events?{urlencode(request)}"

    seen = walk(api, url, "editor", "events")

    assert len(seen) == 2


def test_link_urls_are_percent_encoded_so_clients_can_split_on_commas(api: Api) -> None:
    """Clients split ``Link`` on ``,`` and ``;``: a raw comma from a comma list, a space
    from a search, or ``<``/``>`` from any value would cut a URL in two."""
    fill(api, "")
    request = [
        ("per_page", "1"),
        ("page", "2"),
        ("categories", "genre-0,genre-1,genre-2"),
        ("search", "jazz night"),
        ("utm_note", 'a;b <c> "d"'),
    ]

    response = api.get(f"/events?{urlencode(request)}")

    assert response.status_code == 200, response.get_data(as_text=True)
    raw = ", ".join(response.headers.getlist("Link"))
    targets = re.findall(r"<([^>]*)>", raw)
    assert len(targets) >= 2, raw
    for target in targets:
        assert not UNSAFE_IN_LINK.search(target), target
    pieces = [piece for piece in raw.split(",") if piece.strip()]
    assert len(pieces) == len(targets), raw
    assert_page_link(link(response, "next") or "", request, 3, "next")
    assert_page_link(link(response, "prev") or "", request, 1, "prev")


def test_an_encoded_comma_reads_as_a_comma(api: Api) -> None:
    fill(api, "")
    plain = ok(api.get("/events?categories=genre-0,genre-1"))
    encoded = ok(api.get("/events?categories=genre-0%2Cgenre-1"))
    assert plain["total"] == encoded["total"] == 2
    assert [e["id"] for e in plain["events"]] == [e["id"] for e in encoded["events"]]


@pytest.mark.parametrize("key", LISTS)
def test_per_page_above_the_maximum_is_capped_not_refused(
    api: Api, sibling_app: Build, key: str
) -> None:
    """WordPress clients ask for ``per_page=100`` to get "as many as allowed"."""
    fill(api, "")
    small = api_for(sibling_app(max_per_page=2), api)
    response = small.get(f"/{key}", query_string={"per_page": 100})
    assert totals(response, key) == (5, 3)
    assert len(response.json[key]) == 2
    assert walk(small, f"{NS}/{key}?per_page=100", "editor", key)


@pytest.mark.parametrize("key", ["events", "venues", "organizers"])
def test_a_page_after_the_last_keeps_its_error(api: Api, key: str) -> None:
    """TEC's archives answer a page past the end with their ``*-archive-page-not-found``."""
    fill(api, "", count=3)
    response = api.get(f"/{key}", query_string={"per_page": 2, "page": 3})
    assert response.status_code in (400, 404), response.get_data(as_text=True)
    assert_wp_error(response, response.status_code, response.json["code"])


@pytest.mark.parametrize("key", ["categories", "tags"])
def test_a_term_page_after_the_last_stays_an_empty_page(api: Api, key: str) -> None:
    """WordPress core's terms controller has no such error: an empty page, linking back
    but not forward."""
    fill(api, "", count=3)
    response = api.get(f"/{key}", query_string={"per_page": 2, "page": 3})
    assert totals(response, key) == (3, 2)
    assert response.json[key] == []
    assert link(response, "next") is None


# -- §10 array parameters ----------------------------------------------------------------


@pytest.fixture
def catalogue(api: Api) -> dict[str, t.Any]:
    """Three published events, each with its own category, tag, venue and organizer;
    a draft, a pending and a private event; their IDs and slugs."""
    events = [
        make_event(
            api,
            "editor",
            "publish",
            title=title,
            categories=[category],
            tags=[tag],
            venue={"venue": f"{title} hall"},
            organizer=[{"organizer": f"{title} band"}],
        )
        for title, category, tag in (
            ("First", "Alpha", "Xray"),
            ("Second", "Beta", "Yankee"),
            ("Third", "Gamma", "Zulu"),
        )
    ]
    others = {status: make_event(api, "editor", status) for status in ("draft", "pending")}
    first, second = events[0], events[1]
    return {
        "events": events,
        "others": others,
        # the two values each parameter is given, and the events they name together
        "values": {
            "categories": ("alpha", str(second["categories"][0]["id"])),
            "tags": ("xray", "yankee"),
            "venue": (str(first["venue"]["id"]), str(second["venue"]["id"])),
            "organizer": (str(first["organizer"][0]["id"]), str(second["organizer"][0]["id"])),
            "include": (str(first["id"]), str(second["id"])),
            "status": ("draft", "pending"),
        },
    }


def array_forms(name: str, a: str, b: str) -> dict[str, str]:
    """Every way a client writes the array ``[a, b]`` in a query string (or a form)."""
    return {
        "repeated keys": f"{name}={a}&{name}={b}",
        "PHP brackets": f"{name}[]={a}&{name}[]={b}",
        "indexed brackets": f"{name}[0]={a}&{name}[1]={b}",
        "a comma list": f"{name}={a},{b}",
        "an encoded comma list": f"{name}={a}%2C{b}",
        "a key then brackets": f"{name}={a}&{name}[]={b}",
        "brackets then a key": f"{name}[]={a}&{name}={b}",
        "an index then a key": f"{name}[0]={a}&{name}={b}",
    }


@pytest.mark.parametrize("name", ["categories", "tags", "venue", "organizer", "include", "status"])
def test_every_form_of_an_event_array_parameter_unites_its_values(
    api: Api, catalogue: dict[str, t.Any], name: str
) -> None:
    """``categories=a&categories=b`` means a OR b, exactly like ``categories=a,b``: the
    last value never simply wins (PHP would keep the last; WordPress clients that
    repeat keys mean all of them)."""
    a, b = catalogue["values"][name]
    if name == "status":
        wanted = {catalogue["others"]["draft"]["id"], catalogue["others"]["pending"]["id"]}
    else:
        wanted = {event["id"] for event in catalogue["events"][:2]}
    wrong = {}
    for form, query in array_forms(name, a, b).items():
        response = api.get(f"/events?{query}&per_page=50", "editor")
        if response.status_code != 200:
            wrong[form] = response.get_data(as_text=True)
            continue
        listed = {event["id"] for event in response.json["events"]}
        if listed != wanted:
            wrong[form] = sorted(listed)
    assert not wrong, f"expected {sorted(wanted)}"


@pytest.mark.parametrize("key", ["categories", "tags"])
@pytest.mark.parametrize("name", ["include", "exclude"])
def test_every_form_of_a_term_array_parameter_unites_its_values(
    api: Api, catalogue: dict[str, t.Any], key: str, name: str
) -> None:
    terms = [event[key][0] for event in catalogue["events"]]
    a, b = str(terms[0]["id"]), str(terms[1]["id"])
    wanted = {terms[0]["id"], terms[1]["id"]} if name == "include" else {terms[2]["id"]}
    wrong = {}
    for form, query in array_forms(name, a, b).items():
        response = api.get(f"/{key}?{query}")
        if response.status_code != 200:
            wrong[form] = response.get_data(as_text=True)
            continue
        listed = {term["id"] for term in response.json[key]}
        if listed != wanted:
            wrong[form] = sorted(listed)
    assert not wrong, f"expected {sorted(wanted)}"


@pytest.mark.parametrize("key", ["venues", "organizers"])
def test_every_form_of_a_status_list_unites_its_values(api: Api, key: str) -> None:
    noun = "venue" if key == "venues" else "organizer"
    published = ok(api.post(f"/{key}", "editor", json={noun: "Open place"}), 201)
    draft = ok(api.post(f"/{key}", "editor", json={noun: "Draft place", "status": "draft"}), 201)
    wanted = {published["id"], draft["id"]}
    wrong = {}
    for form, query in array_forms("status", "draft", "publish").items():
        response = api.get(f"/{key}?{query}", "editor")
        if response.status_code != 200:
            wrong[form] = response.get_data(as_text=True)
            continue
        listed = {record["id"] for record in response.json[key]}
        if listed != wanted:
            wrong[form] = sorted(listed)
    assert not wrong


# -- §10 form bodies -----------------------------------------------------------------------


def form(
    api: Api, method: str, path: str, role: Role, fields: list[tuple[str, str]]
) -> TestResponse:
    """``method`` with an ``application/x-www-form-urlencoded`` body of ``fields``."""
    return api.request(method, path, role, data=urlencode(fields), content_type=FORM)


SLOT = [("start_date", f"{day(30)} 19:00:00"), ("end_date", f"{day(30)} 21:00:00")]


def test_a_form_create_means_what_the_same_json_create_means(
    api: Api, catalogue: dict[str, t.Any]
) -> None:
    """Scalars converted per the schema (booleans as ``true``/``1``/``false``/``0``),
    arrays in brackets or commas, nested objects in PHP brackets."""
    beta = catalogue["values"]["categories"][1]
    fields = [
        ("title", "Form night"),
        ("description", "Sent as a form."),
        *SLOT,
        ("all_day", "true"),
        ("featured", "1"),
        ("show_map", "0"),
        ("sticky", "false"),
        ("cost", "15"),
        ("website", "https://form.example"),
        ("categories[]", "Alpha"),
        ("categories[]", beta),
        ("tags", "Xray,Yankee"),
        ("venue[venue]", "Hall"),
        ("venue[city]", "Lyon"),
        ("organizer[0][organizer]", "Trio"),
        ("organizer[1][organizer]", "Duo"),
    ]
    twin = {
        "title": "Form night",
        "description": "Sent as a form.",
        **dict(SLOT),
        "all_day": True,
        "featured": True,
        "show_map": False,
        "sticky": False,
        "cost": "15",
        "website": "https://form.example",
        "categories": ["Alpha", int(beta)],
        "tags": ["Xray", "Yankee"],
        "venue": {"venue": "Hall", "city": "Lyon"},
        "organizer": [{"organizer": "Trio"}, {"organizer": "Duo"}],
    }

    sent = ok(form(api, "POST", "/events", "editor", fields), 201)
    expected = ok(api.post("/events", "editor", json=twin), 201)

    assert comparable(sent) == comparable(expected)
    assert sent["venue"]["city"] == "Lyon"
    assert [organizer["organizer"] for organizer in sent["organizer"]] == ["Trio", "Duo"]


def comparable(event: Body) -> Body:
    """What a form and a JSON create of the same fields must agree on."""
    keys = ("title", "description", "all_day", "featured", "show_map", "sticky", "cost")
    keys += ("cost_details", "website", "start_date", "end_date", "status")
    return {
        **{key: event[key] for key in keys},
        "categories": sorted(term["name"] for term in event["categories"]),
        "tags": sorted(term["name"] for term in event["tags"]),
        "venue": (event["venue"]["venue"], event["venue"].get("city")),
        "organizer": [organizer["organizer"] for organizer in event["organizer"]],
    }


@pytest.mark.parametrize(
    "categories",
    [
        [("categories", "Alpha"), ("categories", "Beta")],
        [("categories[0]", "Alpha"), ("categories[1]", "Beta")],
        [("categories", "Alpha,Beta")],
        [("categories", "Alpha"), ("categories[]", "Beta")],
    ],
    ids=["repeated keys", "indexed brackets", "a comma list", "a mix"],
)
def test_a_form_array_in_any_form_holds_every_value(
    api: Api, catalogue: dict[str, t.Any], categories: list[tuple[str, str]]
) -> None:
    fields = [("title", "Two genres"), *SLOT, *categories]
    event = ok(form(api, "POST", "/events", "editor", fields), 201)
    assert sorted(term["name"] for term in event["categories"]) == ["Alpha", "Beta"]


@pytest.mark.parametrize("method", ["PUT", "PATCH", "POST"])
def test_a_form_update_converts_its_fields(
    api: Api, catalogue: dict[str, t.Any], method: str
) -> None:
    event = catalogue["events"][0]
    venue = catalogue["events"][1]["venue"]["id"]
    organizers = [str(e["organizer"][0]["id"]) for e in catalogue["events"][1:]]
    fields = [
        ("title", "Renamed by form"),
        ("featured", "true"),
        ("all_day", "0"),
        ("tags[]", "Zulu"),
        ("venue", str(venue)),
        ("organizer[]", organizers[0]),
        ("organizer[]", organizers[1]),
        ("author", str(api.users["author"].id)),
    ]

    updated = ok(form(api, method, f"/events/{event['id']}", "editor", fields))

    assert updated["title"] == "Renamed by form"
    assert (updated["featured"], updated["all_day"]) == (True, False)
    assert [term["name"] for term in updated["tags"]] == ["Zulu"]
    assert updated["venue"]["id"] == venue
    assert sorted(str(o["id"]) for o in updated["organizer"]) == sorted(organizers)
    assert updated["author"] == str(api.users["author"].id)


def test_form_bodies_write_venues_and_terms_with_typed_fields(api: Api) -> None:
    venue = ok(
        form(
            api,
            "POST",
            "/venues",
            "editor",
            [("venue", "Form hall"), ("geo_lat", "45.75"), ("geo_lng", "4.85"), ("show_map", "1")],
        ),
        201,
    )
    assert float(venue["geo_lat"]) == 45.75 and float(venue["geo_lng"]) == 4.85
    assert venue["show_map"] is True
    parent = ok(form(api, "POST", "/categories", "editor", [("name", "Parent")]), 201)
    child = ok(
        form(
            api, "POST", "/categories", "editor", [("name", "Child"), ("parent", str(parent["id"]))]
        ),
        201,
    )
    assert child["parent"] == parent["id"]
    renamed = ok(form(api, "PATCH", f"/venues/{venue['id']}", "editor", [("city", "Lyon")]))
    assert (renamed["venue"], renamed["city"]) == ("Form hall", "Lyon")


# fmt: off
#: (caller, fields, status, code): the JSON rules, sent as forms
FORM_REFUSALS = [
    (ANONYMOUS,    [("title", "x"), *SLOT],          401, "rest_forbidden"),
    ("subscriber", [("title", "x"), *SLOT],          403, "rest_forbidden"),
    ("editor",     SLOT,                             400, "rest_missing_callback_param"),
    ("editor",     [("title", "x"), *SLOT, ("all_day", "maybe")], 400, "rest_invalid_param"),
    ("editor",     [("title", "x"), *SLOT, ("author", "somebody")], 400, "rest_invalid_param"),
]
# fmt: on


@pytest.mark.parametrize(
    ("caller", "fields", "status", "code"),
    [pytest.param(*row, id=f"{who(row[0])} gets {row[2]} {row[3]}") for row in FORM_REFUSALS],
)
def test_a_form_write_is_refused_as_the_same_json_write_is(
    api: Api, caller: Role, fields: list[tuple[str, str]], status: int, code: str
) -> None:
    assert_wp_error(form(api, "POST", "/events", caller, fields), status, code)
    assert ok(api.get("/events", "editor"))["total"] == 0


def test_a_form_body_over_the_limit_is_413(api: Api, sibling_app: Build) -> None:
    small = api_for(sibling_app(max_body_bytes=200), api)
    fields = [("title", "x" * 300), *SLOT]
    assert_wp_error(form(small, "POST", "/events", "editor", fields), 413, "rest_payload_too_large")
