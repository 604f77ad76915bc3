"""Categories and tags: every route, parameter and bad value, the representation
against TEC's captures 08-11 and 52-57, who may do what, and the cost of a list.

Most tests run for both taxonomies (``KIND``); where they differ (a category has a
``parent``, tags are managed by editors only), the tables say so.
"""

from __future__ import annotations

import typing as t
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import Api, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest.app import Application

Role = str | None
CATEGORIES, TAGS = "categories", "tags"
KIND = pytest.mark.parametrize("kind", [CATEGORIES, TAGS])
TAXONOMY = {CATEGORIES: "calendar_events_cat", TAGS: "post_tag"}
TERM_KEYS = {
    CATEGORIES: [
        "id",
        "count",
        "description",
        "name",
        "slug",
        "taxonomy",
        "parent",
        "meta",
        "url",
        "urls",
    ],
    TAGS: ["id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls"],
}
LINK_KEYS = ["self", "collection", "about", "wp:post_type", "curies"]
#: our multilingual keys, after all of TEC's (see tests/test_translations.py)
ADDITIVE_KEYS = ["language", "translations"]
ENVELOPE = ["rest_url", "total", "total_pages", "<key>", "next_rest_url", "previous_rest_url"]
MISSING_ID = 999_999


# -- helpers ---------------------------------------------------------------------------


def make(api: Api, kind: str, name: str, as_: str = "administrator", **fields: t.Any) -> int:
    response = api.post(f"/{kind}", as_, json={"name": name, **fields})
    assert response.status_code == 201, response.get_data(as_text=True)
    return int(t.cast(dict[str, t.Any], response.json)["id"])


