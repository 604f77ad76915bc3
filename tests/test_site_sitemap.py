"""``/sitemap.xml`` and ``/robots.txt`` (site.md §1): every public record and term
page in both languages, hidden records and unlisted events left out, split into a
sitemap index past the per-file limit."""

from __future__ import annotations

import re

import pytest
from conftest import Api
from test_site_list import future, hidden_records

from calendar_rest.site import sitemap

LOC = re.compile(r"<loc>([^<]+)</loc>")


def test_the_sitemap_lists_every_public_page(api: Api) -> None:
    shown = api.create_event(
        title="Shown", venue={"venue": "Hall"}, categories=["Music"], **future(2)
    )
    hidden = hidden_records(api)
    answer = api.client.get("/sitemap.xml")
    assert answer.status_code == 200
    assert answer.content_type == "application/xml; charset=utf-8"
    body = answer.get_data(as_text=True)
    locs = set(LOC.findall(body))
    assert shown["url"] in locs
    assert shown["url"].replace("localhost/", "localhost/fr/") in locs
    assert shown["venue"]["url"] in locs
    assert "http://localhost/events/category/music/" in locs
    assert "<lastmod>" in body
    for event_id in hidden.values():
        assert not any(loc.endswith(f"p={event_id}") for loc in locs)
    for title in ("hidden-draft", "hidden-unlisted", "hidden-private"):
        assert not any(f"/event/{title}" in loc for loc in locs)
    again = api.client.get("/sitemap.xml", headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304


def test_past_the_limit_the_sitemap_is_an_index_of_parts(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        api.create_event(title=f"Event {n}", **future(n + 1))
    monkeypatch.setattr(sitemap, "MOST_URLS", 4)
    index = api.client.get("/sitemap.xml").get_data(as_text=True)
    assert "<sitemapindex" in index
    parts = LOC.findall(index)
    assert parts == [f"http://localhost/sitemap-{n}.xml" for n in (1, 2)]
    urls = []
    for part in parts:
        answer = api.client.get(part.removeprefix("http://localhost"))
        assert answer.status_code == 200
        urls += LOC.findall(answer.get_data(as_text=True))
    assert len(urls) == 6 and len(set(urls)) == 6
    assert api.client.get("/sitemap-3.xml").status_code == 404


def test_robots_allows_the_pages_and_names_the_sitemap(api: Api) -> None:
    answer = api.client.get("/robots.txt")
    assert answer.status_code == 200
    assert answer.content_type == "text/plain; charset=utf-8"
    text = answer.get_data(as_text=True)
    assert "Allow: /" in text and "Sitemap: http://localhost/sitemap.xml" in text
