"""Memos of pure functions (``memo.py``): bounded, and kept under everything their
values are made from, so that a change shows at once and a shared value stays whole."""

from __future__ import annotations

import typing as t

import orjson
import pytest
from conftest import Api

from calendar_rest.caching.memo import Memo
from calendar_rest.wire import kept as kept_wire


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


def test_a_memo_bounded_by_weight_drops_the_least_recently_used_to_fit() -> None:
    memo: Memo[str, str] = Memo(100, max_weight=10, weigh=len)
    for value in ("aaaa", "bbbb", "cc"):
        memo.get(value, lambda value=value: value)  # type: ignore[misc]
    assert (len(memo), memo.weight) == (3, 10)
    memo.get("a" * 4, lambda: "never made")  # kept: made no second time
    memo.get("dddd", lambda: "dddd")  # "bbbb" was used least recently
    assert (len(memo), memo.weight) == (3, 10)
    made = memo.get("bbbb", lambda: "BBBB")
    assert made == "BBBB"  # it was dropped, so made again
    assert memo.weight <= 10


def test_a_value_heavier_than_the_whole_bound_is_returned_but_not_kept() -> None:
    memo: Memo[str, str] = Memo(100, max_weight=10, weigh=len)
    memo.get("small", lambda: "ab")
    assert memo.get("huge", lambda: "x" * 11) == "x" * 11
    assert (len(memo), memo.weight) == (1, 2)
    assert memo.get("huge", lambda: "again") == "again"


def test_keys_with_one_hash_are_still_told_apart() -> None:
    """An equal hash alone never makes a hit: of two keys with one hash, each gets its
    own value (the memo keeps the later one)."""
    assert hash(-1) == hash(-2)  # CPython: -1 is reserved, so both hash to -2
    memo: Memo[int, str] = Memo(8)
    assert memo.get(-1, lambda: "minus one") == "minus one"
    assert memo.get(-2, lambda: "minus two") == "minus two"
    assert memo.get(int("-2"), lambda: "made again") == "minus two"  # equal, not the same
    assert memo.get(-1, lambda: "minus one, again") == "minus one, again"


