"""The month and day views, term archives, search and the date jump (site.md §1, §2).

Each view shows the events an anonymous ``GET /events`` returns for the same filter
(the month: every event overlapping its 6-week grid; the day: every event overlapping
it), placed as TEC places them, in English and French.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from conftest import Api, api_for
from site_helpers import api_ids, day_start, link, page, shown_ids
from test_site_list import hidden_records

from calendar_rest.site.month_view import grid_start
from calendar_rest.site.views import split_tail

MONTH = dt.date.today().replace(day=1) + dt.timedelta(days=62)
MONTH = MONTH.replace(day=1)


def event_on(api: Api, title: str, day: dt.date, hours: tuple[int, int] = (19, 21), **fields):  # noqa: ANN003, ANN201
    return api.create_event(
        title=title,
        start_date=f"{day} {hours[0]:02}:00:00",
        end_date=f"{day} {hours[1]:02}:00:00",
        **fields,
    )


def cells(body: str) -> dict[str, list[int]]:
    """The month grid: each day's ``YYYY-MM-DD`` and the events listed in it."""
    found = {}
    for cell in re.findall(r"<td .*?</td>", body, re.S):
        day = re.search(r'<time datetime="([\d-]+)"', cell)
        assert day is not None
        found[day[1]] = [int(n) for n in re.findall(r'data-event-id="(\d+)"', cell)]
    return found


def test_grid_starts_on_the_week_day_set() -> None:
    november = dt.date(2026, 11, 1)  # a Sunday
    assert grid_start(november, 1) == dt.date(2026, 10, 26)  # Monday
    assert grid_start(november, 0) == november
    assert grid_start(november, 6) == dt.date(2026, 10, 31)


def test_the_month_grid_places_each_event_on_every_day_it_covers(api: Api) -> None:
    day = MONTH + dt.timedelta(days=9)
    evening = event_on(api, "Evening", day)["id"]
    morning = event_on(api, "Morning", day, (8, 9))["id"]
    festival = api.create_event(
        title="Festival",
        all_day=True,
        start_date=f"{day} 00:00:00",
        end_date=f"{day + dt.timedelta(days=2)} 23:59:59",
    )["id"]
    hidden = hidden_records(api)
    answer = page(api, f"/events/month/{MONTH:%Y-%m}/")
    assert answer.status_code == 200
    body = answer.get_data(as_text=True)
    grid = cells(body)
    assert len(grid) == 42
    assert grid[day.isoformat()] == [festival, morning, evening]  # all-day first
    for offset in (1, 2):
        assert grid[(day + dt.timedelta(days=offset)).isoformat()] == [festival]
    first = grid_start(MONTH, 1)
    expected = api_ids(
        api,
        ends_after=day_start(first),
        starts_before=day_start(first + dt.timedelta(days=42)),
        strict_dates="true",
    )
    assert sorted(shown_ids(answer)) == sorted(expected)
    assert not set(shown_ids(answer)) & set(hidden.values())
    previous = (MONTH - dt.timedelta(days=1)).replace(day=1)
    assert link(answer, "prev") == f"http://localhost/events/month/{previous:%Y-%m}/"
    assert '<th scope="col"' in body and "<caption" in body


def test_a_crowded_day_shows_the_first_and_links_to_the_rest(api: Api, sibling_app) -> None:  # noqa: ANN001
    day = MONTH + dt.timedelta(days=3)
    ids = [event_on(api, f"Talk {n}", day, (8 + n, 9 + n))["id"] for n in range(5)]
    body = page(api, f"/events/month/{MONTH:%Y-%m}/").get_data(as_text=True)
    assert cells(body)[day.isoformat()] == ids[:3]
    assert "+ 2 more" in body and f'href="http://localhost/events/{day}/"' in body
    two = api_for(sibling_app(site_month_events_per_day=2), api)
    assert (
        cells(page(two, f"/events/month/{MONTH:%Y-%m}/").get_data(as_text=True))[day.isoformat()]
        == ids[:2]
    )
    assert shown_ids(page(api, f"/events/{day}/")) == ids


