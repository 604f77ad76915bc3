"""GET /events: every archive parameter with TEC's semantics, its bad values, the
response envelope and headers, pagination links, visibility, and query cost (a fixed
number of SQL statements per page; every filter served by an index)."""

from __future__ import annotations

import datetime as dt
import re
import typing as t
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import DISCOVERY, Api, api_for, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest import models as calendar_models
from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.models import Term
from calendar_rest.wordpress.taxonomies import CATEGORIES

PARIS = (48.8566, 2.3522)
NEAR_PARIS = (48.9466, 2.3522)  # 10 km north
FAR_PARIS = (49.7566, 2.3522)  # 100 km north
ENVELOPE = ["events", "rest_url", "next_rest_url", "previous_rest_url", "total", "total_pages"]
TOTAL_HEADERS = ("X-TEC-Total", "X-TEC-TotalPages", "X-WP-Total", "X-WP-TotalPages")


# -- helpers ---------------------------------------------------------------------------


def day(offset: int) -> dt.date:
    """A date relative to today in the (UTC) site zone."""
    return dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=offset)


def at(offset: int, clock: str = "12:00:00") -> str:
    return f"{day(offset).isoformat()} {clock}"


def add(
    api: Api,
    title: str,
    start: str,
    end: str | None = None,
    as_: str = "administrator",
    **fields: t.Any,
) -> int:
    """Create an event starting at ``start`` (ending an hour later unless ``end``)."""
    if end is None:
        end = (dt.datetime.fromisoformat(start) + dt.timedelta(hours=1)).isoformat(sep=" ")
    return int(
        api.create_event(as_=as_, title=title, start_date=start, end_date=end, **fields)["id"]
    )


def listing(api: Api, query: str = "", as_: str | None = None) -> dict[str, t.Any]:
    response = api.get(f"/events{'?' + query if query else ''}", as_)
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def ids(api: Api, query: str = "", as_: str | None = None) -> list[int]:
    """The IDs listed on one page (large page so filters, not paging, decide)."""
    separator = "&" if query else ""
    return [event["id"] for event in listing(api, f"per_page=50{separator}{query}", as_)["events"]]


def bad_params(response: TestResponse) -> list[str]:
    return list(assert_wp_error(response, 400, "rest_invalid_param")["data"]["params"])


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def follow(api: Api, url: str) -> TestResponse:
    parts = urlsplit(url)
    return api.get(parts.path.removeprefix("/calendar/events/v1") + "?" + parts.query)


def child_category(app: Application, parent_id: int, name: str) -> int:
    with app.database.connection_context():
        term = Term.create(taxonomy=CATEGORIES.name, name=name, slug=name.lower(), parent=parent_id)
    return int(term.id)


# -- envelope, headers, paging ---------------------------------------------------------


def feed_link(query: str = "") -> str:
    """The list's iCalendar alternate (calendar.md §1.5), for the same query."""
    url = f"http://localhost/calendar/events/v1/events.ics{'?' + query if query else ''}"
    return f'<{url}>; rel="alternate"; type="text/calendar"'


def test_the_list_has_tecs_envelope_headers_and_exposes_them_to_cors(api: Api) -> None:
    for n in range(12):
        add(api, f"Event {n}", at(10 + n))
    response = api.get("/events")
    assert response.status_code == 200
    body = response.json
    assert list(body) == ["events", "rest_url", "next_rest_url", "total", "total_pages"]
    assert len(body["events"]) == 10  # default per_page
    assert (body["total"], body["total_pages"]) == (12, 2)
    for name, value in zip(TOTAL_HEADERS, ("12", "2", "12", "2"), strict=True):
        assert response.headers[name] == value
    assert response.headers["Link"] == (
        f'<{body["next_rest_url"]}>; rel="next", {feed_link()}, {DISCOVERY}'
    )
    cross_origin = api.get("/events", headers={"Origin": "https://elsewhere.example"})
    exposed = cross_origin.headers["Access-Control-Expose-Headers"].split(", ")
    assert set(TOTAL_HEADERS) | {"Link"} <= set(exposed)
    assert all("json_ld" not in event for event in body["events"])


def test_the_last_page_has_only_a_previous_link(api: Api) -> None:
    for n in range(12):
        add(api, f"Event {n}", at(10 + n))
    response = api.get("/events?page=2")
    body = response.json
    assert list(body) == ["events", "rest_url", "previous_rest_url", "total", "total_pages"]
    assert len(body["events"]) == 2
    assert "page" not in query_of(body["previous_rest_url"])
    assert response.headers["Link"] == (
        f'<{body["previous_rest_url"]}>; rel="prev", {feed_link("page=2")}, {DISCOVERY}'
    )


def test_a_middle_page_links_both_ways_in_body_and_link_header(api: Api) -> None:
    for n in range(7):
        add(api, f"Event {n}", at(10 + n))
    response = api.get("/events?per_page=2&page=2")
    body = response.json
    assert list(body) == ENVELOPE
    assert query_of(body["next_rest_url"])["page"] == ["3"]
    assert "page" not in query_of(body["previous_rest_url"])
    assert response.headers["Link"] == (
        f'<{body["next_rest_url"]}>; rel="next", <{body["previous_rest_url"]}>; rel="prev", '
        f"{feed_link('per_page=2&page=2')}, {DISCOVERY}"
    )
    assert (body["total"], body["total_pages"]) == (7, 4)
    page3 = api.get("/events?per_page=2&page=3").json
    assert query_of(page3["previous_rest_url"])["page"] == ["2"]


def test_an_empty_first_page_is_200_with_zero_totals_and_no_links(api: Api) -> None:
    response = api.get("/events")
    assert response.status_code == 200
    assert list(response.json) == ["events", "rest_url", "total", "total_pages"]
    assert (response.json["events"], response.json["total"], response.json["total_pages"]) == (
        [],
        0,
        0,
    )
    assert response.headers["X-TEC-TotalPages"] == "0"
    assert response.headers["Link"] == f"{feed_link()}, {DISCOVERY}"  # no page link


@pytest.mark.parametrize("page", [2, 3, 99])
def test_a_page_past_the_end_is_a_404(api: Api, page: int) -> None:
    add(api, "Only", at(10))
    assert_wp_error(api.get(f"/events?page={page}"), 404, "event-archive-page-not-found")