def test_a_long_venue_description_does_not_grow_the_linked_memo_past_its_bound(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    bounded: Memo[t.Hashable, dict[str, t.Any]] = Memo(
        4096, max_weight=200_000, weigh=lambda value: len(orjson.dumps(value))
    )
    monkeypatch.setattr(kept_wire, "LINKED", bounded)
    for number in range(8):
        venue = api.post(
            "/venues",
            "administrator",
            json={"venue": f"Hall {number}", "description": "long words " * 5_000},
        )
        api.create_event(title=f"Talk {number}", venue=venue.json["id"])  # type: ignore[index]
        assert api.get("/events?per_page=50").status_code == 200
    assert 0 < bounded.weight <= 200_000
    assert len(bounded) < 8  # each venue weighs about 55 kB: not all of them fit


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
    json_ld = api.get(path).json["json_ld"]  # type: ignore[index]  # kept apart, made of them too
    assert json_ld["location"]["address"]["addressLocality"] == "Nice"
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
    assert body["json_ld"]["organizer"]["name"] == "Ana B."  # one organizer: not a list
    listed = t.cast(dict[str, t.Any], api.get("/events").json)["events"][0]
    assert (listed["venue"]["city"], listed["categories"][0]["name"]) == ("Nice", "Jazz 2")


def test_an_event_shows_its_own_edit_at_once_in_its_read_and_its_list(api: Api) -> None:
    event = api.create_event(title="Before", description="Old words", cost="10")
    path = f"/events/{event['id']}"
    assert api.get(path).json["title"] == "Before"  # type: ignore[index]
    assert api.get("/events").json["events"][0]["title"] == "Before"  # type: ignore[index]
    edit = {"title": "After", "description": "New words", "cost": "12"}
    assert api.patch(path, "administrator", json=edit).status_code == 200
    for shown in (api.get(path).json, api.get("/events").json["events"][0]):  # type: ignore[index]
        assert (shown["title"], shown["cost"]) == ("After", "$12")  # type: ignore[index]
        assert shown["description"] == "<p>New words</p>"  # type: ignore[index]


def test_a_kept_event_is_never_changed_by_what_one_response_adds_to_it(api: Api) -> None:
    """The kept fields are shared: the links, JSON-LD and language each response adds
    go into its own copy, so reading an event again shows it the same."""
    event = event_with_links(api)
    path = f"/events/{event['id']}"
    first = (api.get(path).json, api.get("/events").json)
    again = (api.get(path).json, api.get("/events").json)
    assert again == first
    assert [term["name"] for term in again[0]["categories"]] == ["Jazz"]  # type: ignore[index]
    assert "json_ld" not in again[1]["events"][0]  # type: ignore[index]


def test_a_shared_representation_is_never_cut_down_by_fields(api: Api) -> None:
    event_with_links(api)
    whole = t.cast(dict[str, t.Any], api.get("/events").json)["events"][0]
    narrow = api.get("/events?_fields=venue.venue,categories.name")
    assert narrow.json["events"][0]["venue"] == {"venue": "Blue Hall"}  # type: ignore[index]
    again = t.cast(dict[str, t.Any], api.get("/events").json)["events"][0]
    assert (again["venue"], again["categories"]) == (whole["venue"], whole["categories"])
    assert len(again["venue"]) > 10


@pytest.mark.parametrize("collection", ["venues", "organizers"])
def test_a_listed_or_read_venue_or_organizer_shows_its_edit_at_once(
    api: Api, collection: str
) -> None:
    name = collection[:-1]
    created = api.post(f"/{collection}", "administrator", json={name: "Blue", "phone": "1"})
    path = f"/{collection}/{created.json['id']}"  # type: ignore[index]
    listed = api.get(f"/{collection}").json[collection][0]  # type: ignore[index]
    assert "json_ld" not in listed
    assert "json_ld" in api.get(path).json  # type: ignore[operator]  # shown alone
    assert api.patch(path, "administrator", json={"phone": "2"}).status_code == 200
    assert api.get(path).json["phone"] == "2"  # type: ignore[index]
    assert api.get(f"/{collection}").json[collection][0]["phone"] == "2"  # type: ignore[index]
    french = api.post(
        f"/fr/calendar/events/v1/{collection}",
        "administrator",
        json={name: "Bleu", "translation_of": created.json["id"]},
    )  # type: ignore[index]
    group = {"en": created.json["id"], "fr": french.json["id"]}  # type: ignore[index]
    assert api.get(path).json["translations"] == group  # type: ignore[index]


def test_a_kept_venue_is_never_cut_down_by_fields_in_its_list(api: Api) -> None:
    api.post("/venues", "administrator", json={"venue": "Blue Hall", "city": "Lyon"})
    whole = t.cast(dict[str, t.Any], api.get("/venues").json)["venues"][0]
    narrow = api.get("/venues?_fields=venue")
    assert narrow.json["venues"][0] == {"venue": "Blue Hall"}  # type: ignore[index]
    assert t.cast(dict[str, t.Any], api.get("/venues").json)["venues"][0] == whole


def test_an_event_shows_at_once_what_changes_around_it(api: Api) -> None:
    """A kept event is keyed by everything it embeds as the reader sees it: its venue's
    image, and a venue hidden from this reader."""
    event = event_with_links(api)
    path = f"/events/{event['id']}"
    venue_id = event["venue"]["id"]
    assert "image" not in api.get(path).json["venue"]  # type: ignore[index]  # empty: dropped
    image = {"image": "https://images.example/hall.png"}
    assert api.patch(f"/venues/{venue_id}", "administrator", json=image).status_code == 200
    shown = t.cast(dict[str, t.Any], api.get(path).json)["venue"]["image"]
    assert shown["url"] == "https://images.example/hall.png"
    drafted = {"status": "draft"}
    assert api.patch(f"/venues/{venue_id}", "administrator", json=drafted).status_code == 200
    assert api.get(path).json["venue"] == []  # type: ignore[index]  # anonymous: hidden
    assert api.get(path, "administrator").json["venue"]["id"] == venue_id  # type: ignore[index]


def test_an_occurrence_shows_its_series_new_lines_at_once(api: Api) -> None:
    master = api.create_event(title="Weekly", recurrence=["RRULE:FREQ=WEEKLY;COUNT=3"])
    occurrences = api.get(f"/events/{master['id']}/occurrences").json["events"]  # type: ignore[index]
    occurrence = next(item for item in occurrences if item["id"] != master["id"])
    path = f"/events/{occurrence['id']}"
    assert api.get(path).json["recurrence"] == ["RRULE:FREQ=WEEKLY;COUNT=3"]  # type: ignore[index]
    lines = {"recurrence": ["RRULE:FREQ=WEEKLY;COUNT=4"], "scope": "all"}
    edited = api.patch(f"/events/{master['id']}", "administrator", json=lines)
    assert edited.status_code == 200, edited.json
    assert api.get(path).json["recurrence"] == ["RRULE:FREQ=WEEKLY;COUNT=4"]  # type: ignore[index]
