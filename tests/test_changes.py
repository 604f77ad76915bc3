"""``GET /changes``: the permission-aware change feed (``sync.md`` §3), read as a sync
client written against the spec alone would read it."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import typing as t
from urllib.parse import parse_qsl, urlsplit

import pytest
from conftest import NS, Api, assert_wp_error
from sync_helpers import TOKEN, Body, seen, walk
from werkzeug.test import Client

from calendar_rest.app import Application
from calendar_rest.models import ChangeEntry, Event
from calendar_rest.repository.changes import prune_changes
from calendar_rest.repository.schema import create_schema

ROLES = ("administrator", "editor", "author", "contributor", "subscriber")


def event(api: Api, status: str = "publish", as_: str = "administrator", **fields: t.Any) -> Body:
    return api.create_event(as_=as_, status=status, **fields)


def test_an_initial_sync_is_the_readable_state_by_type_then_id(api: Api) -> None:
    venue = api.post("/venues", "administrator", json={"venue": "Hall"}).json
    second = event(api, title="Second")
    first = event(api, title="First", venue=venue["id"], categories=["Jazz"])
    draft = event(api, "draft", title="Hidden")
    entries, _ = walk(api)
    category = api.get("/categories").json["categories"][0]
    assert seen(entries) == [
        ("event", second["id"], "upsert"),
        ("event", first["id"], "upsert"),
        ("venue", venue["id"], "upsert"),
        ("category", category["id"], "upsert"),
    ]
    admin, _ = walk(api, "administrator")
    assert ("event", draft["id"], "upsert") in seen(admin)
    entry = entries[0]
    assert list(entry) == ["type", "id", "action", "modified", "modified_utc", "rest_url"]
    single = api.get(f"/events/{second['id']}").json
    assert (entry["modified"], entry["modified_utc"]) == (
        single["modified"],
        single["modified_utc"],
    )
    assert entry["rest_url"] == f"http://localhost{NS}/events/{second['id']}"


def test_visibility_changes_are_deletes_for_those_who_lose_sight(api: Api) -> None:
    """The spec's example: A publish→draft, B publish→private, C draft→publish."""
    a, b = event(api, title="Alpha"), event(api, title="Beta")
    c = event(api, "draft", title="Gamma")
    tokens = {role: walk(api, role)[1] for role in (None, "subscriber", "administrator")}
    for record, status in ((a, "draft"), (b, "private"), (c, "publish")):
        response = api.patch(f"/events/{record['id']}", "administrator", json={"status": status})
        assert response.status_code == 200
    expected = [
        ("event", a["id"], "delete"),
        ("event", b["id"], "delete"),
        ("event", c["id"], "upsert"),
    ]
    for role in (None, "subscriber"):
        assert seen(walk(api, role, sync_token=tokens[role])[0]) == expected
    upserts = [(kind, number, "upsert") for kind, number, _ in expected]
    assert seen(walk(api, "administrator", sync_token=tokens["administrator"])[0]) == upserts


def test_a_record_never_readable_leaves_no_trace(api: Api) -> None:
    _, token = walk(api)
    secret = event(api, "draft", as_="author", title="Secret plan")
    api.patch(f"/events/{secret['id']}", "author", json={"title": "Secret plan 2"})
    api.delete(f"/events/{secret['id']}", "author")
    private = event(api, "private", title="Board meeting")
    for role in (None, "subscriber", "contributor"):
        entries, _ = walk(api, role, sync_token=token)
        assert entries == [], role
        assert all(e["id"] not in (secret["id"], private["id"]) for e in walk(api, role)[0])
    author_view = seen(walk(api, "author", sync_token=token)[0])
    assert author_view == [
        ("event", secret["id"], "upsert"),
        ("event", secret["id"], "upsert"),
        ("event", secret["id"], "delete"),
    ]


def test_trash_is_a_delete_for_every_caller_and_a_restore_an_upsert(api: Api) -> None:
    record = event(api, title="Fair")
    tokens = {role: walk(api, role)[1] for role in ROLES}
    api.delete(f"/events/{record['id']}", "administrator")
    for role in ROLES:
        assert seen(walk(api, role, sync_token=tokens[role])[0]) == [
            ("event", record["id"], "delete")
        ], role
    _, token = walk(api)
    restored = api.patch(f"/events/{record['id']}", "administrator", json={"status": "publish"})
    assert restored.status_code == 200, restored.json  # restoring is an update (§3.9)
    assert seen(walk(api, sync_token=token)[0]) == [("event", record["id"], "upsert")]


def test_one_write_appends_one_entry_per_record_it_made(api: Api) -> None:
    _, token = walk(api)
    made = event(api, venue={"venue": "New Hall"}, tags=["Outdoor"])
    entries = seen(walk(api, sync_token=token)[0])
    venue = made["venue"]["id"]
    tag = made["tags"][0]["id"]
    assert sorted(entries) == sorted(
        [("event", made["id"], "upsert"), ("venue", venue, "upsert"), ("tag", tag, "upsert")]
    )