def test_per_page_defaults_to_ten_and_is_capped_at_fifty(api: Api) -> None:
    for n in range(52):
        add(api, f"Event {n}", at(10 + n))
    assert len(listing(api)["events"]) == 10
    capped = listing(api, "per_page=100")
    assert len(capped["events"]) == 50
    assert (capped["total"], capped["total_pages"]) == (52, 2)
    assert query_of(capped["rest_url"])["per_page"] == ["50"]
    assert len(listing(api, "per_page=100&page=2")["events"]) == 2


def test_the_per_page_cap_is_a_setting(api: Api, sibling_app: t.Callable[..., Application]) -> None:
    for n in range(4):
        add(api, f"Event {n}", at(10 + n))
    other = api_for(sibling_app(max_per_page=3), api)
    assert len(listing(other, "per_page=100")["events"]) == 3


def test_events_are_ordered_by_start_date_then_id(api: Api) -> None:
    late = add(api, "Late", at(20))
    tie_a = add(api, "Tie A", at(15))
    tie_b = add(api, "Tie B", at(15))
    early = add(api, "Early", at(12))
    assert ids(api) == [early, tie_a, tie_b, late]
    pages = [listing(api, f"per_page=1&page={n}")["events"][0]["id"] for n in (1, 2, 3, 4)]
    assert pages == [early, tie_a, tie_b, late]


def test_pagination_links_keep_every_filter_including_terms(api: Api) -> None:
    for n in range(5):
        add(
            api,
            f"Jazz {n}",
            at(10 + n),
            categories=["Music"],
            tags=["live"],
            featured=True,
            venue={"venue": "Hall"},
        )
    add(api, "Other", at(11), categories=["Sport"], tags=["live"], featured=True)
    venue = listing(api)["events"][0]["venue"]["id"]
    query = (
        f"per_page=2&categories=music&tags=live&featured=true&search=jazz&venue={venue}"
        f"&start_date={day(1)}&end_date={day(60)}"
    )
    first = listing(api, query)
    assert first["total"] == 5
    echoed = query_of(first["next_rest_url"])
    for key in (
        "categories",
        "tags",
        "featured",
        "search",
        "venue",
        "start_date",
        "end_date",
        "per_page",
    ):
        assert key in echoed, key
    second = follow(api, first["next_rest_url"])
    assert second.status_code == 200
    assert second.json["total"] == 5
    assert all(event["title"].startswith("Jazz") for event in second.json["events"])
    back = follow(api, second.json["previous_rest_url"])
    assert [e["id"] for e in back.json["events"]] == [e["id"] for e in first["events"]]


# -- the date window -------------------------------------------------------------------


def test_the_default_window_runs_from_today_to_two_years_ahead(api: Api) -> None:
    past = add(api, "Past", at(-3))
    ongoing = add(api, "Ongoing", at(-1, "23:00:00"), at(1, "02:00:00"))
    today = add(api, "Today", at(0, "00:00:00"), at(0, "00:30:00"))
    soon = add(api, "Soon", at(30))
    two_years = day(0).replace(year=day(0).year + 2)
    within = add(api, "Last day", f"{two_years} 22:00:00", f"{two_years} 23:30:00")
    beyond = add(api, "Too far", f"{two_years + dt.timedelta(days=1)} 10:00:00")
    listed = ids(api)
    assert listed == [today, soon, within]
    assert {past, ongoing, beyond}.isdisjoint(listed)
    rest_url = query_of(listing(api)["rest_url"])
    assert rest_url["start_date"] == [f"{day(0)} 00:00:00"]
    assert rest_url["end_date"] == [f"{two_years} 23:59:59"]


def test_an_explicit_end_date_reaches_beyond_two_years(api: Api) -> None:
    far = add(api, "Far", at(1000))
    assert far not in ids(api)
    assert ids(api, f"end_date={day(1001)}") == [far]


@pytest.fixture
def around(api: Api) -> dict[str, int]:
    """Events around an explicit future day D (day +100): D-1 12:00, D 00:00, D 12:00,
    D 23:59:59 and D+1 00:00, each lasting one hour (the last-but-one ends D+1)."""
    return {
        "before": add(api, "D-1 noon", at(99)),
        "midnight": add(api, "D midnight", at(100, "00:00:00")),
        "noon": add(api, "D noon", at(100)),
        "late": add(api, "D late", at(100, "23:00:00"), at(101, "00:30:00")),
        "after": add(api, "D+1 midnight", at(101, "00:00:00")),
    }


D = "{d}"
DATE_SEMANTICS = [
    # whole-day expansion: start_date → D 00:00:00 (>=); end_date → D 23:59:59 (<=)
    ("start_date", "start_date={d}", {"midnight", "noon", "late", "after"}),
    ("start_date with a time", "start_date={d} 18:00:00", {"midnight", "noon", "late", "after"}),
    ("end_date", "start_date={d0}&end_date={d}", {"before", "midnight", "noon"}),
    (
        "end_date with a time",
        "start_date={d0}&end_date={d} 01:00:00",
        {"before", "midnight", "noon"},
    ),
    # relative bounds → D 23:59:59, strict comparisons
    ("starts_after", "starts_after={d}", {"after"}),
    ("starts_before", "starts_before={d}", {"before", "midnight", "noon", "late"}),
    ("ends_after", "ends_after={d}", {"late", "after"}),
    ("ends_before", "ends_before={d}", {"before", "midnight", "noon"}),
    ("both kinds AND together", "start_date={d}&starts_before={d}", {"midnight", "noon", "late"}),
    ("strict start_date", "start_date={d} 06:00:00&strict_dates=true", {"noon", "late", "after"}),
    (
        "strict end_date",
        "start_date={d0}&end_date={d} 13:00:00&strict_dates=true",
        {"before", "midnight", "noon"},
    ),
    (
        "strict starts_after",
        "starts_after={d} 00:00:00&strict_dates=true",
        {"noon", "late", "after"},
    ),
    ("strict ends_before", "ends_before={d} 13:00:00&strict_dates=true", {"before", "midnight"}),
    (
        "strict ends_before just after an end",
        "ends_before={d} 13:00:01&strict_dates=true",
        {"before", "midnight", "noon"},
    ),
    ("strict_dates=false is whole days", "starts_after={d} 00:00:00&strict_dates=false", {"after"}),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [row[1:] for row in DATE_SEMANTICS],
    ids=[row[0] for row in DATE_SEMANTICS],
)
def test_date_bounds_follow_tecs_inclusive_semantics(
    api: Api, around: dict[str, int], query: str, expected: set[str]
) -> None:
    listed = ids(api, query.format(d=day(100), d0=day(90)))
    assert listed == sorted(around[name] for name in expected)  # IDs follow start order here


