"""Series writes in the change feed and the webhook outbox (sync.md §3.6, §5.4;
calendar.md §4.4, §4.5): every entry's "before" is the state before the write, so a
copy kept by the change feed ends with what a fresh initial sync shows, whatever kind
of series edit ran, for every caller."""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

import pytest
from conftest import Api, api_for
from sync_helpers import walk
from webhook_helpers import messages, payload, subscribe

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
TARGET = "http://127.0.0.1:8080/hook"
Json = dict[str, t.Any]
Record = tuple[str, int]


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client whose app stands still at ``NOW`` and may send webhooks to loopback."""
    return api_for(sibling_app(clock=ManualClock(NOW), webhook_allow_private=True), api)


def create_series(cal: Api, status: str = "publish", count: int = 4, **fields: t.Any) -> list[int]:
    """A weekly series of ``author``'s, written by an administrator; its event IDs,
    the master's first."""
    body = {
        "title": "Choir rehearsal",
        "start_date": "2026-03-02 19:00:00",
        "end_date": "2026-03-02 21:00:00",
        "timezone": "Europe/Paris",
        "status": status,
        "author": cal.users["author"].id,
        "recurrence": [f"RRULE:FREQ=WEEKLY;COUNT={count}"],
        **fields,
    }
    master = cal.post("/events", "administrator", json=body)
    assert master.status_code == 201, master.get_data(as_text=True)
    listing = cal.get(
        f"/events/{master.json['id']}/occurrences",
        "administrator",
        query_string={"start_date": "2020-01-01", "status": status},
    )
    return [event["id"] for event in listing.json["events"]]


@dataclasses.dataclass(frozen=True)
class Edit:
    """One series write: on which row of the series (0: the master), with what."""

    name: str
    target: int
    method: str = "PATCH"
    scope: str | None = None
    body: Json = dataclasses.field(default_factory=dict)
    #: the series' status before the edit
    status: str = "publish"

    def run(self, cal: Api, ids: list[int]) -> None:
        query = {"scope": self.scope} if self.scope else {}
        body = dict(self.body)
        if "author" in body:  # a login here, an ID on the wire
            body["author"] = cal.users[body["author"]].id
        path = f"/events/{ids[self.target]}"
        response = cal.request(self.method, path, "administrator", query_string=query, json=body)
        assert response.status_code == 200, response.get_data(as_text=True)


