"""DELETE /events/{id} and /events/by-slug/{slug}: events are trashed, never erased."""

from __future__ import annotations

import typing as t

import pytest
from conftest import Api, assert_wp_error

START = "2026-12-05 19:00:00"
END = "2026-12-05 21:00:00"


def new_event(api: Api, as_: str = "administrator", **fields: t.Any) -> dict[str, t.Any]:
    payload = {"title": "Jazz Night", "start_date": START, "end_date": END, **fields}
    response = api.post("/events", as_, json=payload)
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def delete_path(event: dict[str, t.Any], by: str) -> str:
    return f"/events/{event['id']}" if by == "id" else f"/events/by-slug/{event['slug']}"


@pytest.mark.parametrize("by", ["id", "slug"])
def test_delete_trashes_the_event_and_returns_it(api: Api, by: str) -> None:
    event = new_event(api)
    response = api.delete(delete_path(event, by), "administrator")
    assert response.status_code == 200, response.get_data(as_text=True)
    trashed = response.json
    assert (trashed["id"], trashed["status"], trashed["slug"]) == (
        event["id"],
        "trash",
        "jazz-night__trashed",
    )
    assert list(trashed) == list(event)  # same keys, no json_ld
    assert trashed["title"] == event["title"]
    assert trashed["date"] == event["date"]


def test_a_second_delete_by_id_is_a_410(api: Api) -> None:
    event = new_event(api)
    api.delete(f"/events/{event['id']}", "administrator")
    body = assert_wp_error(
        api.delete(f"/events/{event['id']}", "administrator"), 410, "event-is-in-trash"
    )
    assert body["message"] == "The event is already trashed"


def test_the_old_slug_no_longer_resolves_after_trashing(api: Api) -> None:
    event = new_event(api)
    api.delete(f"/events/{event['id']}", "administrator")
    for response in (
        api.delete("/events/by-slug/jazz-night", "administrator"),
        api.get("/events/by-slug/jazz-night"),
        api.post("/events/by-slug/jazz-night", "administrator", json={"title": "x"}),
    ):
        body = assert_wp_error(response, 400, "rest_invalid_param")
        assert list(body["data"]["params"]) == ["slug"]


@pytest.mark.parametrize("user", [None, "subscriber", "contributor", "administrator"])
def test_reading_a_trashed_event_is_forbidden_for_everyone(api: Api, user: str | None) -> None:
    event = new_event(api)
    api.delete(f"/events/{event['id']}", "administrator")
    body = assert_wp_error(
        api.get(f"/events/{event['id']}", user), 403, "event-no-longer-available"
    )
    assert body["message"] == "This event is no longer available"


def test_a_trashed_event_leaves_the_listing(api: Api) -> None:
    kept = new_event(api, title="Kept")
    gone = new_event(api, title="Gone")
    api.delete(f"/events/{gone['id']}", "administrator")
    for user in (None, "administrator"):
        listing = api.get("/events", user).json
        assert [event["id"] for event in listing["events"]] == [kept["id"]]
        assert listing["total"] == 1


def test_trashing_drops_the_term_counts(api: Api) -> None:
    gone = new_event(api, categories=["Music"], tags=["Outdoor"])
    kept = new_event(api, categories=["Music"], tags=["Outdoor"])
    assert kept["categories"][0]["count"] == 2
    trashed = api.delete(f"/events/{gone['id']}", "administrator").json
    assert trashed["categories"][0]["count"] == 1
    after = api.get(f"/events/{kept['id']}").json
    assert (after["categories"][0]["count"], after["tags"][0]["count"]) == (1, 1)


def test_a_new_event_can_reuse_the_freed_slug(api: Api) -> None:
    old = new_event(api)
    api.delete(f"/events/{old['id']}", "administrator")
    reborn = new_event(api)
    assert reborn["slug"] == "jazz-night"
    assert api.get("/events/by-slug/jazz-night").json["id"] == reborn["id"]


def test_trashing_twice_the_same_slug_keeps_trashed_slugs_unique(api: Api) -> None:
    first = new_event(api)
    api.delete(f"/events/{first['id']}", "administrator")
    second = new_event(api)
    trashed = api.delete(f"/events/{second['id']}", "administrator").json
    assert trashed["slug"].startswith("jazz-night__trashed")
    assert trashed["slug"] != "jazz-night__trashed"


def test_deleting_a_missing_event_is_a_404(api: Api) -> None:
    body = assert_wp_error(
        api.delete("/events/424242", "administrator"), 404, "rest-event-not-found"
    )
    assert body["message"] == "Event with ID 424242 does not exist."


def test_a_force_parameter_does_not_erase_the_event(api: Api) -> None:
    event = new_event(api)
    response = api.delete(f"/events/{event['id']}", "administrator", query_string={"force": "true"})
    assert response.json["status"] == "trash"
    assert_wp_error(api.get(f"/events/{event['id']}"), 403, "event-no-longer-available")


@pytest.mark.parametrize(
    ("user", "status"),
    [(None, 401), ("subscriber", 403), ("contributor", 403), ("author2", 403)],
)
def test_only_permitted_users_may_trash_an_authors_event(
    api: Api, user: str | None, status: int
) -> None:
    event = new_event(api, "author")
    assert_wp_error(api.delete(f"/events/{event['id']}", user), status, "rest_forbidden")
    assert_wp_error(api.delete(f"/events/by-slug/{event['slug']}", user), status, "rest_forbidden")
    assert api.get(f"/events/{event['id']}").json["status"] == "publish"


def test_a_contributor_may_trash_an_own_draft(api: Api) -> None:
    event = new_event(api, "contributor")
    assert event["status"] == "draft"
    assert api.delete(f"/events/{event['id']}", "contributor").json["status"] == "trash"