def listing(api: Api, kind: str, query: str = "") -> dict[str, t.Any]:
    response = api.get(f"/{kind}?{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def names(api: Api, kind: str, query: str = "") -> list[str]:
    """The names listed, empty terms included unless the query says otherwise."""
    return [term["name"] for term in listing(api, kind, f"hide_empty=0&per_page=50&{query}")[kind]]


def bad_params(response: TestResponse) -> list[str]:
    return list(assert_wp_error(response, 400, "rest_invalid_param")["data"]["params"])


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def who(role: Role) -> str:
    return "anonymous" if role is None else role


# -- representation --------------------------------------------------------------------


@KIND
def test_a_created_term_has_tecs_keys_types_and_links(api: Api, kind: str) -> None:
    response = api.post(
        f"/{kind}", "administrator", json={"name": "Music", "description": "Concerts and gigs"}
    )

    assert response.status_code == 201
    body = t.cast(dict[str, t.Any], response.json)
    assert list(body) == [*TERM_KEYS[kind], "_links", *ADDITIVE_KEYS]
    term_id = body["id"]
    assert isinstance(term_id, int)
    assert (body["count"], body["description"], body["name"], body["slug"], body["meta"]) == (
        0,
        "Concerts and gigs",
        "Music",
        "music",
        [],
    )
    assert body["taxonomy"] == TAXONOMY[kind]
    public = "events/category/music/" if kind == CATEGORIES else "tag/music/"
    assert body["url"] == f"http://localhost/{public}"
    rest = f"http://localhost/calendar/events/v1/{kind}"
    assert body["urls"] == {"self": f"{rest}/{term_id}", "collection": rest}
    assert list(body["_links"]) == LINK_KEYS
    core = "calendar_events_cat" if kind == CATEGORIES else "tags"
    assert body["_links"]["self"] == [{"href": f"http://localhost/wp-json/wp/v2/{core}/{term_id}"}]
    assert body["_links"]["about"][0]["href"].endswith(f"/wp/v2/taxonomies/{TAXONOMY[kind]}")
    assert len(body["_links"]["wp:post_type"]) == (1 if kind == CATEGORIES else 2)
    assert body["_links"]["curies"] == [
        {"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}
    ]
    assert response.headers["Location"] == body["_links"]["self"][0]["href"]


def test_a_nested_category_links_up_and_nests_its_public_url(api: Api) -> None:
    top = make(api, CATEGORIES, "Arts")
    middle = make(api, CATEGORIES, "Music", parent=top)

    body = api.post("/categories", "administrator", json={"name": "Jazz", "parent": middle}).json

    assert body["parent"] == middle
    assert body["url"] == "http://localhost/events/category/arts/music/jazz/"
    assert body["urls"]["up"] == f"http://localhost/calendar/events/v1/categories/{middle}"
    assert list(body["_links"]) == ["self", "collection", "about", "up", "wp:post_type", "curies"]
    assert body["_links"]["up"][0]["embeddable"] is True


@KIND
def test_a_single_read_has_links_and_a_list_item_has_none(api: Api, kind: str) -> None:
    term_id = make(api, kind, "Music")

    single = api.get(f"/{kind}/{term_id}")
    item = listing(api, kind, "hide_empty=0")[kind][0]

    assert single.status_code == 200
    assert list(single.json) == [*TERM_KEYS[kind], "_links", *ADDITIVE_KEYS]
    assert list(item) == [*TERM_KEYS[kind], *ADDITIVE_KEYS]
    assert {k: v for k, v in single.json.items() if k != "_links"} == item


@KIND
def test_the_list_envelope_is_in_tecs_term_order_with_total_headers(api: Api, kind: str) -> None:
    for name in ("A", "B", "C"):
        make(api, kind, name)

    response = api.get(f"/{kind}?hide_empty=0&per_page=1&page=2")

    body = t.cast(dict[str, t.Any], response.json)
    assert list(body) == [key.replace("<key>", kind) for key in ENVELOPE]
    assert (body["total"], body["total_pages"]) == (3, 3)
    for header in ("X-TEC-Total", "X-WP-Total"):
        assert response.headers[header] == "3"
    for header in ("X-TEC-TotalPages", "X-WP-TotalPages"):
        assert response.headers[header] == "3"
    assert body["rest_url"].startswith(f"http://localhost/calendar/events/v1/{kind}/?")
    assert 'rel="next"' in response.headers["Link"] and 'rel="prev"' in response.headers["Link"]


@KIND
def test_count_is_the_number_of_published_events(api: Api, kind: str) -> None:
    term_id = make(api, kind, "Music")
    for status in ("publish", "publish", "draft"):
        api.create_event(status=status, **{kind: [term_id]})

    assert api.get(f"/{kind}/{term_id}").json["count"] == 2


# -- single reads ----------------------------------------------------------------------


@KIND
def test_an_unknown_id_is_an_invalid_id_parameter(api: Api, kind: str) -> None:
    body = assert_wp_error(api.get(f"/{kind}/{MISSING_ID}"), 400, "rest_invalid_param")

    assert body["data"] == {"status": 400, "params": {"id": "Invalid parameter."}, "details": []}


@pytest.mark.parametrize(("route", "other"), [(CATEGORIES, TAGS), (TAGS, CATEGORIES)])
def test_a_term_of_the_other_taxonomy_is_an_invalid_id(api: Api, route: str, other: str) -> None:
    term_id = make(api, other, "Music")

    for method in ("GET", "PATCH", "DELETE"):
        assert bad_params(api.request(method, f"/{route}/{term_id}", "administrator")) == ["id"]


# -- archive filters ---------------------------------------------------------------------


@KIND
def test_empty_terms_are_hidden_unless_hide_empty_is_false(api: Api, kind: str) -> None:
    used = make(api, kind, "Used")
    make(api, kind, "Unused")
    api.create_event(**{kind: [used]})

    assert [term["name"] for term in listing(api, kind)[kind]] == ["Used"]
    assert [term["name"] for term in listing(api, kind, "hide_empty=1")[kind]] == ["Used"]
    assert names(api, kind, "hide_empty=false") == ["Unused", "Used"]


@KIND
@pytest.mark.parametrize(
    ("search", "found"),
    [
        ("mus", ["Chamber Music", "Musicals"]),
        ("MUSIC", ["Chamber Music", "Musicals"]),
        ("jazz-c", ["Late Night"]),  # the slug matches
        ("50%", ["50% off"]),  # LIKE wildcards are literal
        ("_", []),
        ("nothing", []),
    ],
)
def test_search_matches_a_substring_of_the_name_or_slug_in_any_case(
    api: Api, kind: str, search: str, found: list[str]
) -> None:
    make(api, kind, "Chamber Music")
    make(api, kind, "Musicals")
    make(api, kind, "Late Night", slug="jazz-club")
    make(api, kind, "50% off")

    assert sorted(names(api, kind, f"search={search.replace('%', '%25')}")) == found


@KIND
def test_include_and_exclude_take_arrays_or_csv(api: Api, kind: str) -> None:
    a, b, c = (make(api, kind, name) for name in ("A", "B", "C"))

    assert names(api, kind, f"include={a},{c}") == ["A", "C"]
    assert names(api, kind, f"include[]={b}&include[]={c}") == ["B", "C"]
    assert names(api, kind, f"exclude={b}") == ["A", "C"]
    assert names(api, kind, f"include={a},{b}&exclude={a}") == ["B"]


@KIND
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ["apple", "Banana", "cherry"]),
        ("order=asc", ["apple", "Banana", "cherry"]),
        ("order=ASC", ["apple", "Banana", "cherry"]),
        ("order=desc", ["cherry", "Banana", "apple"]),
        ("order=whatever", ["cherry", "Banana", "apple"]),
        ("orderby=id", ["Banana", "cherry", "apple"]),
        ("orderby=term_id&order=desc", ["apple", "cherry", "Banana"]),
        ("orderby=slug", ["apple", "Banana", "cherry"]),
        ("orderby=description", ["cherry", "Banana", "apple"]),
        ("orderby=count&order=desc", ["cherry", "Banana", "apple"]),
        ("orderby=count", ["apple", "Banana", "cherry"]),
        ("orderby=unknown", ["apple", "Banana", "cherry"]),
        ("orderby=none", ["Banana", "cherry", "apple"]),
        ("orderby=include&include=<cherry>,<apple>,<Banana>", ["cherry", "apple", "Banana"]),
    ],
)
def test_order_and_orderby_sort_like_wordpress(
    api: Api, kind: str, query: str, expected: list[str]
) -> None:
    ids = {
        "Banana": make(api, kind, "Banana", description="b"),
        "cherry": make(api, kind, "cherry", description="a"),
        "apple": make(api, kind, "apple", description="c"),
    }
    api.create_event(**{kind: [ids["cherry"], ids["Banana"]]})
    api.create_event(**{kind: [ids["cherry"]]})
    for name, term_id in ids.items():
        query = query.replace(f"<{name}>", str(term_id))

    assert names(api, kind, query) == expected