def test_starts_after_a_day_excludes_that_day_and_includes_the_next_midnight(api: Api) -> None:
    year = day(0).year + 1
    same_day = add(api, "Same day", f"{year}-01-10 12:00:00")
    next_day = add(api, "Next day", f"{year}-01-11 00:00:00")
    assert ids(api, f"starts_after={year}-01-10") == [next_day]
    assert same_day in ids(api, f"starts_after={year}-01-09")


def test_strict_dates_keeps_exact_times_as_in_tecs_own_test(api: Api) -> None:
    d = day(50)
    first = add(api, "Four pm", f"{d} 16:00:00", f"{d} 16:30:00")
    second = add(api, "Eight pm", f"{d} 20:00:00", f"{d} 20:30:00")
    window = f"start_date={d} 15:00:00&end_date={d} 18:00:00"
    assert ids(api, window) == [first, second]
    assert ids(api, window + "&strict_dates=true") == [first]
    echoed = query_of(listing(api, window + "&strict_dates=true")["rest_url"])
    assert echoed["start_date"] == [f"{d} 15:00:00"]
    assert echoed["end_date"] == [f"{d} 18:00:00"]


@pytest.mark.parametrize("relative", ["starts_after", "starts_before", "ends_after", "ends_before"])
def test_a_relative_bound_drops_the_default_window(api: Api, relative: str) -> None:
    past = add(api, "Past", at(-20))
    far = add(api, "Far", at(1000))
    pivot = {
        "starts_after": day(-30),
        "ends_after": day(-30),
        "starts_before": day(1100),
        "ends_before": day(1100),
    }[relative]
    assert ids(api, f"{relative}={pivot}") == [past, far]
    body = listing(api, f"{relative}={pivot}")
    assert "start_date" not in query_of(body["rest_url"])
    assert "end_date" not in query_of(body["rest_url"])


def test_an_explicit_window_still_applies_with_a_relative_bound(api: Api) -> None:
    past = add(api, "Past", at(-20))
    soon = add(api, "Soon", at(5))
    assert ids(api, f"starts_after={day(-30)}") == [past, soon]
    assert ids(api, f"starts_after={day(-30)}&start_date={day(0)}") == [soon]
    assert ids(api, f"starts_after={day(-30)}&end_date={day(0)}") == [past]


def test_an_event_that_started_before_the_window_is_excluded_even_if_ongoing(api: Api) -> None:
    ongoing = add(api, "Festival", at(48), at(55))
    inside = add(api, "Concert", at(51))
    assert ids(api, f"start_date={day(50)}&end_date={day(60)}") == [inside]
    assert ongoing in ids(api, f"start_date={day(48)}&end_date={day(60)}")


def test_natural_language_dates_are_understood(api: Api) -> None:
    today = add(api, "Today", at(0, "23:00:00"), at(0, "23:30:00"))
    tomorrow = add(api, "Tomorrow", at(1, "12:00:00"))
    next_month = add(api, "Next month", at(30))
    assert ids(api, "start_date=tomorrow") == [tomorrow, next_month]
    assert ids(api, "start_date=%2B1 week") == [next_month]
    assert ids(api, "end_date=tomorrow") == [today, tomorrow]
    assert ids(api, "start_date=now") == [today, tomorrow, next_month]  # whole day


