"""The records' pages (site.md §1, §2 "Event", "Venue / organizer", §3, §6): every
permalink the API gives lands on its page, the page shows what the API answers,
hidden records are 404s, the password form counts wrong passwords, and every event
carries its JSON-LD; TEC's iCalendar aliases answer the API's feeds byte for byte."""

from __future__ import annotations

import json
import re
import typing as t

import pytest
from conftest import NS, Api, api_for
from site_helpers import page, shown_ids
from test_site_list import future, hidden_records

from calendar_rest.site.rule_words import rule_in_words
from calendar_rest.site.structured import script_json

JSON_LD = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def path_of(url: str) -> str:
    return url.removeprefix("http://localhost")


def json_lds(body: str) -> list[dict[str, t.Any]]:
    return [json.loads(found) for found in JSON_LD.findall(body)]


def full_event(api: Api, **fields: t.Any) -> dict[str, t.Any]:
    values = dict(
        title="Jazz <night>",
        description="<p>Bring <strong>friends</strong></p>",
        cost="15",
        website="https://jazz.example.com",
        venue={
            "venue": "Harbor Hall",
            "address": "12 Wharf Street",
            "city": "Boston",
            "zip": "02110",
            "country": "United States",
            "phone": "+1 617 555 0142",
            "geo_lat": 42.36,
            "geo_lng": -71.05,
        },
        organizer=[{"organizer": "Ada", "email": "ada@example.com", "phone": "555"}],
        categories=["Music"],
        tags=["jazz"],
        **future(3),
    )
    return api.create_event(**{**values, **fields})


def test_the_event_page_shows_what_the_api_answers(api: Api) -> None:
    created = full_event(api)
    answer = page(api, path_of(created["url"]))
    assert answer.status_code == 200
    assert answer.content_type == "text/html; charset=utf-8"
    body = answer.get_data(as_text=True)
    assert f'<article class="event-page" data-event-id="{created["id"]}">' in body
    assert shown_ids(answer) == [created["id"]]
    assert "<h1>Jazz &lt;night&gt;</h1>" in body
    assert "<p>Bring <strong>friends</strong></p>" in body  # the sanitised description
    assert "$15" in body and "https://jazz.example.com" in body
    assert "12 Wharf Street" in body and "openstreetmap.org/?mlat=42.36" in body
    assert "mailto:ada@example.com" in body
    assert path_of(created["venue"]["url"]) in body
    assert "/events/category/music/" in body and "/tag/jazz/" in body
    assert "calendar.google.com/calendar/render?action=TEMPLATE" in body
    assert "outlook.live.com/calendar/0/deeplink/compose" in body
    assert f"{NS}/events/{created['id']}.ics" in body
    assert "<iframe" not in body and "<script src" not in body
    (ld,) = json_lds(body)
    assert ld["@type"] == "Event" and ld["name"] == "Jazz <night>"
    assert ld["eventStatus"] == "https://schema.org/EventScheduled"
    assert ld["eventAttendanceMode"] == "https://schema.org/OfflineEventAttendanceMode"
    assert ld["location"]["@type"] == "Place"
    assert ld["location"]["address"]["@type"] == "PostalAddress"
    assert ld["location"]["url"] == created["venue"]["url"]
    assert ld["organizer"]["name"] == "Ada"
    assert ld["offers"]["price"] == "15" and ld["offers"]["priceCurrency"] == "USD"
    assert ld["offers"]["availability"] == "https://schema.org/InStock"  # not TEC's bare word
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", ld["startDate"])
    assert ld["url"] == created["url"]
    assert "</" not in JSON_LD.findall(body)[0]


def test_the_meta_tags_of_an_event_page(api: Api) -> None:
    created = full_event(api, excerpt="A night of jazz.")
    body = page(api, path_of(created["url"])).get_data(as_text=True)
    url = created["url"]
    assert "<title>Jazz &lt;night&gt; · " in body
    assert '<meta name="description" content="A night of jazz.">' in body
    assert f'<link rel="canonical" href="{url}">' in body
    french = url.replace("http://localhost/", "http://localhost/fr/")
    assert f'<link rel="alternate" hreflang="fr" href="{french}">' in body
    assert f'<link rel="alternate" hreflang="x-default" href="{url}">' in body
    for name, value in (
        ("og:title", "Jazz &lt;night&gt;"),
        ("og:type", "article"),
        ("og:url", url),
    ):
        assert f'<meta property="{name}" content="{value}">' in body
    assert '<meta property="og:description" content="A night of jazz.">' in body
    french_page = page(api, path_of(french)).get_data(as_text=True)
    assert '<html lang="fr">' in french_page and "Ajouter au calendrier" in french_page