def test_parent_lists_the_direct_children_of_a_category(api: Api) -> None:
    top = make(api, CATEGORIES, "Arts")
    child = make(api, CATEGORIES, "Music", parent=top)
    make(api, CATEGORIES, "Jazz", parent=child)
    make(api, CATEGORIES, "Sports")

    assert names(api, CATEGORIES, f"parent={top}") == ["Music"]
    assert names(api, CATEGORIES, f"parent={child}") == ["Jazz"]


def test_tags_ignore_a_parent_filter(api: Api) -> None:
    make(api, TAGS, "Loud")

    assert names(api, TAGS, "parent=12345") == ["Loud"]


@KIND
def test_post_and_its_alias_event_list_the_terms_of_one_event(api: Api, kind: str) -> None:
    a, b, _ = (make(api, kind, name) for name in ("A", "B", "C"))
    first = api.create_event(**{kind: [a, b]})["id"]
    second = api.create_event(**{kind: [b]})["id"]

    assert names(api, kind, f"post={first}") == ["A", "B"]
    assert names(api, kind, f"event={second}") == ["B"]
    assert names(api, kind, f"post={first}&event={second}") == ["B"]  # event wins


@KIND
def test_slug_selects_one_term_exactly(api: Api, kind: str) -> None:
    make(api, kind, "Music")
    make(api, kind, "Musical")

    assert names(api, kind, "slug=music") == ["Music"]
    assert names(api, kind, "slug=mus") == []