def test_terms_are_logged_and_a_deleted_term_is_a_delete(api: Api) -> None:
    _, token = walk(api)
    term = api.post("/categories", "administrator", json={"name": "Folk"}).json
    api.post(f"/categories/{term['id']}", "administrator", json={"name": "Folk music"})
    api.delete(f"/categories/{term['id']}", "administrator")
    assert seen(walk(api, sync_token=token)[0]) == [
        ("category", term["id"], "upsert"),
        ("category", term["id"], "upsert"),
        ("category", term["id"], "delete"),
    ]
    assert all(entry[1] != term["id"] for entry in seen(walk(api)[0]))


def test_a_refused_or_failed_write_appends_nothing(api: Api, app: Application) -> None:
    record = event(api, title="Kept")
    with app.database.connection_context():
        before = ChangeEntry.select().count()
    assert (
        api.patch(f"/events/{record['id']}", "subscriber", json={"title": "x"}).status_code == 403
    )
    assert api.post("/events", "administrator", json={"title": ""}).status_code == 400
    assert api.delete(f"/events/{record['id']}").status_code == 401
    with app.database.connection_context():
        assert ChangeEntry.select().count() == before


def test_types_filter_the_walk_and_unknown_types_are_refused(api: Api) -> None:
    made = event(api, venue={"venue": "Dock"}, organizer=[{"organizer": "Crew"}])
    for form in ({"types": "venue,organizer"}, {"types[]": ["venue", "organizer"]}):
        entries, _ = walk(api, **form)
        assert seen(entries) == [
            ("venue", made["venue"]["id"], "upsert"),
            ("organizer", made["organizer"][0]["id"], "upsert"),
        ]
    response = api.get("/changes", query_string={"types": "venue,party"})
    assert_wp_error(response, 400, "rest_invalid_param")
    assert "types" in response.json["data"]["params"]


def test_pages_of_one_walk_describe_one_state_while_writes_go_on(api: Api) -> None:
    first = [event(api, title=f"Night {n}")["id"] for n in range(5)]
    page_one = api.get("/changes", query_string={"per_page": 2}).json
    assert page_one["total"] == 5 and page_one["total_pages"] == 3
    assert len(page_one["changes"]) == 2
    later = event(api, title="Late").get("id")
    api.patch(f"/events/{first[4]}", "administrator", json={"status": "draft"})
    ids = [entry["id"] for entry in page_one["changes"]]
    url = page_one["next_rest_url"]
    query = dict(parse_qsl(urlsplit(url).query))
    assert {"per_page", "page", "snapshot"} <= set(query) and TOKEN.match(query["snapshot"])
    while url:
        body = api.get(url).json
        ids += [entry["id"] for entry in body["changes"]]
        url = body.get("next_rest_url")
    assert ids == first
    changes = seen(walk(api, sync_token=body["sync_token"])[0])
    assert changes == [("event", later, "upsert"), ("event", first[4], "delete")]


def test_a_page_past_the_end_is_empty_with_the_token_and_an_empty_walk_has_one_page(
    api: Api,
) -> None:
    empty = api.get("/changes")
    assert empty.json["changes"] == [] and empty.json["total_pages"] == 1
    assert empty.headers["X-WP-TotalPages"] == "1" and empty.json["sync_token"]
    event(api)
    past = api.get("/changes", query_string={"page": 7}).json
    assert past["changes"] == [] and past["sync_token"] and past["total"] == 1


def test_no_later_change_is_an_empty_page_with_a_token_not_a_410(api: Api) -> None:
    event(api)
    _, token = walk(api)
    again = api.get("/changes", query_string={"sync_token": token})
    assert again.status_code == 200 and again.json["changes"] == []
    assert again.json["sync_token"] == token


@pytest.mark.parametrize("token", ["", "garbage", "zz-1", "%%", "a" * 70])
def test_an_unusable_token_is_410_never_400(api: Api, token: str) -> None:
    response = api.get("/changes", query_string={"sync_token": token})
    assert_wp_error(response, 410, "rest_sync_token_invalid")
    assert "sync_token" in response.json["message"]


def test_a_token_beyond_the_head_or_of_another_database_is_410(api: Api, app: Application) -> None:
    event(api)
    _, token = walk(api)
    database, position = token.split("-")
    ahead = f"{database}-{int(position, 16) + 5:x}"
    foreign = f"{int(database, 16) + 1:x}-{position}"
    for bad in (ahead, foreign):
        for name in ("sync_token", "snapshot"):
            response = api.get("/changes", query_string={name: bad})
            assert_wp_error(response, 410, "rest_sync_token_invalid")