def test_today_is_marked_and_the_week_starts_as_set(api: Api, sibling_app) -> None:  # noqa: ANN001
    body = page(api, "/events/month/").get_data(as_text=True)
    assert body.count('aria-current="date"') == 1
    assert re.search(r'<th scope="col" abbr="Monday">', body)
    sunday = api_for(sibling_app(start_of_week=0), api)
    first_header = re.search(
        r'<th scope="col" abbr="(\w+)">', page(sunday, "/events/month/").get_data(as_text=True)
    )
    assert first_header is not None and first_header[1] == "Sunday"


def test_the_day_view_lists_the_day_in_start_order(api: Api) -> None:
    day = dt.date.today() + dt.timedelta(days=5)
    late = event_on(api, "Late", day, (20, 22))["id"]
    early = event_on(api, "Early", day, (9, 10))["id"]
    spanning = api.create_event(
        title="Spanning",
        start_date=f"{day - dt.timedelta(days=1)} 10:00:00",
        end_date=f"{day} 12:00:00",
    )["id"]
    event_on(api, "Other day", day + dt.timedelta(days=1))
    hidden_records(api)
    answer = page(api, f"/events/{day}/")
    expected = api_ids(
        api,
        ends_after=day_start(day),
        starts_before=day_start(day + dt.timedelta(days=1)),
        strict_dates="true",
    )
    assert sorted(expected) == sorted([spanning, early, late])
    assert shown_ids(answer) == [spanning, early, late]
    body = answer.get_data(as_text=True)
    assert body.count("<h2 ") == 3
    assert link(answer, "next") == f"http://localhost/events/{day + dt.timedelta(days=1)}/"
    for query in (f"date={day}", f"tribe-bar-date={day}"):
        assert shown_ids(page(api, f"/events/today/?{query}")) == [spanning, early, late]
    today = shown_ids(page(api, "/events/today/"))
    assert today == shown_ids(page(api, f"/events/{dt.date.today()}/"))


def test_term_archives_narrow_every_view_as_the_api_filter_does(api: Api) -> None:
    parent = api.post("/categories", "administrator", json={"name": "Music"}).json
    child = api.post(
        "/categories", "administrator", json={"name": "Jazz", "parent": parent["id"]}
    ).json
    day = dt.date.today() + dt.timedelta(days=3)
    in_parent = event_on(api, "Orchestra", day, categories=[parent["id"]])["id"]
    in_child = event_on(api, "Quartet", day, (21, 22), categories=[child["id"]], tags=["live"])[
        "id"
    ]
    event_on(api, "Lecture", day)
    since = day_start(dt.date.today())
    music = api_ids(api, ends_after=since, strict_dates="true", categories="music")
    assert music == [in_parent, in_child]
    assert shown_ids(page(api, "/events/category/music/")) == music
    assert shown_ids(page(api, "/events/category/music/list/")) == music
    assert shown_ids(page(api, "/events/category/music/jazz/")) == [in_child]
    assert sorted(shown_ids(page(api, "/events/category/music/month/"))) == sorted(music)
    assert shown_ids(page(api, f"/events/category/music/{day}/")) == music
    for base in ("/tag/live", "/events/tag/live"):
        assert shown_ids(page(api, f"{base}/")) == [in_child]
        assert shown_ids(page(api, f"{base}/{day}/")) == [in_child]
        assert shown_ids(page(api, f"{base}/month/{day:%Y-%m}/")) == [in_child]
    quartet = page(api, "/events/category/music/jazz/").get_data(as_text=True)
    assert 'href="http://localhost/events/category/music/jazz/month/"' in quartet
    for path in ("/events/category/nothing/", "/tag/nothing/", "/events/category/", "/tag/a/b/"):
        assert page(api, path).status_code == 404, path


def test_search_works_on_every_view(api: Api) -> None:
    day = dt.date.today() + dt.timedelta(days=4)
    jazz = event_on(api, "Jazz night", day)["id"]
    event_on(api, "Poetry", day, (10, 11))
    for path in ("/events/list/", f"/events/month/{day:%Y-%m}/", f"/events/{day}/"):
        answer = page(api, f"{path}?search=jazz")
        assert shown_ids(answer) == [jazz], path
        assert 'value="jazz"' in answer.get_data(as_text=True)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/events/month/2026-13/", 400),
        ("/events/month/?date=2026-02-30", 400),
        ("/events/2026-02-30/", 400),
        ("/events/month/soon/", 404),
        ("/events/tomorrow/", 404),
        ("/events/category/music/list/page/0/", 400),
    ],
)
def test_bad_dates_are_400_and_unknown_paths_404(api: Api, path: str, status: int) -> None:
    assert page(api, path).status_code == status