@KIND
def test_per_page_defaults_to_10_and_is_capped_by_the_setting(api: Api, kind: str) -> None:
    for number in range(55):
        make(api, kind, f"Term {number:02}")

    assert len(listing(api, kind, "hide_empty=0")[kind]) == 10
    capped = listing(api, kind, "hide_empty=0&per_page=100")
    assert (len(capped[kind]), capped["total_pages"]) == (50, 2)


@KIND
def test_pagination_links_keep_every_filter_and_a_page_past_the_end_is_empty(
    api: Api, kind: str
) -> None:
    for name in ("Alpha", "Alps", "Altitude", "Beta"):
        make(api, kind, name)

    first = listing(api, kind, "hide_empty=0&search=al&per_page=2&order=desc")
    past = listing(api, kind, "hide_empty=0&search=al&per_page=2&order=desc&page=5")

    assert [term["name"] for term in first[kind]] == ["Altitude", "Alps"]
    assert query_of(first["next_rest_url"]) == {
        "per_page": ["2"],
        "search": ["al"],
        "order": ["desc"],
        "hide_empty": ["0"],
        "page": ["2"],
    }
    assert query_of(first["rest_url"])["page"] == ["1"]
    assert "previous_rest_url" not in first
    assert past[kind] == [] and (past["total"], past["total_pages"]) == (3, 2)
    assert query_of(past["previous_rest_url"])["page"] == ["4"]
    assert "next_rest_url" not in past


@KIND
def test_the_french_root_and_i18n_language_list_french_terms(api: Api, kind: str) -> None:
    make(api, kind, "Music")
    created = api.post(f"/fr/calendar/events/v1/{kind}", "administrator", json={"name": "Musique"})
    assert created.status_code == 201
    assert created.json["urls"]["self"].startswith(f"http://localhost/fr/calendar/events/v1/{kind}")

    french = api.get(f"/fr/calendar/events/v1/{kind}?hide_empty=0").json[kind]

    assert [term["name"] for term in french] == ["Musique"]
    assert names(api, kind, "i18n_language=fr") == ["Musique"]
    assert names(api, kind) == ["Music"]


@KIND
@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("page=0", "page"),
        ("page=x", "page"),
        ("per_page=0", "per_page"),
        ("search=", "search"),
        ("exclude=abc", "exclude"),
        (f"exclude={MISSING_ID}", "exclude"),
        (f"include={MISSING_ID}", "include"),
        ("include=1,x", "include"),
        ("order=", "order"),
        ("orderby=", "orderby"),
        ("hide_empty=maybe", "hide_empty"),
        ("hide_empty=", "hide_empty"),
        ("post=", "post"),
        ("post=foo", "post"),
        (f"post={MISSING_ID}", "post"),
        (f"event={MISSING_ID}", "event"),
        ("slug=", "slug"),
        ("i18n_language=de", "i18n_language"),
    ],
)
def test_a_bad_archive_value_is_a_400_naming_the_parameter(
    api: Api, kind: str, query: str, param: str
) -> None:
    assert bad_params(api.get(f"/{kind}?{query}")) == [param]


@pytest.mark.parametrize("value", ["", "0", "x", str(MISSING_ID), "<tag>"])
def test_parent_must_be_an_existing_category(api: Api, value: str) -> None:
    value = value.replace("<tag>", str(make(api, TAGS, "Loud")))

    assert bad_params(api.get(f"/categories?parent={value}")) == ["parent"]


@KIND
def test_a_term_of_the_other_taxonomy_is_refused_in_include(api: Api, kind: str) -> None:
    other = make(api, TAGS if kind == CATEGORIES else CATEGORIES, "Other")

    assert bad_params(api.get(f"/{kind}?include={other}")) == ["include"]


def test_every_bad_archive_value_is_reported_together_in_declaration_order(api: Api) -> None:
    response = api.get(f"/categories?slug=&post=x&parent=0&hide_empty=no&include={MISSING_ID}")

    assert bad_params(response) == ["include", "hide_empty", "parent", "post", "slug"]