def test_every_permalink_of_the_api_lands_on_its_page(api: Api) -> None:
    created = full_event(api)
    full_event(api, title="Second", venue={"venue": "Lincoln Club"}, categories=["Music"])
    full_event(
        api,
        title="Soirée",
        i18n_language="fr",
        venue={"venue": "Salle", "i18n_language": "fr"},
        organizer=[{"organizer": "Léa", "i18n_language": "fr"}],
        categories=[],
        tags=[],
    )
    for language, most in (("", 7), ("/fr", 3)):
        bodies = [
            api.client.get(f"{language}/{NS.strip('/')}/{collection}").json
            for collection in ("events", "venues", "organizers", "categories", "tags")
        ]
        urls = {event["url"] for event in bodies[0]["events"]}
        urls |= {item["url"] for item in bodies[1]["venues"] + bodies[2]["organizers"]}
        urls |= {term["url"] for term in bodies[3]["categories"] + bodies[4]["tags"]}
        assert len(urls) >= most, language
        for url in urls:
            answer = page(api, path_of(url))
            assert answer.status_code == 200, url
    venue_page = page(api, path_of(created["venue"]["url"]))
    assert created["id"] in shown_ids(venue_page)
    assert len(json_lds(venue_page.get_data(as_text=True))) == len(shown_ids(venue_page))
    organizer = created["organizer"][0]
    assert created["id"] in shown_ids(page(api, path_of(organizer["url"])))


def test_hidden_records_are_404_and_unlisted_events_keep_their_page(api: Api) -> None:
    hidden = hidden_records(api)
    for kind, event_id in hidden.items():
        read = api.get(f"/events/{event_id}", "administrator").json
        paths = [f"/?post_type=calendar_events&p={event_id}"]
        if "url" in read:
            paths += [path_of(read["url"]), f"/event/{read['slug']}/"]
        for path in paths:
            answer = page(api, path)
            if kind == "unlisted":
                assert answer.status_code in (200, 301), path
                continue
            assert answer.status_code == 404, (kind, path)
            assert "text/html" in answer.content_type
    venue = api.post("/venues", "administrator", json={"venue": "Secret", "status": "draft"}).json
    organizer = api.post(
        "/organizers", "administrator", json={"organizer": "Hidden", "status": "private"}
    ).json
    for record in (venue, organizer):
        assert page(api, path_of(record["url"])).status_code == 404
    for slug in ("no-such-event",):
        assert page(api, f"/event/{slug}/").status_code == 404
        assert page(api, f"/venue/{slug}/").status_code == 404


def test_a_plain_permalink_is_404_unless_public(api: Api) -> None:
    draft = api.create_event(title="Draft", status="draft")
    assert draft["url"].startswith("http://localhost/?post_type=calendar_events&p=")
    assert page(api, path_of(draft["url"])).status_code == 404
    public = api.create_event(title="Public")
    moved = page(api, f"/?post_type=calendar_events&p={public['id']}")
    assert moved.status_code == 301 and moved.headers["Location"] == public["url"]
    assert api.client.get("/").status_code == 200  # the JSON index is unchanged


def test_the_password_form(api: Api, app: t.Any, sibling_app: t.Any) -> None:
    secret = full_event(api, password="opensesame", title="Secret")
    url = path_of(secret["url"])
    locked = page(api, url)
    assert locked.status_code == 200
    body = locked.get_data(as_text=True)
    assert "Secret" in body and 'name="post_password"' in body
    assert "Bring" not in body and "ld+json" not in body
    right = api.client.post(
        url, data={"post_password": "opensesame"}, headers={"Accept": "text/html"}
    )
    assert right.status_code == 200 and right.headers["Cache-Control"] == "no-store"
    assert "Bring <strong>friends</strong>" in right.get_data(as_text=True)
    wrong = api.client.post(url, data={"post_password": "nope"})
    assert wrong.status_code == 200 and wrong.headers["Cache-Control"] == "no-store"
    text = wrong.get_data(as_text=True)
    assert "The password is not right." in text and "Bring" not in text
    throttled = api_for(sibling_app(login_max_failures_per_address=3), api)
    for _ in range(2):  # the wrong password above counted too
        assert throttled.client.post(url, data={"post_password": "x"}).status_code == 200
    refused = throttled.client.post(url, data={"post_password": "opensesame"})
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert "Bring" not in refused.get_data(as_text=True)
    assert api.client.post("/venue/harbor-hall/", data={}).status_code == 404


