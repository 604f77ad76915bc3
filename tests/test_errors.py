"""Error paths of the whole application, and where it is mounted (language root,
SCRIPT_NAME, configured site URL)."""

from __future__ import annotations

import logging
import typing as t

import pytest
from conftest import NS, Api, api_for, assert_wp_error
from werkzeug.exceptions import NotFound
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.resources.events import Events

START = "2026-12-05 19:00:00"
END = "2026-12-05 21:00:00"
BODY = {"title": "Jazz Night", "start_date": START, "end_date": END}
HUGE_ID = "99999999999999999999"


def new_event(api: Api) -> dict[str, t.Any]:
    response = api.post("/events", "administrator", json=BODY)
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


# -- routing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"{NS}/nope"),
        ("GET", "/nope"),
        ("GET", "/calendar"),
        ("GET", f"{NS}/events/abc"),
        ("GET", f"{NS}/events/-1"),
        ("GET", f"{NS}/events/1.5"),
        ("GET", f"{NS}/events/by-slug/"),
        ("GET", f"{NS}/events/1/extra"),
        ("PUT", f"{NS}/events"),
        ("PATCH", f"{NS}/events"),
        ("DELETE", f"{NS}/events"),
        ("DELETE", f"{NS}/events/abc"),
        ("TRACE", f"{NS}/events/1"),
        ("OPTIONS", f"{NS}/nowhere"),
    ],
)
def test_an_unmatched_route_or_method_is_rest_no_route(api: Api, method: str, path: str) -> None:
    response = api.client.open(path, method=method, headers=api.headers("administrator"))
    body = assert_wp_error(response, 404, "rest_no_route")
    assert body["message"] == "No route was found matching the URL and request method."


@pytest.mark.parametrize("suffix", ["/events/", "/events/{id}/", "/events/by-slug/jazz-night/"])
def test_a_trailing_slash_is_accepted(api: Api, suffix: str) -> None:
    event = new_event(api)
    response = api.get(suffix.format(id=event["id"]))
    assert response.status_code == 200, response.get_data(as_text=True)


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_a_huge_id_is_a_missing_event_never_a_500(api: Api, method: str) -> None:
    response = api.request(method, f"/events/{HUGE_ID}", "administrator", json={"title": "x"})
    body = assert_wp_error(response, 404, "rest-event-not-found")
    assert HUGE_ID in body["message"]


# -- request bodies --------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["{bad", '{"title": ', "[1, 2]", '"text"', "42", "null"])
@pytest.mark.parametrize("path", ["/events", "/events/1"])
def test_a_body_that_is_not_a_json_object_is_rest_invalid_json(
    api: Api, raw: str, path: str
) -> None:
    response = api.post(path, "administrator", data=raw, content_type="application/json")
    body = assert_wp_error(response, 400, "rest_invalid_json")
    assert body["message"] == "Invalid JSON body passed."


def test_invalid_json_is_reported_before_permissions_but_not_read_for_anonymous_callers(
    api: Api,
) -> None:
    kwargs: dict[str, t.Any] = {
        "data": "{bad",
        "content_type": "application/json; charset=utf-8",
    }
    assert_wp_error(api.post("/events", "subscriber", **kwargs), 400, "rest_invalid_json")
    # an anonymous write is refused before its body is read (security.md C1)
    assert_wp_error(api.post("/events", **kwargs), 401, "rest_forbidden")


def test_an_empty_json_body_is_an_empty_parameter_set(api: Api) -> None:
    response = api.post("/events", "administrator", data="", content_type="application/json")
    assert_wp_error(response, 400, "rest_missing_callback_param")


@pytest.mark.parametrize("encoding", ["json", "form"])
def test_a_body_over_the_size_limit_is_a_413(
    api: Api, sibling_app: t.Callable[..., Application], encoding: str
) -> None:
    client = Client(sibling_app(max_body_bytes=1000))
    big = {**BODY, "description": "x" * 2000}
    kwargs: dict[str, t.Any] = {"json": big} if encoding == "json" else {"data": big}
    response = client.post(f"{NS}/events", headers=api.headers("administrator"), **kwargs)
    assert_wp_error(response, 413, "rest_payload_too_large")
    small = client.post(f"{NS}/events", headers=api.headers("administrator"), json=BODY)
    assert small.status_code == 201, small.get_data(as_text=True)


# -- unexpected failures ---------------------------------------------------------------