# -- create ------------------------------------------------------------------------------


@KIND
def test_create_needs_a_name(api: Api, kind: str) -> None:
    body = assert_wp_error(
        api.post(f"/{kind}", "administrator", json={"description": "x"}),
        400,
        "rest_missing_callback_param",
    )

    assert body["data"]["params"] == ["name"]


@KIND
@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": 12}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": "A", "description": ""}, "description"),
        ({"name": "A", "slug": ""}, "slug"),
        ({"name": "A", "i18n_language": "de"}, "i18n_language"),
    ],
)
def test_create_refuses_bad_values(
    api: Api, kind: str, fields: dict[str, t.Any], param: str
) -> None:
    assert bad_params(api.post(f"/{kind}", "administrator", json=fields)) == [param]


@pytest.mark.parametrize("parent", [-1, MISSING_ID, "x", "<tag>"])
def test_a_category_parent_must_be_an_existing_category(api: Api, parent: t.Any) -> None:
    if parent == "<tag>":
        parent = make(api, TAGS, "Loud")

    response = api.post("/categories", "administrator", json={"name": "A", "parent": parent})

    assert bad_params(response) == ["parent"]


def test_a_category_parent_of_0_is_the_top_level(api: Api) -> None:
    body = api.post("/categories", "administrator", json={"name": "A", "parent": 0}).json

    assert body["parent"] == 0


@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_a_tag_cannot_have_a_parent(api: Api, method: str) -> None:
    path = "/tags" if method == "POST" else f"/tags/{make(api, TAGS, 'Loud')}"

    response = api.request(method, path, "administrator", json={"name": "Quiet", "parent": 1})

    body = assert_wp_error(response, 400, "rest_taxonomy_not_hierarchical")
    assert body["message"] == "Cannot set parent term, taxonomy is not hierarchical."


@KIND
def test_a_slug_is_sanitised_and_made_unique(api: Api, kind: str) -> None:
    first = api.post(f"/{kind}", "administrator", json={"name": "Live Music"}).json
    second = api.post(f"/{kind}", "administrator", json={"name": "B", "slug": "Live Music"}).json
    third = api.post(f"/{kind}", "administrator", json={"name": "C", "slug": "live-music"}).json

    assert [first["slug"], second["slug"], third["slug"]] == [
        "live-music",
        "live-music-2",
        "live-music-3",
    ]


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (CATEGORIES, "A term with the name provided already exists with this parent."),
        (TAGS, "A term with the name provided already exists in this taxonomy."),
    ],
)
def test_a_duplicate_name_is_term_exists(api: Api, kind: str, message: str) -> None:
    existing = make(api, kind, "Music")

    body = assert_wp_error(
        api.post(f"/{kind}", "administrator", json={"name": "MUSIC"}), 400, "term_exists"
    )

    assert body["message"] == message
    assert body["data"]["term_id"] == existing


def test_a_category_name_may_repeat_under_another_parent(api: Api) -> None:
    top = make(api, CATEGORIES, "Arts")
    make(api, CATEGORIES, "Music")

    body = api.post("/categories", "administrator", json={"name": "Music", "parent": top}).json

    assert (body["name"], body["slug"], body["parent"]) == ("Music", "music-2", top)


@KIND
def test_the_same_name_is_allowed_in_another_language(api: Api, kind: str) -> None:
    make(api, kind, "Jazz")

    response = api.post(f"/{kind}", "administrator", json={"name": "Jazz", "i18n_language": "fr"})

    assert response.status_code == 201


# -- update ------------------------------------------------------------------------------


@KIND
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH"])
def test_an_update_changes_only_the_given_fields(api: Api, kind: str, method: str) -> None:
    term_id = make(api, kind, "Music", description="Gigs", slug="music")

    response = api.request(
        method, f"/{kind}/{term_id}", "administrator", json={"description": "Concerts"}
    )

    assert response.status_code == 200
    assert list(response.json) == [*TERM_KEYS[kind], "_links", *ADDITIVE_KEYS]
    assert (response.json["name"], response.json["slug"], response.json["description"]) == (
        "Music",
        "music",
        "Concerts",
    )


