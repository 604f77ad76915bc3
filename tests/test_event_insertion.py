"""POST /events: required and invalid parameters, dates and zones, flags, cost, slugs,
linked venues/organizers/terms, images, body encodings and the representation."""

from __future__ import annotations

import datetime as dt
import itertools
import typing as t

import pytest
from conftest import Api, api_for, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.wordpress.taxonomies import CATEGORIES

START = "2026-12-05 19:00:00"
END = "2026-12-05 21:00:00"
REQUIRED = ("title", "start_date", "end_date")
EVENT_KEYS = [
    "id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc",
    "modified", "modified_utc", "url", "rest_url", "title", "description", "excerpt",
    "slug", "image", "all_day", "start_date", "start_date_details", "end_date",
    "end_date_details", "utc_start_date", "utc_start_date_details", "utc_end_date",
    "utc_end_date_details", "timezone", "timezone_abbr", "cost", "cost_details", "website",
    "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "categories",
    "tags", "venue", "organizer",
]  # fmt: skip
#: our multilingual keys, after all of TEC's (see tests/test_translations.py)
ADDITIVE_KEYS = ["language", "translations"]
#: the recurring-series keys (calendar.md §4.3), after TEC's and before the multilingual
SERIES_KEYS = ["recurrence", "recurring_event_id", "original_start_date"]
#: event status and attendance (anchors.md §1), after the series keys
STATUS_KEYS = [
    "event_status", "event_status_reason", "attendance_mode", "online_url",
    "previous_start_date",
]  # fmt: skip
FLAGS = ("show_map", "show_map_link", "hide_from_listings", "sticky", "featured")


def event_body(**fields: t.Any) -> dict[str, t.Any]:
    return {"title": "Jazz Night", "start_date": START, "end_date": END, **fields}


def create(api: Api, as_: str = "administrator", **fields: t.Any) -> TestResponse:
    return api.post("/events", as_, json=event_body(**fields))


def created(api: Api, as_: str = "administrator", **fields: t.Any) -> dict[str, t.Any]:
    response = create(api, as_, **fields)
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


# -- required and invalid parameters ---------------------------------------------------

MISSING_SETS = [combo for size in (1, 2, 3) for combo in itertools.combinations(REQUIRED, size)]


@pytest.mark.parametrize("missing", MISSING_SETS, ids="+".join)
@pytest.mark.parametrize("how", ["absent", "null"])
def test_each_missing_required_combination_is_listed_in_declaration_order(
    api: Api, missing: tuple[str, ...], how: str
) -> None:
    payload = event_body()
    for name in missing:
        if how == "absent":
            del payload[name]
        else:
            payload[name] = None
    body = assert_wp_error(
        api.post("/events", "administrator", json=payload), 400, "rest_missing_callback_param"
    )
    assert body["data"]["params"] == list(missing)
    assert body["message"] == "Missing parameter(s): " + ", ".join(missing)


def test_an_empty_body_misses_all_three_required_parameters_even_for_a_subscriber(
    api: Api,
) -> None:
    body = assert_wp_error(api.post("/events", "subscriber"), 400, "rest_missing_callback_param")
    assert body["data"]["params"] == ["title", "start_date", "end_date"]
    # an anonymous write is refused before its body is read (security.md C1)
    assert_wp_error(api.post("/events"), 401, "rest_forbidden")


INVALID_VALUES: list[tuple[str, t.Any]] = [
    ("title", ""),
    ("start_date", "foo"),
    ("end_date", "foo"),
    ("timezone", "Mars/Olympus_Mons"),
    ("website", "foo"),
    ("all_day", "yes"),
    ("featured", ""),
    ("image", 123),
    ("author", 9999),
    ("venue", 9999),
    ("organizer", 9999),
    ("categories", [9999]),
    ("post_parent", 9999),
    ("status", "bogus"),
    ("cost", {"a": 1}),
    ("i18n_language", "de"),
]