def test_a_series_says_its_rule_and_next_occurrences(api: Api) -> None:
    master = api.create_event(title="Weekly", recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"], **future(2))
    occurrences = api.get(f"/events/{master['id']}/occurrences").json["events"]
    assert len(occurrences) == 4
    answer = page(api, path_of(occurrences[1]["url"]))
    body = answer.get_data(as_text=True)
    assert "Every week, 4 times" in body
    for other in occurrences[2:]:
        assert other["url"] in body
    assert rule_in_words(["RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"], "fr", lambda s: s)


def test_json_ld_escapes_the_end_of_a_script() -> None:
    assert "</" not in script_json({"name": "</script><b>&"})
    assert json.loads(script_json({"name": "</script>"})) == {"name": "</script>"}


def test_every_listed_event_carries_its_json_ld(api: Api) -> None:
    ids = [api.create_event(title=f"Listed {n}", **future(n + 1))["id"] for n in range(3)]
    hidden = hidden_records(api)
    for path in ("/events/list/", "/events/month/", f"/events/{future(1)['start_date'][:10]}/"):
        body = page(api, path).get_data(as_text=True)
        urls = {ld["url"] for ld in json_lds(body)}
        shown = [i for i in ids if f'data-event-id="{i}"' in body]
        assert len(urls) == len(json_lds(body)) >= len(shown) >= 1, path
        assert not any(str(h) in u.rsplit("/", 2)[-2] for h in hidden.values() for u in urls)
        for hidden_title in ("Hidden draft", "Hidden unlisted"):
            assert hidden_title not in body


@pytest.mark.parametrize("query", ["", "categories=music"])
def test_the_ical_aliases_are_the_api_feeds(api: Api, query: str) -> None:
    created = full_event(api)
    alias = api.client.get(f"/events/?ical=1&{query}".rstrip("&"))
    feed = api.client.get(f"{NS}/events.ics?{query}".rstrip("?"))
    assert alias.status_code == 200 and alias.content_type.startswith("text/calendar")
    assert alias.get_data() == feed.get_data()
    single = api.client.get(path_of(created["url"]) + "ical/")
    assert single.get_data() == api.client.get(f"{NS}/events/{created['id']}.ics").get_data()
    assert api.client.get("/event/nothing-here/ical/").status_code == 404


def test_protected_content_and_hidden_linked_records_stay_off_every_page(api: Api) -> None:
    """A published password-protected event is listed as the API lists it (title and
    dates) but its content, and its JSON-LD, appear on no page; a draft venue and a
    private organizer of a public event appear nowhere either (site.md §8)."""
    secret = api.create_event(
        title="Guarded gala",
        description="<p>Codeword zebrafinch</p>",
        excerpt="Codeword zebrafinch",
        password="opensesame",
        **future(2),
    )
    venue = api.post("/venues", "administrator", json={"venue": "Cellar Vault", "status": "draft"})
    organizer = api.post(
        "/organizers", "administrator", json={"organizer": "Quiet Host", "status": "private"}
    )
    linked = api.create_event(
        title="Open night",
        venue=venue.json["id"],
        organizer=[organizer.json["id"]],
        **future(3),
    )
    day = future(2)["start_date"][:10]
    paths = [
        "/events/list/",
        "/events/month/",
        f"/events/month/{day[:7]}/",
        f"/events/{day}/",
        f"/event/{secret['slug']}/",
        f"/event/{linked['slug']}/",
        "/sitemap.xml",
        "/fr/events/list/",
    ]
    for path in paths:
        answer = page(api, path)
        assert answer.status_code == 200, path
        body = answer.get_data(as_text=True)
        for secret_text in ("zebrafinch", "Cellar Vault", "Quiet Host"):
            assert secret_text not in body, (path, secret_text)
        for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', body):
            assert json.loads(block)["name"] != "Guarded gala", path
    listed = page(api, "/events/list/").get_data(as_text=True)
    assert "Guarded gala" in listed and "Open night" in listed  # listed as GET /events lists
    for word in ("codeword", "zebrafinch"):  # its content is not searched either
        found = page(api, f"/events/list/?search={word}")
        assert found.status_code == 200 and secret["id"] not in shown_ids(found), word