@KIND
def test_renaming_keeps_the_slug_and_a_new_slug_is_sanitised(api: Api, kind: str) -> None:
    term_id = make(api, kind, "Music")

    renamed = api.patch(f"/{kind}/{term_id}", "administrator", json={"name": "Live music"}).json
    reslugged = api.patch(f"/{kind}/{term_id}", "administrator", json={"slug": "Live Music"}).json

    assert (renamed["name"], renamed["slug"]) == ("Live music", "music")
    assert reslugged["slug"] == "live-music"


@KIND
def test_a_slug_taken_by_another_term_is_duplicate_term_slug(api: Api, kind: str) -> None:
    make(api, kind, "Music")
    term_id = make(api, kind, "Jazz")

    response = api.patch(f"/{kind}/{term_id}", "administrator", json={"slug": "music"})

    body = assert_wp_error(response, 400, "duplicate_term_slug")
    assert "music" in body["message"]
    own = api.patch(f"/{kind}/{term_id}", "administrator", json={"slug": "jazz"})
    assert own.status_code == 200


@KIND
def test_renaming_to_a_taken_name_is_term_exists(api: Api, kind: str) -> None:
    existing = make(api, kind, "Music")
    term_id = make(api, kind, "Jazz")

    response = api.patch(f"/{kind}/{term_id}", "administrator", json={"name": "music"})

    assert assert_wp_error(response, 400, "term_exists")["data"]["term_id"] == existing


@KIND
@pytest.mark.parametrize(
    ("fields", "param"),
    [({"name": ""}, "name"), ({"description": ""}, "description"), ({"slug": ""}, "slug")],
)
def test_an_update_refuses_bad_values(
    api: Api, kind: str, fields: dict[str, t.Any], param: str
) -> None:
    term_id = make(api, kind, "Music")

    assert bad_params(api.patch(f"/{kind}/{term_id}", "administrator", json=fields)) == [param]


@pytest.mark.parametrize("target", ["itself", "child", "grandchild"])
def test_a_category_cannot_move_below_itself(api: Api, target: str) -> None:
    top = make(api, CATEGORIES, "Arts")
    child = make(api, CATEGORIES, "Music", parent=top)
    grandchild = make(api, CATEGORIES, "Jazz", parent=child)
    parent = {"itself": top, "child": child, "grandchild": grandchild}[target]

    assert bad_params(
        api.patch(f"/categories/{top}", "administrator", json={"parent": parent})
    ) == ["parent"]


def test_a_category_moves_to_another_parent_or_to_the_top(api: Api) -> None:
    arts = make(api, CATEGORIES, "Arts")
    sports = make(api, CATEGORIES, "Sports")
    music = make(api, CATEGORIES, "Music", parent=arts)

    moved = api.patch(f"/categories/{music}", "administrator", json={"parent": sports}).json
    topped = api.patch(f"/categories/{music}", "administrator", json={"parent": 0}).json

    assert (moved["parent"], moved["url"]) == (
        sports,
        "http://localhost/events/category/sports/music/",
    )
    assert (topped["parent"], "up" in topped["urls"]) == (0, False)


# -- delete ------------------------------------------------------------------------------


@KIND
def test_delete_is_permanent_and_answers_the_term_as_it_was(api: Api, kind: str) -> None:
    term_id = make(api, kind, "Music")
    event = api.create_event(**{kind: [term_id]})
    before = api.get(f"/{kind}/{term_id}").json

    response = api.delete(f"/{kind}/{term_id}", "administrator")

    assert response.status_code == 200
    assert response.json == {k: v for k, v in before.items() if k != "_links"}
    assert response.json["count"] == 1
    assert bad_params(api.get(f"/{kind}/{term_id}")) == ["id"]
    assert bad_params(api.delete(f"/{kind}/{term_id}", "administrator")) == ["id"]
    assert api.get(f"/events/{event['id']}").json[kind] == []