@pytest.mark.parametrize(("param", "value"), INVALID_VALUES, ids=[p for p, _ in INVALID_VALUES])
def test_an_invalid_value_is_a_400_naming_that_parameter(
    api: Api, param: str, value: t.Any
) -> None:
    body = assert_wp_error(create(api, **{param: value}), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == [param]
    assert param in body["message"]
    assert api.get("/events").json["total"] == 0


def test_several_invalid_values_are_reported_together(api: Api) -> None:
    response = create(api, title="", start_date="foo", website="foo", all_day="yes")
    body = assert_wp_error(response, 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"title", "start_date", "website", "all_day"}


def test_invalid_parameters_are_reported_before_permissions(api: Api) -> None:
    invalid = event_body(title="")
    assert_wp_error(api.post("/events", "subscriber", json=invalid), 400, "rest_invalid_param")
    assert_wp_error(api.post("/events", "subscriber", json=event_body()), 403, "rest_forbidden")
    # but an anonymous write is refused before its body is read (security.md C1)
    assert_wp_error(api.post("/events", json=invalid), 401, "rest_forbidden")
    assert_wp_error(api.post("/events", json=event_body()), 401, "rest_forbidden")


# -- dates and time zones --------------------------------------------------------------

WINTER_TS = int(dt.datetime(2026, 12, 5, 19, tzinfo=dt.timezone.utc).timestamp())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-12-05 19:00:00", "2026-12-05 19:00:00"),
        ("2026-12-05T19:00:00", "2026-12-05 19:00:00"),
        ("2026-12-05T19:00:00+02:00", "2026-12-05 17:00:00"),
        (WINTER_TS, "2026-12-05 19:00:00"),
        (str(WINTER_TS), "2026-12-05 19:00:00"),
    ],
    ids=["mysql", "iso", "iso-offset", "timestamp-int", "timestamp-string"],
)
def test_loose_start_dates_are_read_in_the_event_zone(
    api: Api, value: str | int, expected: str
) -> None:
    event = created(api, start_date=value, end_date="2026-12-06 23:00:00")
    assert event["start_date"] == expected
    assert event["utc_start_date"] == expected  # site zone is UTC


def test_an_offset_date_is_converted_into_the_given_event_zone(api: Api) -> None:
    event = created(
        api,
        start_date="2026-12-05T19:00:00+02:00",
        end_date="2026-12-05T23:00:00+02:00",
        timezone="America/New_York",
    )
    assert event["start_date"] == "2026-12-05 12:00:00"
    assert event["utc_start_date"] == "2026-12-05 17:00:00"
    assert event["end_date"] == "2026-12-05 16:00:00"


def test_a_relative_phrase_like_tomorrow_9am_is_resolved_against_today(api: Api) -> None:
    before = dt.datetime.now(dt.timezone.utc).date()
    event = created(api, start_date="tomorrow 9am", end_date="tomorrow 11am")
    after = dt.datetime.now(dt.timezone.utc).date()
    candidates = {f"{day + dt.timedelta(days=1):%Y-%m-%d} 09:00:00" for day in (before, after)}
    assert event["start_date"] in candidates
    assert event["end_date"] == event["start_date"].replace("09:00", "11:00")


@pytest.mark.parametrize(
    ("zone", "utc_start", "abbr"),
    [
        ("America/New_York", "2026-12-06 00:00:00", "EST"),
        ("UTC+2", "2026-12-05 17:00:00", "UTC+2"),
        ("UTC", "2026-12-05 19:00:00", "UTC"),
    ],
)
def test_the_timezone_keeps_wall_times_and_shifts_utc_dates(
    api: Api, zone: str, utc_start: str, abbr: str
) -> None:
    event = created(api, timezone=zone)
    assert (event["start_date"], event["end_date"]) == (START, END)
    assert event["utc_start_date"] == utc_start
    assert (event["timezone"], event["timezone_abbr"]) == (zone, abbr)
    assert event["utc_start_date_details"]["hour"] == utc_start[11:13]


