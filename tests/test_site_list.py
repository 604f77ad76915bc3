"""The list view (site.md §1, §2 "List", §8 visibility): the events of GET /events.

Every page shows exactly the events an anonymous ``GET /events`` returns for the same
filter (upcoming: ``ends_after`` the day's start; past: ``ends_before`` it, newest
first), ten a page with rel=prev/next links, under month headings; records hidden from
anonymous readers and events hidden from listings never appear.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api
from site_helpers import api_ids, day_start, link, page, shown_ids


def future(days: int, hour: int = 19) -> dict[str, str]:
    start = dt.datetime.now().replace(hour=hour, minute=0, second=0, microsecond=0)
    start += dt.timedelta(days=days)
    return {
        "start_date": start.strftime("%Y-%m-%d %H:%M:%S"),
        "end_date": (start + dt.timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S"),
    }


def all_pages(api: Api, path: str, **kwargs: t.Any) -> list[int]:
    """The events of every page of a list, following its rel=next links."""
    ids: list[int] = []
    url: str | None = path
    while url:
        answer = page(api, url, **kwargs)
        assert answer.status_code == 200, url
        ids += shown_ids(answer)
        url = link(answer, "next")
    return ids


def hidden_records(api: Api) -> dict[str, int]:
    """One event of each kind an anonymous reader may not list, all upcoming."""
    hidden = {
        status: api.create_event(title=f"Hidden {status}", status=status, **future(3))["id"]
        for status in ("draft", "private", "pending")
    }
    scheduled = api.create_event(title="Hidden future", date="2031-01-01 00:00:00", **future(4))
    assert scheduled["status"] == "future"
    hidden["future"] = scheduled["id"]
    trashed = api.create_event(title="Hidden trash", **future(5))["id"]
    assert api.delete(f"/events/{trashed}", "administrator").status_code == 200
    hidden["trash"] = trashed
    hidden["unlisted"] = api.create_event(
        title="Hidden unlisted", hide_from_listings=True, **future(6)
    )["id"]
    return hidden


def test_the_list_shows_what_the_api_lists_and_nothing_hidden(api: Api) -> None:
    shown = [api.create_event(title=f"Shown {n}", **future(n + 1))["id"] for n in range(12)]
    hidden = hidden_records(api)
    today = dt.date.today()
    expected = api_ids(api, ends_after=day_start(today), strict_dates="true")
    assert expected == shown
    assert all_pages(api, "/events/list/") == expected
    first = page(api, "/events/list/")
    assert len(shown_ids(first)) == 10
    assert link(first, "next") == "http://localhost/events/list/page/2/"
    second = page(api, "/events/list/page/2/")
    assert link(second, "prev") == "http://localhost/events/list/"
    assert '<link rel="prev" href="http://localhost/events/list/">' in second.get_data(as_text=True)
    assert page(api, "/events/list/page/3/").status_code == 404
    for path in ("/events/", "/events/list/?search=Hidden", "/fr/events/list/"):
        assert not set(shown_ids(page(api, path))) & set(hidden.values()), path
    body = page(api, "/events/list/?search=Hidden").get_data(as_text=True)
    assert "There are no upcoming events." in body and "Hidden draft" not in body


def test_search_narrows_the_list_as_the_api_search_does(api: Api) -> None:
    api.create_event(title="Jazz night", **future(2))
    api.create_event(title="Poetry reading", **future(3))
    api.create_event(title="Late jazz", **future(4))
    today = dt.date.today()
    expected = api_ids(api, ends_after=day_start(today), strict_dates="true", search="jazz")
    assert len(expected) == 2
    for query in ("search=jazz", "tribe-bar-search=jazz"):
        answer = page(api, f"/events/list/?{query}")
        assert shown_ids(answer) == expected, query
    body = page(api, "/events/list/?search=jazz").get_data(as_text=True)
    assert 'value="jazz"' in body  # the search form shows the words


def test_the_date_starts_the_list_and_past_lists_newest_first(api: Api) -> None:
    ids = [api.create_event(title=f"Day {n}", **future(n * 10 + 1))["id"] for n in range(4)]
    since = dt.date.today() + dt.timedelta(days=15)
    expected = api_ids(api, ends_after=day_start(since), strict_dates="true")
    assert expected == ids[2:]
    for name in ("date", "tribe-bar-date"):
        assert shown_ids(page(api, f"/events/list/?{name}={since}")) == expected
    before = api_ids(api, ends_before=day_start(since), strict_dates="true")
    assert before == ids[:2]
    for query in (f"past=1&date={since}", f"eventDisplay=past&date={since}"):
        assert shown_ids(page(api, f"/events/list/?{query}")) == before[::-1], query
    body = page(api, "/events/list/?past=1").get_data(as_text=True)
    assert body.count('<input type="hidden" name="past" value="1">') == 2  # both forms


def test_past_pages_run_from_the_newest(api: Api) -> None:
    ids = [api.create_event(title=f"Old {n}", **future(n + 1))["id"] for n in range(13)]
    since = dt.date.today() + dt.timedelta(days=30)
    pages = all_pages(api, f"/events/list/?past=1&date={since}")
    assert pages == ids[::-1]
    second = page(api, f"/events/list/page/2/?past=1&date={since}")
    assert shown_ids(second) == ids[:3][::-1]
    assert link(second, "prev") == f"http://localhost/events/list/?date={since}&past=1"


def test_the_list_groups_under_month_headings_and_shows_each_field(api: Api) -> None:
    venue = api.post("/venues", "administrator", json={"venue": "Blue Hall", "city": "Lyon"}).json
    start = dt.date.today().replace(day=1) + dt.timedelta(days=40)
    api.create_event(
        title="Featured gig",
        start_date=f"{start} 20:00:00",
        end_date=f"{start} 22:00:00",
        venue=venue["id"],
        cost="15",
        featured=True,
        excerpt="<p>A <em>fine</em> evening</p>",
        categories=["Music"],
    )
    api.create_event(
        title="Festival",
        all_day=True,
        start_date=f"{start + dt.timedelta(days=35)} 00:00:00",
        end_date=f"{start + dt.timedelta(days=37)} 23:59:59",
    )
    body = page(api, "/events/list/").get_data(as_text=True)
    assert body.count("<h2 ") == 2
    for text in ("Blue Hall, Lyon", "$15", "<em>fine</em>", "event--featured", ">Music</a>"):
        assert text in body, text
    assert "All day" in body and " – " in body
    assert 'href="http://localhost/event/featured-gig/"' in body


def test_an_empty_list_says_so_and_links_to_past_events(api: Api) -> None:
    body = page(api, "/events/list/").get_data(as_text=True)
    assert "There are no upcoming events." in body
    assert 'href="http://localhost/events/list/?past=1"' in body


@pytest.mark.parametrize("view", ["list", "month", "day"])
def test_a_hidden_venue_is_never_shown(api: Api, view: str) -> None:
    venue = api.post(
        "/venues", "administrator", json={"venue": "Secret Cellar", "status": "draft"}
    ).json
    api.create_event(title="With hidden venue", venue=venue["id"], **future(1))
    path = {"list": "/events/list/", "month": "/events/month/", "day": "/events/today/"}[view]
    answer = page(api, path)
    if answer.status_code == 200:
        assert "Secret Cellar" not in answer.get_data(as_text=True)


def test_a_protected_event_is_listed_without_its_content(api: Api) -> None:
    protected = api.create_event(
        title="Members evening",
        password="open sesame",
        excerpt="<p>The code is 1234</p>",
        description="<p>Room behind the bar</p>",
        **future(2),
    )["id"]
    for path in ("/events/list/", "/events/month/", f"/events/{future(2)['start_date'][:10]}/"):
        answer = page(api, path)
        body = answer.get_data(as_text=True)
        assert "Members evening" in body and "1234" not in body and "behind the bar" not in body
        assert protected in shown_ids(answer) or path == "/events/month/"