def test_dates_are_read_in_the_site_time_zone(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    # 02:00 UTC on day +41 is still day +40 in New York
    event = add(api, "Late show", at(41, "02:00:00"), at(41, "03:00:00"), timezone="UTC")
    query = f"start_date={day(41)}&end_date={day(45)}"
    assert ids(api, query) == [event]
    new_york = api_for(sibling_app(timezone="America/New_York"), api)
    assert ids(new_york, query) == []
    assert ids(new_york, f"start_date={day(40)}&end_date={day(40)}") == [event]


# -- search ----------------------------------------------------------------------------


@pytest.fixture
def searchable(api: Api) -> dict[str, int]:
    return {
        "jazz": add(api, "Jazz Night", at(10)),
        "split": add(api, "Jazz", at(11), description="An evening of <b>night</b> music"),
        "excerpt": add(api, "Concert", at(12), excerpt="Smooth jazzy tunes"),
        "rock": add(api, "Rock Night", at(13)),
    }


SEARCHES = [
    ("jaz", {"jazz", "split", "excerpt"}),
    ("JAZZ", {"jazz", "split", "excerpt"}),
    ("night jazz", {"jazz", "split"}),
    ("jazz   night", {"jazz", "split"}),
    ("nig", {"jazz", "split", "rock"}),
    ("jazzy", {"excerpt"}),
    ("tunes", {"excerpt"}),
    ("jazz rock", set()),
    ("opera", set()),
]


@pytest.mark.parametrize(("search", "expected"), SEARCHES, ids=[s for s, _ in SEARCHES])
def test_search_needs_every_word_as_a_prefix_in_title_excerpt_or_description(
    api: Api, searchable: dict[str, int], search: str, expected: set[str]
) -> None:
    body = listing(api, f"per_page=50&search={search}")
    assert [event["id"] for event in body["events"]] == sorted(
        searchable[name] for name in expected
    )
    assert body["total"] == len(expected)
    assert query_of(body["rest_url"])["search"] == [search]


def test_search_follows_updates_of_the_text(api: Api, searchable: dict[str, int]) -> None:
    response = api.post(
        f"/events/{searchable['rock']}", "administrator", json={"title": "Opera Gala"}
    )
    assert response.status_code == 200
    assert ids(api, "search=rock") == []
    assert ids(api, "search=opera") == [searchable["rock"]]


# -- terms, linked records, flags ------------------------------------------------------


@pytest.fixture
def tagged(api: Api, app: Application) -> dict[str, t.Any]:
    music = add(api, "Music", at(10), categories=["Music"], tags=["loud"])
    sport = add(api, "Sport", at(11), categories=["Sport"], tags=["outdoor"])
    both = add(api, "Both", at(12), categories=["Music", "Sport"], tags=["loud", "outdoor"])
    bare = add(api, "Bare", at(13))
    music_id = api.get(f"/events/{music}").json["categories"][0]["id"]
    jazz_cat = child_category(app, music_id, "Jazzcat")
    child = add(api, "Child", at(14), categories=[jazz_cat])
    tag_ids = {tag["slug"]: tag["id"] for tag in api.get(f"/events/{both}").json["tags"]}
    return {
        "music": music,
        "sport": sport,
        "both": both,
        "bare": bare,
        "child": child,
        "music_id": music_id,
        "jazz_id": jazz_cat,
        "tag_ids": tag_ids,
    }


TERM_FILTERS = [
    ("categories=music", {"music", "both", "child"}),
    ("categories={music_id}", {"music", "both", "child"}),
    ("categories=jazzcat", {"child"}),
    ("categories=sport", {"sport", "both"}),
    ("categories=sport,jazzcat", {"sport", "both", "child"}),
    ("categories[]=sport&categories[]=jazzcat", {"sport", "both", "child"}),
    ("categories=Sport", {"sport", "both"}),
    ("tags=loud", {"music", "both"}),
    ("tags=loud,outdoor", {"music", "sport", "both"}),
    ("tags[]={loud_id}&tags[]={outdoor_id}", {"music", "sport", "both"}),
    ("categories=sport&tags=loud", {"both"}),
    ("categories=&tags=", {"music", "sport", "both", "bare", "child"}),
]


@pytest.mark.parametrize(("query", "expected"), TERM_FILTERS, ids=[q for q, _ in TERM_FILTERS])
def test_categories_and_tags_match_any_of_ids_or_slugs_and_children(
    api: Api, tagged: dict[str, t.Any], query: str, expected: set[str]
) -> None:
    filled = query.format(
        music_id=tagged["music_id"],
        loud_id=tagged["tag_ids"]["loud"],
        outdoor_id=tagged["tag_ids"]["outdoor"],
    )
    assert ids(api, filled) == sorted(tagged[name] for name in expected)


@pytest.fixture
def linked(api: Api) -> dict[str, int]:
    a = api.create_event(
        title="A",
        start_date=at(10),
        end_date=at(10, "13:00:00"),
        venue={"venue": "Hall A"},
        organizer=[{"organizer": "Org 1"}, {"organizer": "Org 2"}],
    )
    b = api.create_event(
        title="B",
        start_date=at(11),
        end_date=at(11, "13:00:00"),
        venue={"venue": "Hall B"},
        organizer=[{"organizer": "Org 3"}],
    )
    c = add(api, "C", at(12))
    return {
        "a": a["id"],
        "b": b["id"],
        "c": c,
        "hall_a": a["venue"]["id"],
        "hall_b": b["venue"]["id"],
        "org1": a["organizer"][0]["id"],
        "org2": a["organizer"][1]["id"],
        "org3": b["organizer"][0]["id"],
    }


LINK_FILTERS = [
    ("venue={hall_a}", {"a"}),
    ("venue={hall_a},{hall_b}", {"a", "b"}),
    ("venue[]={hall_b}&venue[]={hall_a}", {"a", "b"}),
    ("organizer={org2}", {"a"}),
    ("organizer={org1},{org2}", {"a"}),
    ("organizer={org1},{org3}", {"a", "b"}),
    ("organizer[]={org3}", {"b"}),
    ("venue={hall_a}&organizer={org3}", set()),
]


@pytest.mark.parametrize(("query", "expected"), LINK_FILTERS, ids=[q for q, _ in LINK_FILTERS])
def test_venue_and_organizer_filters_match_any_of_the_ids(
    api: Api, linked: dict[str, int], query: str, expected: set[str]
) -> None:
    assert ids(api, query.format(**linked)) == sorted(linked[name] for name in expected)


FLAG_FILTERS = [
    ("featured=true", "featured", True),
    ("featured=1", "featured", True),
    ("featured=false", "featured", False),
    ("featured=0", "featured", False),
    ("ticketed=true", "ticketed", True),
    ("ticketed=false", "ticketed", False),
]


@pytest.mark.parametrize(
    ("query", "flag", "wanted"), FLAG_FILTERS, ids=[q for q, _, _ in FLAG_FILTERS]
)
def test_featured_and_ticketed_keep_events_with_that_flag_value(
    api: Api, query: str, flag: str, wanted: bool
) -> None:
    on = add(api, "On", at(10), **{flag: True})
    off = add(api, "Off", at(11))
    assert ids(api, query) == [on if wanted else off]
    assert ids(api) == [on, off]


def test_post_parent_keeps_the_children_of_that_event(api: Api) -> None:
    parent = add(api, "Series", at(10))
    first = add(api, "Part 1", at(11), post_parent=parent)
    second = add(api, "Part 2", at(12), post_parent=parent)
    add(api, "Unrelated", at(13))
    assert ids(api, f"post_parent={parent}") == [first, second]
    assert ids(api, f"post_parent={first}") == []


# -- include ---------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["csv", "array"])
def test_include_restricts_to_ids_and_ignores_the_date_window(api: Api, style: str) -> None:
    past = add(api, "Past", at(-30))
    soon = add(api, "Soon", at(10))
    far = add(api, "Far", at(1000))
    add(api, "Not included", at(11))
    query = (
        f"include={past},{far},{soon}"
        if style == "csv"
        else f"include[]={far}&include[]={past}&include[]={soon}"
    )
    assert ids(api, query) == [past, soon, far]
    assert ids(api, query + f"&start_date={day(5)}&end_date={day(20)}") == [past, soon, far]


def test_include_still_applies_the_other_filters_and_visibility(api: Api) -> None:
    featured = add(api, "Featured", at(10), featured=True)
    plain = add(api, "Plain", at(11))
    draft = add(api, "Draft", at(12), status="draft")
    assert ids(api, f"include={featured},{plain}&featured=true") == [featured]
    assert ids(api, f"include={featured},{plain},{draft}") == [featured, plain]
    assert ids(api, f"include={draft}", "administrator") == [draft]


# -- status and visibility -------------------------------------------------------------


@pytest.fixture
def statuses(api: Api) -> dict[str, int]:
    return {
        "published": add(api, "Published", at(10)),
        "draft": add(api, "Admin draft", at(11), status="draft"),
        "pending": add(api, "Pending", at(12), status="pending"),
        "private": add(api, "Private", at(13), status="private"),
        "own_draft": add(api, "Own draft", at(14), as_="contributor", status="draft"),
    }


STATUS_CASES = [
    (None, "", {"published"}),
    ("subscriber", "", {"published"}),
    (None, "status=publish", {"published"}),
    ("subscriber", "status[]=publish", {"published"}),
    ("contributor", "", {"published", "own_draft"}),
    ("contributor2", "", {"published"}),
    ("contributor", "status=draft", {"own_draft"}),
    ("editor", "", {"published", "draft", "pending", "private", "own_draft"}),
    ("administrator", "status=draft", {"draft", "own_draft"}),
    ("administrator", "status=draft,pending", {"draft", "pending", "own_draft"}),
    ("administrator", "status[]=private&status[]=publish", {"published", "private"}),
    ("administrator", "status=trash", set()),
]


@pytest.mark.parametrize(
    ("user", "query", "expected"),
    STATUS_CASES,
    ids=[f"{u or 'anonymous'}-{q or 'default'}" for u, q, _ in STATUS_CASES],
)
def test_statuses_listed_depend_on_the_role_and_the_status_filter(
    api: Api, statuses: dict[str, int], user: str | None, query: str, expected: set[str]
) -> None:
    assert ids(api, query, user) == sorted(statuses[name] for name in expected)


def test_trashed_events_are_listed_only_when_asked_for(api: Api, statuses: dict[str, int]) -> None:
    assert api.delete(f"/events/{statuses['published']}", "administrator").status_code == 200
    assert statuses["published"] not in ids(api, "", "administrator")
    assert ids(api, "status=trash", "administrator") == [statuses["published"]]


@pytest.mark.parametrize(
    ("user", "status"),
    [
        (None, "draft"),
        (None, "publish,draft"),
        ("subscriber", "pending"),
        (None, "trash"),
    ],
)
def test_readers_may_only_ask_for_published_events(api: Api, user: str | None, status: str) -> None:
    assert bad_params(api.get(f"/events?status={status}", user)) == ["status"]


@pytest.mark.parametrize(
    "query",
    [
        "include={hidden}",
        "featured=true",
        "search=secret",
        "status=publish",
        "categories=music",
        "starts_after={past}",
    ],
)
def test_events_hidden_from_listings_never_appear(api: Api, query: str) -> None:
    hidden = add(
        api, "Secret", at(10), hide_from_listings=True, featured=True, categories=["Music"]
    )
    shown = add(api, "Secret too", at(11), featured=True, categories=["Music"])
    for user in (None, "administrator"):
        assert ids(api, query.format(hidden=hidden, past=day(-5)), user) in ([shown], [])
        assert hidden not in ids(api, query.format(hidden=hidden, past=day(-5)), user)
    assert api.get(f"/events/{hidden}").status_code == 200


@pytest.mark.parametrize(
    ("user", "query", "redacted"),
    [
        (None, "", True),
        (None, "password=wrong", True),
        (None, "password=s3cret", False),
        ("editor", "", True),
        ("editor", "context=edit", False),
        ("administrator", "context=edit", False),
        ("contributor", "context=edit", True),
    ],
)
def test_password_protected_events_are_listed_redacted_unless_unlocked(
    api: Api, user: str | None, query: str, redacted: bool
) -> None:
    add(
        api,
        "Protected",
        at(10),
        password="s3cret",
        description="Hidden words",
        excerpt="Teaser",
        featured=True,
    )
    events = listing(api, query, user)["events"]
    assert [event["title"] for event in events] == ["Protected"]
    event = events[0]
    if redacted:
        assert (event["description"], event["excerpt"], event["featured"]) == ("", "", None)
    else:
        assert "Hidden words" in event["description"]
        assert event["featured"] is True


# -- geolocation -----------------------------------------------------------------------


@pytest.fixture
def placed(api: Api) -> dict[str, int]:
    def venue(name: str, point: tuple[float, float] | None) -> dict[str, t.Any]:
        data: dict[str, t.Any] = {"venue": name}
        if point:
            data.update(geo_lat=point[0], geo_lng=point[1])
        return data

    return {
        "near": add(api, "Near", at(10), venue=venue("Saint-Denis", NEAR_PARIS)),
        "far": add(api, "Far", at(11), venue=venue("Amiens", FAR_PARIS)),
        "nowhere": add(api, "No coordinates", at(12), venue=venue("Somewhere", None)),
        "no_venue": add(api, "No venue", at(13)),
    }


GEO_CASES = [
    ("geoloc=true", {"near", "far"}),
    ("geoloc=1", {"near", "far"}),
    ("geoloc=false", {"near", "far", "nowhere", "no_venue"}),
    ("geoloc_lat={lat}&geoloc_lng={lng}", {"near"}),
    ("geoloc=true&geoloc_lat={lat}&geoloc_lng={lng}", {"near"}),
    ("geoloc_lat=0&geoloc_lng=0", set()),
]


@pytest.mark.parametrize(("query", "expected"), GEO_CASES, ids=[q for q, _ in GEO_CASES])
def test_geolocation_filters_keep_venues_with_coordinates_or_within_the_radius(
    api: Api, placed: dict[str, int], query: str, expected: set[str]
) -> None:
    filled = query.format(lat=PARIS[0], lng=PARIS[1])
    assert ids(api, filled) == sorted(placed[name] for name in expected)


@pytest.mark.parametrize(
    ("radius", "unit", "expected"),
    [
        (5, "kms", set()),
        (50, "kms", {"near"}),
        (150, "kms", {"near", "far"}),
        (100, "miles", {"near", "far"}),
    ],
)
def test_the_geofence_radius_and_unit_are_settings(
    api: Api,
    placed: dict[str, int],
    sibling_app: t.Callable[..., Application],
    radius: float,
    unit: str,
    expected: set[str],
) -> None:
    other = api_for(sibling_app(geofence_radius=radius, geofence_unit=unit), api)
    found = ids(other, f"geoloc_lat={PARIS[0]}&geoloc_lng={PARIS[1]}")
    assert found == sorted(placed[name] for name in expected)


@pytest.mark.parametrize(
    ("query", "missing"),
    [
        ("geoloc_lat=48.85", "geoloc_lng"),
        ("geoloc_lng=2.35", "geoloc_lat"),
    ],
)
def test_one_geolocation_coordinate_alone_is_a_400_naming_the_other(
    api: Api, query: str, missing: str
) -> None:
    body = assert_wp_error(api.get(f"/events?{query}"), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == [missing]
    assert missing in body["message"]
    assert missing in body["data"]["params"][missing]


@pytest.mark.parametrize("query", ["geoloc=true", "geoloc=false", "geoloc_lat=1&geoloc_lng=2"])
def test_geolocation_parameters_are_a_clear_400_when_the_feature_is_off(
    api: Api, sibling_app: t.Callable[..., Application], query: str
) -> None:
    other = api_for(sibling_app(geolocation=False), api)
    body = assert_wp_error(other.get(f"/events?{query}"), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {part.split("=")[0] for part in query.split("&")}
    assert all("disabled" in message for message in body["data"]["params"].values())
    assert other.get("/events").status_code == 200


# -- languages -------------------------------------------------------------------------


def test_lists_hold_only_records_of_the_request_language(api: Api) -> None:
    english = add(api, "Concert", at(10))
    french = add(api, "Concert FR", at(11), i18n_language="fr")
    root_response = api.post(
        "/fr/calendar/events/v1/events",
        "administrator",
        json={"title": "Concert racine", "start_date": at(12), "end_date": at(12, "14:00:00")},
    )
    assert root_response.status_code == 201
    via_root = root_response.json["id"]
    assert ids(api) == [english]
    assert ids(api, "i18n_language=en") == [english]
    assert ids(api, "i18n_language=fr") == [french, via_root]
    response = api.get("/fr/calendar/events/v1/events?per_page=50")
    assert [event["id"] for event in response.json["events"]] == [french, via_root]
    assert "/fr/" in response.json["rest_url"]
    response = api.get("/fr/calendar/events/v1/events?i18n_language=en")
    assert [event["id"] for event in response.json["events"]] == [english]


# -- bad values ------------------------------------------------------------------------


BAD_VALUES = [
    ("page", "0"),
    ("page", "-1"),
    ("page", "abc"),
    ("page", "1.5"),
    ("per_page", "0"),
    ("per_page", "-5"),
    ("per_page", "ten"),
    ("start_date", "foo"),
    ("end_date", "foo"),
    ("starts_before", "foo"),
    ("starts_after", "not a date"),
    ("ends_before", "2027-13-45"),
    ("ends_after", "foo"),
    ("strict_dates", "maybe"),
    ("search", ""),
    ("categories", "nope"),
    ("categories", "99999"),
    ("categories[]", "nope"),
    ("tags", "nope"),
    ("tags", "99999"),
    ("venue", "99999"),
    ("venue", "abc"),
    ("venue[]", "99999"),
    ("organizer", "99999"),
    ("organizer", "abc"),
    ("featured", "maybe"),
    ("ticketed", "maybe"),
    ("geoloc", "maybe"),
    ("status", "bogus"),
    ("status", "any"),
    ("status[]", "bogus"),
    ("include", "abc"),
    ("include", "-3"),
    ("post_parent", "99999"),
    ("post_parent", "0"),
    ("post_parent", "abc"),
    ("geoloc_lat", "999"),
    ("geoloc_lng", "999"),
    ("geoloc_lat", "north"),
    ("context", "embed"),
    ("i18n_language", "de"),
]


@pytest.mark.parametrize(("param", "value"), BAD_VALUES, ids=[f"{p}={v}" for p, v in BAD_VALUES])
def test_a_bad_value_is_a_400_naming_the_parameter(api: Api, param: str, value: str) -> None:
    add(api, "Some event", at(10))
    query = f"{param}={value}"
    if param == "geoloc_lat":
        query += "&geoloc_lng=2"
    elif param == "geoloc_lng":
        query += "&geoloc_lat=48"
    name = param.removesuffix("[]")
    assert bad_params(api.get(f"/events?{query}", "administrator")) == [name]


def test_a_venue_id_list_with_one_unknown_entry_is_a_400(api: Api, linked: dict[str, int]) -> None:
    assert bad_params(api.get(f"/events?venue={linked['hall_a']},99999")) == ["venue"]
    assert bad_params(api.get(f"/events?organizer={linked['org1']},99999")) == ["organizer"]


def test_several_bad_values_are_reported_together(api: Api) -> None:
    response = api.get("/events?page=0&start_date=foo&featured=maybe&search=")
    assert set(bad_params(response)) == {"page", "start_date", "featured", "search"}
    response = api.get(
        "/events?categories=nope&tags=nope&venue=99999&post_parent=99999&status=draft"
    )
    assert set(bad_params(response)) == {"categories", "tags", "venue", "post_parent", "status"}


def test_a_tag_slug_is_not_a_category(api: Api) -> None:
    add(api, "Tagged", at(10), tags=["loud"])
    assert bad_params(api.get("/events?categories=loud")) == ["categories"]


# -- cost: SQL statements and index use ------------------------------------------------


def test_the_number_of_sql_statements_does_not_grow_with_per_page(
    api: Api, app: Application, sql_statements: list[str]
) -> None:
    for n in range(45):
        add(
            api,
            f"Event {n}",
            at(10 + n),
            venue={"venue": f"Venue {n % 5}"},
            organizer=[{"organizer": f"Org {n % 3}"}, {"organizer": f"Org {n % 3 + 3}"}],
            categories=[f"Cat {n % 4}", f"Cat {n % 4 + 4}"],
            tags=[f"tag{n % 2}", f"tag{n % 2 + 2}"],
            image=f"https://example.com/images/{n}.jpg",
        )
    statements = sql_statements
    api.get("/")  # the first request after writes also reads the next publication date
    listing(api, "per_page=1")  # and the first list, the longest event (once per write)
    counts = {}
    for per_page in (2, 40):
        statements.clear()
        body = listing(api, f"per_page={per_page}")
        assert len(body["events"]) == per_page
        assert all(event["venue"] and len(event["organizer"]) == 2 for event in body["events"])
        assert all(
            len(event["categories"]) == 2 and len(event["tags"]) == 2 and event["image"]
            for event in body["events"]
        )
        counts[per_page] = len(statements)
    assert counts[2] == counts[40], counts
    assert counts[40] <= 12, statements


def test_a_single_event_is_read_with_its_venue_and_revision_in_one_statement(
    api: Api, sql_statements: list[str], monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    """Besides the generation and the count of translations, a single read takes the
    event with its venue, revision, organizers and terms in one statement
    (``linked_json.py``); MariaDB reads the organizers, then the terms, apart. Its
    ``ETag`` still changes with every write."""
    event_id = add(
        api,
        "Linked",
        at(10),
        venue={"venue": "Hall"},
        organizer=[{"organizer": "Org"}],
        categories=["Cat"],
        tags=["tag"],
    )
    api.get("/")  # the first request after writes also reads the next publication date
    sql_statements.clear()
    first = api.get(f"/events/{event_id}")
    body = first.json
    assert body["venue"]["venue"] == "Hall" and body["organizer"][0]["organizer"] == "Org"
    assert [term["name"] for term in body["categories"] + body["tags"]] == ["Cat", "tag"]
    reads = [sql for sql in sql_statements if not re.search("site_state|_counted", sql)]
    assert len(reads) == (3 if backend == "mysql" else 1), reads
    assert re.search(r'FROM [`"]event[`"].*JOIN [`"]venue[`"]', reads[0]), reads[0]
    assert "change_entry" in reads[0], reads[0]
    if backend != "mysql":
        assert "event_organizer" in reads[0] and "event_term" in reads[0], reads[0]
    # the same body: written in the second the event was last modified (the wall clock
    # may have moved on since, which would change ``modified``)
    written = dt.datetime.fromisoformat(body["modified_utc"]).replace(tzinfo=dt.timezone.utc)
    monkeypatch.setattr(api.app.dispatcher.calls, "clock", ManualClock(written))
    api.post(f"/events/{event_id}", "administrator", json={"title": "Linked"})
    second = api.get(f"/events/{event_id}")
    assert second.get_data() == first.get_data()
    assert second.headers["ETag"] != first.headers["ETag"]


def test_a_list_page_reads_its_ids_then_its_events_with_all_they_link_to(
    api: Api, sql_statements: list[str], backend: str
) -> None:
    """A page takes its IDs, then its events with their venues, organizers and terms
    (as JSON columns): two statements. MariaDB reads the organizers, then the terms,
    apart."""
    for index in range(3):
        add(api, f"Page {index}", at(10 + index), organizer=[{"organizer": "Org"}], tags=["t"])
    api.get("/")  # the first request after writes also reads the next publication date
    sql_statements.clear()
    body = api.get("/events").json
    assert [event["tags"][0]["name"] for event in body["events"]] == ["t", "t", "t"]
    reads = [sql for sql in sql_statements if not re.search("site_state|COUNT", sql)]
    assert len(reads) == (4 if backend == "mysql" else 2), reads


def test_organizers_and_terms_keep_their_order_in_every_read(api: Api) -> None:
    """The event's own order of organizers (not their IDs'), and terms by name: the
    same in a single read and a list page, on every backend, however each reads them
    (names that every backend's collation orders alike)."""
    event_id = add(
        api,
        "Ordered",
        at(10),
        organizer=[{"organizer": "Zed"}, {"organizer": "Amy"}, {"organizer": "Mid"}],
        categories=["beta", "alpha", "gamma"],
        tags=["zz", "ya", "b"],
    )
    first_organizers = ["Zed", "Amy", "Mid"]
    single = api.get(f"/events/{event_id}").json
    listed = api.get("/events").json["events"][0]
    for body in (single, listed):
        assert [o["organizer"] for o in body["organizer"]] == first_organizers
        assert [c["name"] for c in body["categories"]] == ["alpha", "beta", "gamma"]
        assert [tag["name"] for tag in body["tags"]] == ["b", "ya", "zz"]
    reordered = [single["organizer"][2]["id"], single["organizer"][0]["id"]]
    api.post(f"/events/{event_id}", "administrator", json={"organizer": reordered})
    again = api.get(f"/events/{event_id}").json
    assert [o["organizer"] for o in again["organizer"]] == ["Mid", "Zed"]
    assert [o["organizer"] for o in api.get("/events").json["events"][0]["organizer"]] == [
        "Mid",
        "Zed",
    ]


def _representative_filters() -> list[tuple[str, dict[str, t.Any]]]:
    now = dt.datetime(2027, 3, 1)
    week = dt.timedelta(days=7)
    return [
        ("default window", {"start_min": now, "end_max": now + 100 * week}),
        ("starts_before", {"starts_before": now}),
        ("starts_after", {"starts_after": now}),
        ("ends_before", {"ends_before": now}),
        ("ends_after", {"ends_after": now}),
        (
            "all date bounds",
            {
                "start_min": now,
                "end_max": now + week,
                "starts_after": now,
                "starts_before": now + week,
                "ends_after": now,
                "ends_before": now + week,
            },
        ),
        ("term group", {"start_min": now, "end_max": now + week, "term_groups": [[1, 2, 3]]}),
        ("two term groups", {"start_min": now, "term_groups": [[1, 2], [5]]}),
        ("venues", {"start_min": now, "end_max": now + week, "venues": [1, 2]}),
        ("organizers", {"start_min": now, "end_max": now + week, "organizers": [1, 2]}),
        (
            "search words",
            {"start_min": now, "end_max": now + week, "search_words": ["jazz", "night"]},
        ),
        ("featured", {"start_min": now, "end_max": now + week, "featured": True}),
        ("not featured", {"start_min": now, "featured": False}),
        ("ticketed", {"start_min": now, "ticketed": True}),
        ("include", {"include": [1, 2, 3]}),
        ("post_parent", {"start_min": now, "post_parent": 1}),
        ("geo venues", {"start_min": now, "geo_venues": [1, 2]}),
        ("any geo venue", {"start_min": now, "geo_venues": True}),
        ("statuses", {"start_min": now, "statuses": ["draft", "pending"]}),
        ("event statuses", {"start_min": now, "event_statuses": ["canceled", "postponed"]}),
    ]


#: each representative filter, asked of SQLite's ``EXPLAIN QUERY PLAN``
every_filter_on_sqlite = pytest.mark.parametrize(
    ("label", "values"),
    [
        pytest.param(label, values, marks=pytest.mark.backends("sqlite"), id=label)
        for label, values in _representative_filters()
    ],
)


def _sqlite_plan(app: Application, filters: t.Any, user: t.Any) -> list[str]:
    """SQLite's plan of one archive page, with peewee's table aliases (``"event" AS
    "t1"``) turned back into table names so ``SCAN event`` reads as it should."""
    from calendar_rest.queries.lists.archive import archive_query

    event = calendar_models.Event
    query = archive_query(filters, user).order_by(event.start_utc, event.id).limit(10)
    with app.database.connection_context():
        sql, params = query.sql()
        rows = app.database.execute_sql(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
    aliases = dict(re.findall(r'FROM "(\w+)" AS "(\w+)"', sql))
    names = {alias: table for table, alias in aliases.items()}
    return [
        re.sub(r"^(SCAN|SEARCH) (\w+)", lambda m: f"{m[1]} {names.get(m[2], m[2])}", row[-1])
        for row in rows
    ]


@pytest.mark.parametrize("as_user", [None, "contributor", "administrator"])
@every_filter_on_sqlite
def test_every_archive_filter_is_served_by_an_index_on_sqlite(
    api: Api,
    app: Application,
    label: str,
    values: dict[str, t.Any],
    as_user: str | None,
) -> None:
    from calendar_rest.queries.lists.archive import ArchiveFilters

    user = api.users[as_user] if as_user else None
    filters = ArchiveFilters(language="en", max_event_seconds=86400, **values)
    plan = _sqlite_plan(app, filters, user)
    assert any(line.startswith("SEARCH event USING") for line in plan), plan
    assert not [line for line in plan if line.startswith("SCAN event")], f"{label}: {plan}"


@pytest.mark.parametrize("as_user", [None, "administrator"])
@every_filter_on_sqlite
def test_a_total_catching_up_reads_only_its_range_of_ids_on_sqlite(
    api: Api,
    app: Application,
    label: str,
    values: dict[str, t.Any],
    as_user: str | None,
) -> None:
    """After a write, a kept total counts one range of IDs again (``queries.counts``):
    that count is bounded by the range on the primary key, for every filter."""
    from calendar_rest.queries.lists.archive import ArchiveFilters, archive_ranges

    user = api.users[as_user] if as_user else None
    filters = ArchiveFilters(language="en", max_event_seconds=86400, **values)
    with app.database.connection_context():
        sql, params = archive_ranges(filters, user).ranged
        rows = app.database.execute_sql(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
    plan = [
        row[-1].replace("SEARCH t1 ", "SEARCH event ").replace("SCAN t1", "SCAN event")
        for row in rows
    ]
    assert any(line.startswith("SEARCH event USING INTEGER PRIMARY KEY") for line in plan), plan
    assert not [line for line in plan if line.startswith("SCAN event")], f"{label}: {plan}"


@pytest.mark.xfail(
    strict=True,
    reason="include is read through the (language, "
    "hide_from_listings, status, start_utc...) index without any bound on "
    "the ID, i.e. every listed event of the language, not by primary key",
)
@pytest.mark.parametrize("as_user", [None, "administrator"])
@pytest.mark.backends("sqlite")  # EXPLAIN QUERY PLAN is SQLite's
def test_include_is_served_by_the_primary_key_on_sqlite(
    api: Api, app: Application, as_user: str | None
) -> None:
    from calendar_rest.queries.lists.archive import ArchiveFilters

    user = api.users[as_user] if as_user else None
    plan = _sqlite_plan(app, ArchiveFilters(language="en", include=[1, 2, 3]), user)
    assert any("PRIMARY KEY" in line for line in plan), plan


def test_the_longest_event_is_read_once_per_write_generation(
    api: Api, sql_statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lists bound their end-date filters by the longest event on record: read once
    per write generation, and again after a write that makes a longer one."""
    add(api, "Short", at(10, "10:00:00"), at(10, "12:00:00"))
    reads: list[object] = []
    original = api.app.database.execute_sql

    def spy(sql: str, params: t.Any = None, *args: t.Any, **kwargs: t.Any) -> t.Any:
        if "site_state" in sql and list(params or ()) == ["max_event_seconds"]:
            reads.append(params)
        return original(sql, params, *args, **kwargs)

    monkeypatch.setattr(api.app.database, "execute_sql", spy)
    for query in ("?per_page=3", "?per_page=4", "?page=1"):  # three misses of the cache
        assert api.get(f"/events{query}").status_code == 200
    assert len(reads) == 1
    add(api, "Long", at(40), at(60))  # the write reads it afresh to raise it
    reads.clear()
    listed = api.get(f"/events?ends_after={day(55).isoformat()}&start_date={day(30).isoformat()}")
    assert [event["title"] for event in listed.json["events"]] == ["Long"]
    assert len(reads) == 1  # at the new generation


@pytest.mark.parametrize("as_user", [None, "contributor", "administrator"])
@pytest.mark.backends("postgresql", "mysql")  # the plans asked of their EXPLAIN
def test_a_walking_search_checks_each_row_in_turn(
    api: Api, app: Application, backend: str, as_user: str | None
) -> None:
    """A page of a common word walks the archive and checks each event's words with a
    seek (``queries.word_search``). PostgreSQL and MariaDB would flatten the ``EXISTS``
    into a join gathering every match of the word first (measured at 100,000 events:
    17 ms against 0.8 ms for the walk on PostgreSQL, 12 against 2 on MariaDB); the plan
    keeps it a dependent subquery, whatever the table sizes."""
    from calendar_rest.queries.lists.archive import ArchiveFilters, archive_query

    for number in range(3):  # MariaDB explains a plan of empty tables as nothing to do
        api.create_event("administrator", title=f"Jazz night {number}")
    user = api.users[as_user] if as_user else None
    filters = ArchiveFilters(language="en", max_event_seconds=86400, search_words=["jazz", "night"])
    event = calendar_models.Event
    query = archive_query(filters, user, walk_words=True)
    query = query.order_by(event.start_utc, event.id).limit(10)
    with app.database.connection_context():
        sql, params = query.sql()
        rows = app.database.execute_sql(f"EXPLAIN {sql}", params).fetchall()
    if backend == "postgresql":
        plan = "\n".join(row[0] for row in rows)
        assert plan.count("SubPlan") >= 2, plan  # one per word
        assert "search_word" in plan and "Join" not in plan, plan
    else:
        kinds = [row[1] for row in rows]  # select_type
        assert kinds.count("DEPENDENT SUBQUERY") >= 2, rows
        assert "MATERIALIZED" not in kinds and "<subquery" not in str(rows), rows