def test_deleting_a_category_gives_its_children_its_parent(api: Api) -> None:
    top = make(api, CATEGORIES, "Arts")
    middle = make(api, CATEGORIES, "Music", parent=top)
    child = make(api, CATEGORIES, "Jazz", parent=middle)

    api.delete(f"/categories/{middle}", "administrator")

    assert api.get(f"/categories/{child}").json["parent"] == top


# -- permissions -------------------------------------------------------------------------

#: who may manage terms: categories authors and up, tags editors and up
#: (docs/differences-from-tec.md)
MANAGERS = {
    CATEGORIES: ("author", "author2", "editor", "administrator"),
    TAGS: ("editor", "administrator"),
}
OPERATIONS = {"create": ("POST", 201), "update": ("PATCH", 200), "delete": ("DELETE", 200)}
ROLES: tuple[Role, ...] = (None, "subscriber", "contributor", "author", "editor", "administrator")


def _expected(kind: str, role: Role) -> tuple[int, str | None]:
    if role is None:
        return 401, "rest_forbidden"
    return (0, None) if role in MANAGERS[kind] else (403, "rest_forbidden")


PERMISSION_CASES = [
    pytest.param(
        kind,
        operation,
        role,
        *_expected(kind, role),
        id=f"{who(role)} {operation} of {kind}: "
        + (f"{_expected(kind, role)[0]}" if _expected(kind, role)[0] else "allowed"),
    )
    for kind in (CATEGORIES, TAGS)
    for operation in OPERATIONS
    for role in ROLES
]


@pytest.mark.parametrize(("kind", "operation", "role", "status", "code"), PERMISSION_CASES)
def test_who_may_manage_terms(
    api: Api, kind: str, operation: str, role: Role, status: int, code: str | None
) -> None:
    method, success = OPERATIONS[operation]
    path = f"/{kind}" if operation == "create" else f"/{kind}/{make(api, kind, 'Music')}"

    response = api.request(method, path, role, json={"name": "Jazz"})

    if code is None:
        assert response.status_code == success, response.get_data(as_text=True)
    else:
        assert_wp_error(response, status, code)


@KIND
@pytest.mark.parametrize("role", ROLES)
def test_everybody_may_read_terms(api: Api, kind: str, role: Role) -> None:
    term_id = make(api, kind, "Music")

    assert api.get(f"/{kind}/{term_id}", role).status_code == 200
    assert api.get(f"/{kind}?hide_empty=0", role).json["total"] == 1


@KIND
@pytest.mark.parametrize("role", [None, "subscriber"])
def test_parameters_are_checked_before_permissions(api: Api, kind: str, role: Role) -> None:
    """The term named in the path is checked before the permission, for everyone; the
    body only for logged-in callers (an anonymous write is refused before its body is
    read, security.md C1)."""
    created = api.post(f"/{kind}", role, json={})
    if role is None:
        assert_wp_error(created, 401, "rest_forbidden")
    else:
        assert_wp_error(created, 400, "rest_missing_callback_param")
    assert bad_params(api.patch(f"/{kind}/{MISSING_ID}", role, json={"name": "x"})) == ["id"]
    assert bad_params(api.delete(f"/{kind}/{MISSING_ID}", role)) == ["id"]


# -- cost --------------------------------------------------------------------------------


@KIND
def test_a_list_costs_the_same_statements_whatever_the_page_size(
    api: Api, app: Application, kind: str, sql_statements: list[str]
) -> None:
    top = make(api, kind, "Top") if kind == CATEGORIES else None
    for number in range(40):
        make(api, kind, f"Term {number:02}", **({"parent": top} if top else {}))
    statements = sql_statements
    api.get("/")  # the first request after writes also reads the next publication date
    counts = {}
    for per_page in (2, 40):
        statements.clear()
        assert len(listing(api, kind, f"hide_empty=0&per_page={per_page}")[kind]) == per_page
        counts[per_page] = len(statements)

    assert counts[2] == counts[40], counts
    assert counts[40] <= 8, statements