def test_an_unexpected_exception_is_a_logged_json_500_without_a_traceback(
    api: Api,
    sibling_app: t.Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode(self: Events, call: t.Any) -> t.NoReturn:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(Events, "on_get_collection", explode)
    exploding = api_for(sibling_app(), api)  # responders are bound at start-up
    with caplog.at_level(logging.ERROR, logger="calendar_rest"):
        response = exploding.get("/events")
    body = assert_wp_error(response, 500, "rest_internal_error")
    assert body == {
        "code": "rest_internal_error",
        "message": body["message"],
        "data": {"status": 500},
    }
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and "secret internal detail" not in text
    assert "RuntimeError" not in text
    records = [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]
    assert records, caplog.text
    assert isinstance(records[-1].exc_info[1], RuntimeError)  # type: ignore[index]
    assert "/events" in records[-1].getMessage()


def test_the_app_keeps_serving_after_an_unexpected_exception(
    api: Api, sibling_app: t.Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = Events.on_get_collection
    calls: list[int] = []

    def explode_once(self: Events, call: t.Any) -> t.Any:
        calls.append(1)
        return 1 / 0 if len(calls) == 1 else original(self, call)

    monkeypatch.setattr(Events, "on_get_collection", explode_once)
    flaky = api_for(sibling_app(), api)  # responders are bound at start-up
    assert_wp_error(flaky.get("/events"), 500, "rest_internal_error")
    assert flaky.get("/events").status_code == 200


# -- where the app is mounted ----------------------------------------------------------


def test_the_french_root_serves_the_same_routes_with_french_urls(api: Api) -> None:
    english = new_event(api)
    created = api.post(f"/fr{NS}/events", "administrator", json=BODY)
    assert created.status_code == 201, created.get_data(as_text=True)
    event = created.json
    listing = api.get(f"/fr{NS}/events")
    assert listing.status_code == 200, listing.get_data(as_text=True)
    assert f"/fr{NS}/" in listing.json["rest_url"]
    assert [e["id"] for e in listing.json["events"]] == [event["id"]]
    assert listing.json["events"][0]["rest_url"] == f"http://localhost/fr{NS}/events/{event['id']}"
    single = api.get(f"/fr{NS}/events/{event['id']}")
    assert single.json["rest_url"] == f"http://localhost/fr{NS}/events/{event['id']}"
    # lists hold the records of the root's language; single reads serve any language
    assert [e["id"] for e in api.get("/events").json["events"]] == [english["id"]]
    assert api.get(f"/fr{NS}/events/{english['id']}").status_code == 200


def test_the_french_root_answers_errors_too(api: Api) -> None:
    assert_wp_error(api.get(f"/fr{NS}/events/abc"), 404, "rest_no_route")
    assert_wp_error(api.get(f"/fr{NS}/events/424242"), 404, "rest-event-not-found")


def test_a_script_name_is_part_of_every_url(api: Api) -> None:
    event = new_event(api)
    response = api.client.get(f"{NS}/events", environ_overrides={"SCRIPT_NAME": "/api"})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["rest_url"].startswith(f"http://localhost/api{NS}/events/")
    listed = response.json["events"][0]
    assert listed["rest_url"] == f"http://localhost/api{NS}/events/{event['id']}"
    assert listed["url"] == "http://localhost/api/event/jazz-night/"
    assert listed["global_id"] == f"localhost/api?id={event['id']}"


def test_the_app_can_be_mounted_with_the_dispatcher_middleware(api: Api, app: Application) -> None:
    event = new_event(api)
    client = Client(DispatcherMiddleware(NotFound(), {"/api": app}))
    response = client.get(f"/api{NS}/events/{event['id']}")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["rest_url"] == f"http://localhost/api{NS}/events/{event['id']}"
    french = client.get(f"/api/fr{NS}/events/{event['id']}")
    assert french.json["rest_url"] == f"http://localhost/api/fr{NS}/events/{event['id']}"
    assert_wp_error(client.get(f"/api{NS}/nope"), 404, "rest_no_route")


def test_a_configured_site_url_is_used_for_every_url(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    client = Client(sibling_app(site_url="https://events.example.org"))
    created = client.post(f"{NS}/events", headers=api.headers("administrator"), json=BODY)
    assert created.status_code == 201, created.get_data(as_text=True)
    event = created.json
    assert event["rest_url"] == f"https://events.example.org{NS}/events/{event['id']}"
    assert event["url"] == "https://events.example.org/event/jazz-night/"
    assert event["global_id"] == f"events.example.org?id={event['id']}"
    assert event["global_id_lineage"] == [event["global_id"]]
    listing = client.get(f"{NS}/events", environ_overrides={"SCRIPT_NAME": "/ignored"})
    assert listing.json["rest_url"].startswith(f"https://events.example.org{NS}/events/")


@pytest.mark.parametrize(
    ("path", "login", "allow"),
    [
        ("/events", None, "GET"),
        ("/events", "subscriber", "GET"),
        ("/events", "contributor", "GET, POST"),
        ("/categories", "contributor", "GET"),
        ("/categories", "author", "GET, POST"),
        ("/tags", "author", "GET"),
        ("/tags", "editor", "GET, POST"),
        ("/venues", "contributor", "GET, POST"),
    ],
)
def test_the_allow_header_lists_what_the_user_may_call(
    api: Api, path: str, login: str | None, allow: str
) -> None:
    assert api.get(path, login).headers["Allow"] == allow
