"""The public pages' framework (site.md §1, §5, §6, §7): the same pipeline as the API.

Routes at the mount root and under ``/fr``, ``/`` negotiated between the default view
and the JSON index, HTML errors with the API's statuses, the response cache and its
validators, credentials ignored, the headers of §6, the hashed stylesheet, template
overrides and ``site_pages=false``.
"""

from __future__ import annotations

import re

import pytest
from conftest import NS, Api, api_for
from site_helpers import BROWSER, CSP, page, shown_ids
from werkzeug.test import Client

from calendar_rest.settings import Settings


def test_the_root_shows_the_default_view_to_browsers_and_json_to_programs(api: Api) -> None:
    event = api.create_event(title="Root concert")
    browser = page(api, "/")
    assert browser.status_code == 200
    assert browser.content_type == "text/html; charset=utf-8"
    assert shown_ids(browser) == [event["id"]]
    assert browser.headers["Vary"].split(", ")[0] == "Accept"
    assert 'rel="https://api.w.org/"' in browser.headers["Link"]
    for accept in (None, "*/*", "application/json", "application/json, text/html;q=0.9"):
        headers = {"Accept": accept} if accept else {}
        program = api.client.get("/", headers=headers)
        assert program.content_type.startswith("application/json")
        assert "namespaces" in program.json
        assert "Accept" in program.headers["Vary"]
    head = api.client.head("/", headers=BROWSER)
    assert head.status_code == 200 and head.get_data() == b""
    assert head.content_type == browser.content_type
    assert head.headers["Content-Length"] == browser.headers["Content-Length"]
    french = page(api, "/fr/")
    assert '<html lang="fr">' in french.get_data(as_text=True)


def test_the_response_cache_keeps_the_root_apart_by_media_type(api: Api) -> None:
    api.create_event()
    assert api.client.get("/").content_type.startswith("application/json")
    assert page(api, "/").content_type.startswith("text/html")
    again = api.client.get("/")
    assert again.content_type.startswith("application/json")
    assert again.headers.get("X-Calendar-Cache") == "hit"
    assert page(api, "/").content_type.startswith("text/html")


def test_pages_are_cached_and_revalidated_like_the_api(api: Api) -> None:
    api.create_event()
    first = page(api, "/events/list/")
    assert first.headers["X-Calendar-Cache"] == "miss"
    second = page(api, "/events/list/")
    assert second.headers["X-Calendar-Cache"] == "hit"
    assert second.get_data() == first.get_data()
    tag = first.headers["ETag"]
    revalidated = page(api, "/events/list/", headers={"If-None-Match": tag})
    assert revalidated.status_code == 304 and revalidated.headers["ETag"] == tag
    api.create_event(title="A write invalidates")
    assert page(api, "/events/list/", headers={"If-None-Match": tag}).status_code == 200


def test_credentials_change_nothing_on_a_page(api: Api) -> None:
    api.create_event(title="Public", status="publish")
    api.create_event(title="Draft", status="draft")
    anonymous = page(api, "/events/list/")
    for login in ("administrator", "subscriber"):
        logged_in = page(api, "/events/list/", headers=api.headers(login))
        assert logged_in.get_data() == anonymous.get_data()
        assert "no-store" not in logged_in.headers.get("Cache-Control", "")
    wrong = page(api, "/events/list/", headers={"Authorization": "Basic bm9ib2R5Om5vcGU="})
    assert wrong.status_code == 200 and wrong.get_data() == anonymous.get_data()


def test_pages_send_the_security_headers(api: Api) -> None:
    for path in ("/events/", "/events/list/", "/events/nowhere/", "/events/list/?date=x"):
        answer = page(api, path)
        assert answer.headers["Content-Security-Policy"] == CSP, path
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
        assert "X-Robots-Tag" not in answer.headers
        body = answer.get_data(as_text=True)
        assert "<script" not in body and "style=" not in body and "<style" not in body


@pytest.mark.parametrize(
    ("path", "status", "named"),
    [
        ("/events/list/?date=2026-13-40", 400, "date"),
        ("/events/list/?tribe-bar-date=tomorrow", 400, "tribe-bar-date"),
        ("/events/list/?past=maybe", 400, "past"),
        ("/events/list/page/0/", 400, "page"),
        ("/events/list/page/9/", 404, None),
        ("/events/nowhere/", 404, None),
        ("/events/list/extra/", 404, None),
        ("/event/no-such-event/", 404, None),
        ("/venue/nowhere/", 404, None),
        ("/organizer/nobody/", 404, None),
        ("/tag/nothing/at/all/", 404, None),
        ("/event/", 404, None),
        ("/venue", 404, None),
        ("/organizer/", 404, None),
        ("/tag/", 404, None),
        ("/fr/events/nowhere/", 404, None),
    ],
)
def test_page_errors_are_html_pages_with_the_api_status(
    api: Api, path: str, status: int, named: str | None
) -> None:
    answer = page(api, path, headers={"Authorization": "Basic bm9ib2R5Om5vcGU="})
    assert answer.status_code == status
    assert answer.content_type == "text/html; charset=utf-8"
    body = answer.get_data(as_text=True)
    assert body.startswith("<!DOCTYPE html>")
    if named:
        assert f"<code>{named}</code>" in body


