"""Memos of pure functions (``memo.py``): bounded, and kept under everything their
values are made from, so that a change shows at once and a shared value stays whole."""

from __future__ import annotations

import typing as t

from conftest import Api

from calendar_rest.memo import Memo


def test_a_memo_makes_each_value_once_and_drops_the_least_recently_used() -> None:
    made: list[str] = []

    def make(key: str) -> t.Callable[[], str]:
        def upper() -> str:
            made.append(key)
            return key.upper()

        return upper

    memo: Memo[str, str] = Memo(2)
    assert [memo.get(k, make(k)) for k in ("a", "b", "a")] == ["A", "B", "A"]
    assert made == ["a", "b"]
    memo.get("c", make("c"))  # "b" was used least recently
    assert len(memo) == 2
    memo.get("a", make("a"))
    memo.get("b", make("b"))
    assert made == ["a", "b", "c", "b"]


def event_with_links(api: Api) -> dict[str, t.Any]:
    venue = api.post("/venues", "administrator", json={"venue": "Blue Hall", "city": "Lyon"})
    organizer = api.post("/organizers", "administrator", json={"organizer": "Ana"})
    return api.create_event(
        title="Linked",
        venue=venue.json["id"],  # type: ignore[index]
        organizer=[organizer.json["id"]],  # type: ignore[index]
        categories=["Jazz"],
    )


def test_an_embedded_record_shows_its_edit_at_once(api: Api) -> None:
    event = event_with_links(api)
    path = f"/events/{event['id']}"
    assert api.get(path).json["venue"]["city"] == "Lyon"  # type: ignore[index]
    venue_id = event["venue"]["id"]
    assert (
        api.patch(f"/venues/{venue_id}", "administrator", json={"city": "Nice"}).status_code == 200
    )
    organizer_id = event["organizer"][0]["id"]
    renamed = {"organizer": "Ana B."}
    assert (
        api.patch(f"/organizers/{organizer_id}", "administrator", json=renamed).status_code == 200
    )
    term_id = event["categories"][0]["id"]
    assert (
        api.post(f"/categories/{term_id}", "administrator", json={"name": "Jazz 2"}).status_code
        == 200
    )
    body = t.cast(dict[str, t.Any], api.get(path).json)
    assert body["venue"]["city"] == "Nice"
    assert body["organizer"][0]["organizer"] == "Ana B."
    assert body["categories"][0]["name"] == "Jazz 2"
    listed = t.cast(dict[str, t.Any], api.get("/events").json)["events"][0]
    assert (listed["venue"]["city"], listed["categories"][0]["name"]) == ("Nice", "Jazz 2")


def test_a_shared_representation_is_never_cut_down_by_fields(api: Api) -> None:
    event_with_links(api)
    whole = t.cast(dict[str, t.Any], api.get("/events").json)["events"][0]
    narrow = api.get("/events?_fields=venue.venue,categories.name")
    assert narrow.json["events"][0]["venue"] == {"venue": "Blue Hall"}  # type: ignore[index]
    again = t.cast(dict[str, t.Any], api.get("/events").json)["events"][0]
    assert (again["venue"], again["categories"]) == (whole["venue"], whole["categories"])
    assert len(again["venue"]) > 10