def test_without_a_timezone_the_site_zone_utc_is_used(api: Api) -> None:
    event = created(api)
    assert (event["timezone"], event["timezone_abbr"]) == ("UTC", "UTC")
    assert event["utc_start_date"] == START


def test_the_configured_site_zone_is_used_when_no_timezone_is_sent(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    paris = api_for(sibling_app(timezone="Europe/Paris"), api)
    response = paris.post("/events", "administrator", json=event_body())
    assert response.status_code == 201, response.get_data(as_text=True)
    event = response.json
    assert (event["timezone"], event["timezone_abbr"]) == ("Europe/Paris", "CET")
    assert event["start_date"] == START
    assert event["utc_start_date"] == "2026-12-05 18:00:00"


def test_an_all_day_event_spans_midnight_to_one_second_before_midnight(api: Api) -> None:
    event = created(api, all_day=True)
    assert event["all_day"] is True
    assert (event["start_date"], event["end_date"]) == (
        "2026-12-05 00:00:00",
        "2026-12-05 23:59:59",
    )


def test_an_all_day_event_may_span_several_days(api: Api) -> None:
    event = created(api, all_day="true", end_date="2026-12-07 10:00:00")
    assert (event["start_date"], event["end_date"]) == (
        "2026-12-05 00:00:00",
        "2026-12-07 23:59:59",
    )


def test_an_end_before_the_start_is_clamped_to_the_start(api: Api) -> None:
    event = created(api, end_date="2026-12-05 08:00:00")
    assert event["end_date"] == event["start_date"] == START
    assert event["utc_end_date"] == event["utc_start_date"]


# -- cost, website, flags, slug --------------------------------------------------------


@pytest.mark.parametrize(
    ("cost", "shown"),
    [
        ("15", "$15"),
        ("25-40", "$25 \u2013 $40"),
        ("20$", "20$"),
        (["0$", "20$", "30$"], "Free \u2013 30$"),
        ("Donation", "Donation"),
    ],
)
def test_cost_is_formatted_like_tec(api: Api, cost: str | list[str], shown: str) -> None:
    event = created(api, cost=cost)
    assert event["cost"] == shown
    assert list(event["cost_details"]) == [
        "currency_symbol", "currency_code", "currency_position", "values",
    ]  # fmt: skip


def test_cost_details_list_sorted_values_as_strings(api: Api) -> None:
    event = created(api, cost=["30$", "0$", "20$"])
    assert event["cost_details"]["values"] == ["0", "20", "30"]
    assert event["cost_details"]["currency_symbol"] == "$"
    assert event["cost_details"]["currency_position"] == "postfix"


def test_without_a_website_the_permalink_is_shown(api: Api) -> None:
    event = created(api)
    assert event["website"] == event["url"]
    assert event["url"].endswith("/event/jazz-night/")


def test_a_given_website_is_shown_as_is(api: Api) -> None:
    assert created(api, website="https://jazz.example.org/night")["website"] == (
        "https://jazz.example.org/night"
    )


def test_rest_created_events_have_every_flag_off_by_default(api: Api) -> None:
    event = created(api)
    assert {flag: event[flag] for flag in FLAGS} == dict.fromkeys(FLAGS, False)
    assert event["all_day"] is False


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", [True, "1", "TRUE", 1])
def test_each_flag_can_be_switched_on(api: Api, flag: str, value: t.Any) -> None:
    event = created(api, **{flag: value})
    assert event[flag] is True
    assert all(event[other] is False for other in FLAGS if other != flag)


def test_the_slug_comes_from_the_title_and_is_made_unique(api: Api) -> None:
    assert created(api, title="Jazz Night!")["slug"] == "jazz-night"
    assert created(api, title="Jazz   night")["slug"] == "jazz-night-2"
    assert created(api, title="JAZZ NIGHT")["slug"] == "jazz-night-3"


def test_an_explicit_slug_is_sanitised_and_made_unique(api: Api) -> None:
    assert created(api, slug="My Custom Slug!")["slug"] == "my-custom-slug"
    assert created(api, slug="my-custom-slug")["slug"] == "my-custom-slug-2"


# -- venues and organizers -------------------------------------------------------------


def test_an_inline_venue_is_created_and_embedded(api: Api) -> None:
    event = created(api, venue={"venue": "Blue Hall", "city": "Paris", "country": "France"})
    venue = event["venue"]
    assert isinstance(venue["id"], int)
    assert (venue["venue"], venue["city"], venue["country"]) == ("Blue Hall", "Paris", "France")
    assert "address" not in venue  # empty values are dropped
    assert list(venue)[-6:] == [
        "show_map",
        "show_map_link",
        "global_id",
        "global_id_lineage",
        *ADDITIVE_KEYS,
    ]


def test_posting_the_same_inline_venue_again_reuses_it(api: Api) -> None:
    inline = {"venue": "Blue Hall", "city": "Paris"}
    first = created(api, venue=inline)["venue"]["id"]
    assert created(api, venue=inline)["venue"]["id"] == first


@pytest.mark.parametrize("form", ["id", "digit-string", "object"])
def test_an_existing_venue_is_linked_by_id(api: Api, form: str) -> None:
    venue_id = created(api, venue={"venue": "Blue Hall"})["venue"]["id"]
    given: t.Any = {"id": venue_id, "object": {"id": venue_id}, "digit-string": str(venue_id)}
    event = created(api, venue=given[form])
    assert event["venue"]["id"] == venue_id
    assert event["venue"]["venue"] == "Blue Hall"


def test_an_inline_venue_without_a_name_is_refused(api: Api) -> None:
    body = assert_wp_error(create(api, venue={"city": "Paris"}), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["venue"]


def test_an_event_without_venue_or_organizer_shows_empty_lists(api: Api) -> None:
    event = created(api)
    assert event["venue"] == [] and event["organizer"] == []


def organizer_ids(api: Api, *names: str) -> list[int]:
    event = created(api, organizer=[{"organizer": name} for name in names])
    return [organizer["id"] for organizer in event["organizer"]]


def test_inline_organizers_are_created_in_order(api: Api) -> None:
    event = created(api, organizer=[{"organizer": "Ann", "email": "ann@example.org"},
                                    {"organizer": "Bob"}])  # fmt: skip
    assert [o["organizer"] for o in event["organizer"]] == ["Ann", "Bob"]
    assert event["organizer"][0]["email"] == "ann@example.org"


def test_organizers_are_linked_by_id_csv_or_mixed_list_keeping_order(api: Api) -> None:
    ann, bob = organizer_ids(api, "Ann", "Bob")
    assert [o["id"] for o in created(api, organizer=ann)["organizer"]] == [ann]
    assert [o["id"] for o in created(api, organizer=f"{bob},{ann}")["organizer"]] == [bob, ann]
    mixed = created(api, organizer=[bob, {"organizer": "Cleo"}, {"id": ann}, {"organizer": "Dan"}])
    names = [o["organizer"] for o in mixed["organizer"]]
    assert names == ["Bob", "Cleo", "Ann", "Dan"]
    assert [o["id"] for o in mixed["organizer"]][::2] == [bob, ann]


def test_an_inline_organizer_without_a_name_is_refused(api: Api) -> None:
    body = assert_wp_error(
        create(api, organizer=[{"email": "x@example.org"}]), 400, "rest_invalid_param"
    )
    assert list(body["data"]["params"]) == ["organizer"]


# -- categories and tags ---------------------------------------------------------------


def test_an_unknown_category_name_creates_the_term(api: Api) -> None:
    term = created(api, categories=["Live Music"])["categories"][0]
    assert (term["name"], term["slug"], term["taxonomy"]) == (
        "Live Music", "live-music", CATEGORIES.name,
    )  # fmt: skip
    assert term["urls"]["self"].endswith(f"/calendar/events/v1/categories/{term['id']}")


@pytest.mark.parametrize("reference", ["id", "Live Music", "live music", "live-music", "id-csv"])
def test_an_existing_category_is_matched_by_id_name_or_slug(api: Api, reference: str) -> None:
    term_id = created(api, categories=["Live Music"])["categories"][0]["id"]
    given: t.Any = {"id": [term_id], "id-csv": f"{term_id}"}.get(reference, [reference])
    categories = created(api, categories=given)["categories"]
    assert [term["id"] for term in categories] == [term_id]


def test_tags_are_matched_and_created_like_categories(api: Api) -> None:
    first = {tag["name"]: tag for tag in created(api, tags="Outdoor,Family")["tags"]}
    assert sorted(first) == ["Family", "Outdoor"]
    assert {tag["taxonomy"] for tag in first.values()} == {"post_tag"}
    again = created(api, tags=[first["Family"]["id"], "outdoor"])["tags"]
    assert sorted(tag["id"] for tag in again) == sorted(tag["id"] for tag in first.values())


@pytest.mark.parametrize(
    ("user", "param", "allowed"),
    [
        ("contributor", "categories", False),
        ("author", "categories", True),
        ("editor", "categories", True),
        ("author", "tags", False),
        ("editor", "tags", True),
        ("administrator", "tags", True),
    ],
)
def test_only_users_managing_a_taxonomy_create_terms_by_name(
    api: Api, user: str, param: str, allowed: bool
) -> None:
    response = create(api, user, **{param: ["Brand New"]})
    if allowed:
        assert response.status_code == 201, response.get_data(as_text=True)
        assert response.json[param][0]["name"] == "Brand New"
    else:
        body = assert_wp_error(response, 400, "rest_invalid_param")
        assert list(body["data"]["params"]) == [param]


def test_a_contributor_may_use_an_existing_category_by_name(api: Api) -> None:
    created(api, categories=["Music"])
    response = create(api, "contributor", categories=["music"])
    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.json["categories"][0]["name"] == "Music"


def test_the_embedded_term_count_counts_published_events_only(api: Api) -> None:
    assert created(api, categories=["Music"])["categories"][0]["count"] == 1
    assert created(api, categories=["Music"], status="draft")["categories"][0]["count"] == 1
    assert created(api, categories=["Music"])["categories"][0]["count"] == 2


# -- representation --------------------------------------------------------------------


def test_the_created_event_has_tecs_keys_in_tecs_order(api: Api) -> None:
    response = create(api)
    assert response.status_code == 201
    assert list(response.json) == [*EVENT_KEYS, *SERIES_KEYS, *STATUS_KEYS, *ADDITIVE_KEYS]
    assert "Location" not in response.headers


def test_json_ld_is_only_added_on_a_single_read(api: Api) -> None:
    event = created(api)
    single = [*EVENT_KEYS, "json_ld", *SERIES_KEYS, *STATUS_KEYS, *ADDITIVE_KEYS]
    assert list(api.get(f"/events/{event['id']}").json) == single
    assert list(api.get(f"/events/by-slug/{event['slug']}").json) == single
    listed = [*EVENT_KEYS, *SERIES_KEYS, *STATUS_KEYS, *ADDITIVE_KEYS]
    assert list(api.get("/events").json["events"][0]) == listed


def test_created_event_basic_fields_have_wordpress_types(api: Api) -> None:
    event = created(api, excerpt="Short")
    assert event["author"] == str(api.users["administrator"].id)
    assert event["status"] == "publish"
    assert event["global_id_lineage"] == [event["global_id"]]
    assert event["global_id"] == f"localhost?id={event['id']}"
    assert event["rest_url"] == f"http://localhost/calendar/events/v1/events/{event['id']}"
    assert event["image"] is False
    assert event["excerpt"] == "<p>Short</p>"
    assert event["start_date_details"] == {
        "year": "2026", "month": "12", "day": "05", "hour": "19", "minutes": "00", "seconds": "00",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("a\n\nb", "<p>a</p>\n<p>b</p>"),
        ("one\ntwo", "<p>one<br />\ntwo</p>"),
        ("<p>done</p>", "<p>done</p>"),
    ],
)
def test_the_description_gets_automatic_paragraphs(api: Api, text: str, html: str) -> None:
    assert created(api, description=text)["description"] == html


def test_a_contributors_publish_request_becomes_pending(api: Api) -> None:
    assert created(api, "contributor", status="publish")["status"] == "pending"
    assert created(api, "contributor")["status"] == "draft"
    assert created(api, "author", status="draft")["status"] == "draft"


# -- encodings -------------------------------------------------------------------------

COMPARED = ("title", "start_date", "end_date", "timezone", "all_day", "featured", "cost")


def test_a_form_encoded_body_works_like_json(api: Api) -> None:
    fields = {"timezone": "UTC+2", "all_day": "1", "featured": "true", "cost": "15"}
    from_json = created(api, **fields, categories=["Rock", "Pop"])
    form = {**event_body(**fields), "categories[]": ["Rock", "Pop"]}
    response = api.post("/events", "administrator", data=form)
    assert response.status_code == 201, response.get_data(as_text=True)
    assert {k: response.json[k] for k in COMPARED} == {k: from_json[k] for k in COMPARED}
    assert sorted(c["name"] for c in response.json["categories"]) == ["Pop", "Rock"]


def test_query_string_parameters_work_like_json(api: Api) -> None:
    fields = {"timezone": "America/New_York", "sticky": "true", "cost": "25-40"}
    from_json = created(api, **fields)
    query = [*event_body(**fields).items(), ("tags[]", "a"), ("tags[]", "b")]
    response = api.post("/events", "administrator", query_string=query)
    assert response.status_code == 201, response.get_data(as_text=True)
    assert {k: response.json[k] for k in COMPARED} == {k: from_json[k] for k in COMPARED}
    assert response.json["sticky"] is True
    assert [tag["name"] for tag in response.json["tags"]] == ["a", "b"]


def test_the_json_body_wins_over_the_query_string(api: Api) -> None:
    response = api.post(
        "/events", "administrator", query_string={"title": "From query"}, json=event_body()
    )
    assert response.json["title"] == "Jazz Night"


# -- images ----------------------------------------------------------------------------

IMAGE_URL = "https://cdn.example.org/img/poster.JPG"


def test_an_author_may_attach_an_image_by_url(api: Api) -> None:
    image = created(api, "author", image=IMAGE_URL)["image"]
    assert image["url"] == IMAGE_URL
    assert isinstance(image["id"], int)
    assert image["extension"] == "jpg"


def test_a_contributor_may_not_attach_an_image_by_url(api: Api) -> None:
    body = assert_wp_error(create(api, "contributor", image=IMAGE_URL), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["image"]


@pytest.mark.parametrize("by", ["id", "url"])
def test_an_attachment_is_reused_by_id_or_by_its_url(api: Api, by: str) -> None:
    image_id = created(api, "author", image=IMAGE_URL)["image"]["id"]
    reused = created(api, "editor", image=image_id if by == "id" else IMAGE_URL)["image"]
    assert reused["id"] == image_id
    assert reused["url"] == IMAGE_URL


def test_a_contributor_may_use_an_existing_image_by_id(api: Api) -> None:
    image_id = created(api, "author", image=IMAGE_URL)["image"]["id"]
    assert created(api, "contributor", image=image_id)["image"]["id"] == image_id