def test_paths_outside_the_site_keep_the_api_404(api: Api) -> None:
    answer = page(api, "/nowhere/")
    assert answer.status_code == 404 and answer.json["code"] == "rest_no_route"


def test_every_link_carries_the_mount_prefix_and_language_root(api: Api) -> None:
    api.create_event(title="Mounted")
    for base, root in (("http://localhost/cal/", "/cal"), ("http://localhost/cal/", "/cal/fr")):
        path = "/fr/events/list/" if root.endswith("/fr") else "/events/list/"
        answer = page(api, path, base_url=base)
        assert answer.status_code == 200
        body = answer.get_data(as_text=True)
        for url in re.findall(r'(?:href|action)="(http://localhost[^"]*)"', body):
            assert url.startswith("http://localhost/cal/"), url
        assert f'href="http://localhost{root}/events/month/"' in body
        assert 'href="http://localhost/cal/static/site.' in body


def test_the_stylesheet_is_hashed_small_and_immutable(api: Api) -> None:
    body = page(api, "/events/list/").get_data(as_text=True)
    url = re.search(r'<link rel="stylesheet" href="http://localhost(/static/site\.\w+\.css)"', body)
    assert url is not None
    css = api.client.get(url[1])
    assert css.status_code == 200 and css.content_type == "text/css; charset=utf-8"
    assert css.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert len(css.get_data()) < 20_000 and "--cal-color-text" in css.get_data(as_text=True)
    assert "@font-face" not in css.get_data(as_text=True)
    assert api.client.get("/static/site.000000000000.css").status_code == 404
    icon = re.search(r'<link rel="icon" href="http://localhost(/static/icon\.\w+\.svg)"', body)
    assert icon is not None
    answer = api.client.get(icon[1])
    assert answer.status_code == 200 and answer.content_type == "image/svg+xml"
    assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_pages_stay_out_of_the_index_and_the_documentation(api: Api) -> None:
    index = api.client.get("/").json
    assert not any(route.startswith("/events") for route in index["routes"])
    document = api.client.get(f"{NS}/doc").get_data(as_text=True)
    assert "/events/list" not in document and "/static/" not in document


def test_site_pages_off_leaves_the_api_alone(api: Api, sibling_app) -> None:  # noqa: ANN001
    other = api_for(sibling_app(site_pages=False), api)
    answer = page(other, "/events/list/")
    assert answer.status_code == 404 and answer.json["code"] == "rest_no_route"
    root = page(other, "/")
    assert root.content_type.startswith("application/json") and "namespaces" in root.json
    assert "Accept" not in [name.strip() for name in root.headers["Vary"].split(",")]


def test_a_template_directory_overrides_templates_one_by_one(
    api: Api,
    sibling_app,
    tmp_path,  # noqa: ANN001
) -> None:
    (tmp_path / "list.html").write_text(
        '{% extends "base.html" %}{% block main %}<p>Restyled {{ page.title }}</p>{% endblock %}'
    )
    other = api_for(sibling_app(site_templates_dir=str(tmp_path)), api)
    body = page(other, "/events/list/").get_data(as_text=True)
    assert "<p>Restyled Upcoming events</p>" in body
    assert 'class="skip-link"' in body  # base.html is still the package's
    assert "<p>There is no page" in page(other, "/events/nowhere/").get_data(as_text=True)


@pytest.mark.parametrize(
    "settings",
    [
        {"site_default_view": "week"},
        {"start_of_week": 7},
        {"start_of_week": -1},
        {"site_month_events_per_day": 0},
        {"site_templates_dir": "/no/such/directory"},
    ],
)
def test_site_settings_are_validated_at_start_up(settings: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=next(iter(settings))):
        Settings.build("sqlite://", environ={}, **settings)


def test_site_settings_are_read_from_the_environment() -> None:
    environ = {
        "CALENDAR_REST_SITE_PAGES": "false",
        "CALENDAR_REST_SITE_DEFAULT_VIEW": "month",
        "CALENDAR_REST_START_OF_WEEK": "0",
    }
    settings = Settings.build("sqlite://", environ=environ)
    assert (settings.site_pages, settings.site_default_view, settings.start_of_week) == (
        False,
        "month",
        0,
    )


def test_a_plain_client_on_a_page_gets_the_page(api: Api) -> None:
    answer = Client(api.app).get("/events/list/")
    assert answer.status_code == 200 and answer.content_type.startswith("text/html")


def test_a_broken_template_override_still_answers(api: Api, sibling_app, tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "list.html").write_text(
        "{% extends 'base.html' %}{% block main %}{{ nope.x }}{% endblock %}"
    )
    (tmp_path / "error.html").write_text("{{ nothing.here }}")
    other = api_for(sibling_app(site_templates_dir=str(tmp_path)), api)
    answer = page(other, "/events/list/")
    assert answer.status_code == 500 and answer.content_type.startswith("text/html")
    assert page(other, "/events/nowhere/").status_code == 404