def test_the_default_view_follows_the_setting(api: Api, sibling_app) -> None:  # noqa: ANN001
    event_on(api, "Today's", dt.date.today(), (23, 23))
    for view, marker in (("month", "month-grid"), ("day", "time-group"), ("list", "month-group")):
        other = api_for(sibling_app(site_default_view=view), api)
        for path in ("/events/", "/"):
            body = page(other, path).get_data(as_text=True)
            assert f'class="{marker}' in body, (view, path)


def test_french_pages_speak_french(api: Api) -> None:
    day = MONTH + dt.timedelta(days=2)
    event_on(api, "Concert", day)
    month = page(api, f"/fr/events/month/{MONTH:%Y-%m}/").get_data(as_text=True)
    assert '<html lang="fr">' in month
    assert "Mois suivant" in month and "lun." in month and "S’abonner" in month
    listing = page(api, "/fr/events/list/").get_data(as_text=True)
    assert "Événements à venir" in listing and "Aller au contenu" in listing
    assert 'hreflang="en" href="http://localhost/events/list/"' in listing
    assert 'href="http://localhost/fr/calendar/events/v1/events.ics?' in listing
    assert "Page introuvable" in page(api, "/fr/events/nowhere/").get_data(as_text=True)


def test_tec_event_display_picks_the_view(api: Api) -> None:
    assert 'class="month-grid' in page(api, "/events/?eventDisplay=month").get_data(as_text=True)
    assert 'class="time-group' in page(api, "/events/?eventDisplay=day").get_data(
        as_text=True
    ) or "There are no events on this day." in page(api, "/events/?eventDisplay=day").get_data(
        as_text=True
    )
    assert "Past events" in page(api, "/events/?eventDisplay=past").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/events/list/", "/events/month/", "/events/today/"])
def test_a_page_runs_as_many_queries_for_many_events_as_for_few(
    api: Api, sql_statements: list[str], path: str
) -> None:
    day = dt.date.today() + dt.timedelta(days=1)
    venue = api.post("/venues", "administrator", json={"venue": "Hall"}).json["id"]

    def statements() -> int:
        sql_statements.clear()
        assert page(api, f"{path}?search=talk").status_code == 200  # uncached: a new query
        return len(sql_statements)

    for n in range(2):
        event_on(api, f"Talk {n}", day, (8 + n, 9 + n), venue=venue, categories=[f"C{n}"])
    few = statements()
    for n in range(2, 9):
        event_on(api, f"Talk {n}", day, (8 + n, 9 + n), venue=venue, categories=[f"C{n}"])
    assert statements() == few


def test_head_and_options_of_a_page(api: Api) -> None:
    get = page(api, "/events/month/")
    head = api.client.head("/events/month/")
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["Content-Length"] == get.headers["Content-Length"]
    assert head.headers["ETag"] == get.headers["ETag"]
    assert api.client.options("/events/month/").status_code == 200
    refused = api.client.post("/events/month/")
    assert refused.status_code == 404 and refused.content_type.startswith("text/html")


@pytest.mark.parametrize(
    ("segments", "terms", "tail"),
    [
        (["music"], ["music"], []),
        (["music", "2020s"], ["music", "2020s"], []),
        (["music", "2020s", "2026-11-30"], ["music", "2020s"], ["2026-11-30"]),
        (["music", "month"], ["music"], ["month"]),
        (["music", "month", "2026-11"], ["music"], ["month", "2026-11"]),
        (["music", "list", "page", "2"], ["music"], ["list", "page", "2"]),
        (["today"], [], ["today"]),
    ],
)
def test_a_term_path_splits_into_the_term_and_the_view(
    segments: list[str], terms: list[str], tail: list[str]
) -> None:
    assert split_tail(segments) == (terms, tail)