MOVE = {"start_date": "2026-03-02 18:30:00", "end_date": "2026-03-02 20:30:00"}
EDITS = [
    Edit("unpublish from the master", 0, body={"status": "draft"}),
    Edit("unpublish from the master, scope all", 0, scope="all", body={"status": "draft"}),
    Edit("unpublish from the master, following", 0, scope="following", body={"status": "draft"}),
    Edit("unpublish from an occurrence, scope all", 1, scope="all", body={"status": "draft"}),
    Edit("unpublish the following ones (split)", 2, scope="following", body={"status": "draft"}),
    Edit("make the series private", 0, body={"status": "private"}),
    Edit("give a draft series away", 0, body={"author": "author2"}, status="draft"),
    Edit(
        "give a draft series away from an occurrence",
        1,
        scope="all",
        body={"author": "author2"},
        status="draft",
    ),
    Edit(
        "give the following ones away (split)",
        2,
        scope="following",
        body={"author": "author2"},
        status="draft",
    ),
    Edit("publish a draft series", 0, body={"status": "publish"}, status="draft"),
    Edit(
        "publish the following ones (split)",
        1,
        scope="following",
        body={"status": "publish"},
        status="draft",
    ),
    Edit("an exception on the master", 0, scope="this", body={"title": "First night"}),
    Edit("a moved exception", 1, scope="this", body={"title": "Moved", **MOVE}),
    Edit("move and unpublish the series", 0, body={"status": "draft", **MOVE}),
    Edit(
        "change the rule and unpublish",
        0,
        body={"status": "draft", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=2"]},
    ),
    Edit("end the series and unpublish", 0, body={"status": "draft", "recurrence": []}),
    Edit("delete one occurrence", 1, method="DELETE", scope="this"),
    Edit("delete the following ones", 2, method="DELETE", scope="following"),
    Edit("delete the series from an occurrence", 1, method="DELETE", scope="all"),
    Edit("delete the series", 0, method="DELETE"),
    Edit("delete the master alone", 0, method="DELETE", scope="this"),
]


def records(entries: list[Json]) -> set[Record]:
    return {(entry["type"], entry["id"]) for entry in entries}


def apply(copy: set[Record], entries: list[Json]) -> set[Record]:
    """A sync client's copy after an incremental walk, applied in order (§3.5)."""
    copy = set(copy)
    for entry in entries:
        if entry["action"] == "upsert":
            copy.add((entry["type"], entry["id"]))
        else:
            copy.discard((entry["type"], entry["id"]))
    return copy


@pytest.mark.parametrize("caller", [None, "author"], ids=["anonymous", "author"])
@pytest.mark.parametrize("edit", EDITS, ids=[edit.name for edit in EDITS])
def test_a_copy_kept_by_the_change_feed_ends_as_a_fresh_sync(
    cal: Api, edit: Edit, caller: str | None
) -> None:
    ids = create_series(cal, edit.status)
    initial, token = walk(cal, caller)
    edit.run(cal, ids)
    later, _ = walk(cal, caller, sync_token=token)
    fresh, _ = walk(cal, caller)
    assert apply(records(initial), later) == records(fresh)


def test_a_stand_alone_event_turned_into_a_draft_series_leaves_anonymous_copies(
    cal: Api,
) -> None:
    lone = cal.create_event(title="Lone")
    _, token = walk(cal)
    response = cal.patch(
        f"/events/{lone['id']}",
        "administrator",
        json={"status": "draft", "recurrence": ["RRULE:FREQ=DAILY;COUNT=3"]},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    later, _ = walk(cal, sync_token=token)
    assert [(entry["id"], entry["action"]) for entry in later] == [(lone["id"], "delete")]


def test_unpublishing_a_series_sends_every_row_including_the_master_as_a_delete(
    cal: Api, app: Application
) -> None:
    ids = create_series(cal, count=3)
    _, token = walk(cal)
    subscribe(cal, TARGET, ["*"])
    cal.patch(f"/events/{ids[0]}", "administrator", json={"status": "draft"})
    later, _ = walk(cal, sync_token=token)
    assert sorted((entry["id"], entry["action"]) for entry in later) == [
        (event_id, "delete") for event_id in ids
    ]
    sent = [payload(message) for message in messages(app)]
    assert sorted((body["data"]["id"], body["type"], body["data"]["action"]) for body in sent) == [
        (event_id, "event.updated", "delete") for event_id in ids
    ]
    assert all("record" not in body["data"] for body in sent)
    cal.patch(f"/events/{ids[1]}?scope=all", "administrator", json={"status": "publish"})
    republished = [payload(message) for message in messages(app)][len(sent) :]
    assert sorted((body["data"]["id"], body["data"]["action"]) for body in republished) == [
        (event_id, "upsert") for event_id in ids
    ]
    assert {body["data"]["record"]["status"] for body in republished} == {"publish"}


def test_a_split_does_not_report_occurrences_deleted_before_again(
    cal: Api, app: Application
) -> None:
    ids = create_series(cal, count=5)
    assert cal.delete(f"/events/{ids[3]}", "administrator").status_code == 200
    subscribe(cal, TARGET, ["*"])
    _, token = walk(cal, "administrator")
    response = cal.patch(
        f"/events/{ids[2]}?scope=following", "administrator", json={"title": "Spring term"}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    changed = {body["data"]["id"] for body in map(payload, messages(app))}
    later, _ = walk(cal, "administrator", sync_token=token)
    assert changed == {entry["id"] for entry in later} == {ids[0], ids[2], ids[4]}