def test_compaction_keeps_latest_entries_and_expires_older_tokens(
    api: Api, app: Application
) -> None:
    _, old_token = walk(api)
    record = event(api, title="One")
    api.patch(f"/events/{record['id']}", "administrator", json={"title": "Two"})
    _, fresh_token = walk(api)
    with app.database.connection_context(), app.database.atomic():
        dropped = prune_changes(dt.datetime(2100, 1, 1))
    assert dropped == 1
    assert seen(walk(api)[0]) == [("event", record["id"], "upsert")]
    assert_wp_error(
        api.get("/changes", query_string={"sync_token": old_token}), 410, "rest_sync_token_invalid"
    )
    assert api.get("/changes", query_string={"sync_token": fresh_token}).status_code == 200


def test_init_seeds_records_written_before_the_log(api: Api, app: Application) -> None:
    record = event(api, title="Old")
    with app.database.connection_context():
        ChangeEntry.delete().execute()
    create_schema(app.database)
    create_schema(app.database)  # safe to repeat: one entry per record, not two
    assert seen(walk(api)[0]) == [("event", record["id"], "upsert")]


def test_the_french_root_links_to_french_urls(api: Api) -> None:
    made = event(api)
    body = api.get("/fr/calendar/events/v1/changes").json
    assert body["changes"][0]["rest_url"] == f"http://localhost/fr{NS}/events/{made['id']}"
    assert body["rest_url"].startswith("http://localhost/fr/calendar/events/v1/changes")


def test_the_feed_is_listed_in_the_index_and_the_document(api: Api) -> None:
    index = api.get("/").json
    assert "/calendar/events/v1/changes" in index["routes"]
    doc = api.get("/doc").json
    assert doc["paths"]["/changes"]["get"]["operationId"] == "get_changes_collection"


def test_scheduled_publication_is_an_upsert_for_anonymous_readers(
    api: Api, app: Application
) -> None:
    scheduled = event(
        api, date=(dt.datetime.now() + dt.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    )
    assert scheduled["status"] == "future"
    _, token = walk(api)
    with app.database.connection_context():
        Event.update(date_utc=dt.datetime(2000, 1, 1)).where(Event.id == scheduled["id"]).execute()
        app.publisher._generation = None  # reload the earliest date, as after any write
    assert seen(walk(api, sync_token=token)[0]) == [("event", scheduled["id"], "upsert")]


WRITERS = 4
WRITES_PER_WRITER = 6


class SyncClient:
    """A copy of what anonymous readers see, kept by the feed alone (the spec's client:
    apply entries in order, fetch ``rest_url`` on ``upsert``, drop on ``delete``)."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.copy: dict[tuple[str, int], Body] = {}
        self.token: str | None = None

    def sync(self) -> None:
        query = {"per_page": 7, **({"sync_token": self.token} if self.token else {})}
        entries, self.token = walk(self.api, **query)
        for entry in entries:
            key = (entry["type"], entry["id"])
            record = self.api.get(entry["rest_url"]) if entry["action"] == "upsert" else None
            if record is not None and record.status_code == 200:
                self.copy[key] = record.json
            else:  # deleted, or gone again: a later entry of the walk says so
                self.copy.pop(key, None)


def write_for_a_while(app: Application, headers: dict[str, str], number: int) -> None:
    """Create events and edit, unpublish or trash every other one."""
    client = Client(app)
    for step in range(WRITES_PER_WRITER):
        made = client.post(
            f"{NS}/events",
            headers=headers,
            json={
                "title": f"Writer {number} step {step}",
                "start_date": "2030-05-01 10:00:00",
                "end_date": "2030-05-01 11:00:00",
                "venue": {"venue": f"Room {number}"},
            },
        )
        assert made.status_code == 201, made.json
        url = f"{NS}/events/{made.json['id']}"
        if step % 4 == 1:
            client.patch(url, headers=headers, json={"title": "Edited"})
        elif step % 4 == 2:
            client.patch(url, headers=headers, json={"status": "draft"})
        elif step % 4 == 3:
            client.delete(url, headers=headers)


def test_a_sync_client_keeps_an_identical_copy_under_concurrent_writers(
    api: Api, app: Application
) -> None:
    """Writers create, edit, unpublish and trash while a client syncs; at the end its
    copy equals the state an initial sync gives, record for record (sync.md §3.8)."""
    client = SyncClient(api)
    client.sync()
    headers = api.headers("editor")
    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        futures = [pool.submit(write_for_a_while, app, headers, n) for n in range(WRITERS)]
        for _ in range(1000):  # bounded: the writers finish within seconds
            client.sync()
            if all(future.done() for future in futures):
                break
        for future in futures:
            future.result(timeout=120)
    client.sync()
    fresh = SyncClient(api)
    fresh.sync()
    assert client.copy == fresh.copy
    events = api.get(
        "/events",
        query_string={"per_page": 50, "start_date": "2030-01-01", "end_date": "2031-01-01"},
    ).json
    listed = {("event", item["id"]) for item in events["events"]}
    assert listed == {key for key in client.copy if key[0] == "event"}
    assert len(listed) == WRITERS * sum(step % 4 < 2 for step in range(WRITES_PER_WRITER))
