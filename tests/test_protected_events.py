"""Published password-protected events: public without their content, one rule on every
path (``docs/sync-and-webhooks.md``, "Password-protected events").

Whoever cannot read the content meets TEC's redacted form (``events.md`` §3.8) exactly
as ``GET /events`` lists it to them: lists, ``/events.ics``, the change feed (``upsert``
with ``protected`` and ``listed_url``) and webhooks (``upsert``, the anonymous listing as
``record``); the item routes keep TEC's 403 ``event-password-protected``. The first
test is the docs' sync recipe itself, run by a client that follows it to the letter.
"""

from __future__ import annotations

import datetime as dt
import random
import typing as t

import pytest
from conftest import ALL_ROLES, NS, Api, Role, api_for, assert_wp_error
from mirror import Mirror, comparable, listed_events
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from standardwebhooks import Webhook
from sync_helpers import Body, walk
from webhook_helpers import Receiver, messages, payload, subscribe

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.delivery.worker import Worker
from calendar_rest.settings import Settings

Build = t.Callable[..., Application]
PASSWORD = "open sesame"
#: what the protected events carry and no redacted form may show
HIDDEN = ("Backstage words", "Teaser words", "4242", "Secret Hall", "Secret Crew", "Whispers")
TARGET = "http://127.0.0.1:9/hook"
#: TEC §3.8: the keys a caller without the password sees emptied
REDACTED = {
    "description": "",
    "excerpt": "",
    "image": False,
    "all_day": None,
    "cost": "",
    "cost_details": {
        "currency_symbol": "",
        "currency_position": "",
        "currency_code": "",
        "values": [],
    },
    "website": "",
    "categories": [],
    "tags": [],
    "venue": [],
    "organizer": [],
}
ENTRY_KEYS = ["type", "id", "action", "modified", "modified_utc", "rest_url"]


def day(date: str) -> dict[str, str]:
    return {"start_date": f"{date} 19:00:00", "end_date": f"{date} 21:00:00"}


def in_days(days: int) -> dict[str, str]:
    return day((dt.date.today() + dt.timedelta(days=days)).isoformat())


def protected(api: Api, as_: str = "administrator", **fields: t.Any) -> Body:
    """An event with a password and every kind of content the redaction hides."""
    content = {
        "password": PASSWORD,
        "description": "<p>Backstage words</p>",
        "excerpt": "Teaser words",
        "cost": "4242",
        "website": "https://backstage.example/",
        "venue": {"venue": "Secret Hall"},
        "organizer": [{"organizer": "Secret Crew"}],
        "categories": ["Whispers"],
        **in_days(20),
    }
    return api.create_event(as_=as_, **{**content, **fields})


def assert_redacted(event: Body) -> None:
    assert {key: event[key] for key in REDACTED} == REDACTED, event
    assert not any(word in str(event) for word in HIDDEN), event


# -- the recipe ---------------------------------------------------------------------------


def assert_mirrors_the_list(mirror: Mirror) -> None:
    """The copy holds exactly the events ``GET /events`` lists to its caller (with its
    password, if it holds one): same IDs and objects. What came from a list is identical;
    what came from a single read is compared without what differs by design
    (``mirror.comparable``)."""
    query = {"password": mirror.password} if mirror.password else {}
    listed = listed_events(mirror.api, mirror.as_, **query)
    assert sorted(mirror.events) == sorted(listed)
    for number, stored in mirror.events.items():
        if mirror.fetched_by[number] == "listed_url":
            assert stored == listed[number]
            assert_redacted(stored)
        else:
            assert comparable(stored) == comparable(listed[number])


@pytest.mark.parametrize(
    ("as_", "password"),
    [*((role, None) for role in ALL_ROLES), (None, PASSWORD)],
    ids=[*(role or "anonymous" for role in ALL_ROLES), "anonymous-with-password"],
)
def test_the_sync_recipe_ends_with_the_events_the_list_shows(
    api: Api, as_: Role, password: str | None
) -> None:
    """Initial walk, then walks after writes that create, protect, unprotect, unpublish,
    publish, trash and edit protected events (past, recurring, drafts of their
    authors), each applied as the docs say."""
    plain = api.create_event(title="Open air", **in_days(10))
    locked = protected(api, title="Locked")
    past = protected(api, title="Bygone", **day("2020-03-01"))
    protected(api, title="Weekly", recurrence=["RRULE:FREQ=WEEKLY;COUNT=3"], **in_days(40))
    doomed = protected(api, title="Doomed")
    own_draft = protected(api, "author", title="Author's draft", status="draft")
    protected(api, "contributor", title="Contributor's pending", status="pending")
    protected(api, title="Board only", status="private")
    mirror = Mirror(api, as_, password)
    mirror.sync()
    assert_mirrors_the_list(mirror)
    if password is None:  # the case this recipe exists for
        assert "listed_url" in mirror.fetched_by.values()

    fresh = protected(api, title="Fresh")
    writes = [
        ("PATCH", plain, "administrator", {"password": PASSWORD}),
        ("PATCH", locked, "administrator", {"password": ""}),
        ("PATCH", past, "administrator", {"status": "draft"}),
        ("DELETE", doomed, "administrator", None),
        ("PATCH", own_draft, "author", {"status": "publish"}),
    ]
    for method, event, by, body in writes:
        answer = api.request(method, f"/events/{event['id']}", by, json=body)
        assert answer.status_code == 200, answer.get_data(as_text=True)
    protected(api, "author", title="Second draft", status="draft")
    mirror.sync()
    assert_mirrors_the_list(mirror)

    for method, event, body in (
        ("PATCH", past, {"status": "publish"}),
        ("DELETE", plain, None),
        ("PATCH", fresh, {"title": "Fresh again", "description": "<p>Whispers</p>"}),
    ):
        answer = api.request(method, f"/events/{event['id']}", "administrator", json=body)
        assert answer.status_code == 200, answer.get_data(as_text=True)
    mirror.sync()
    assert_mirrors_the_list(mirror)


# -- the change feed's entries --------------------------------------------------------------


def test_a_protected_entry_adds_protected_and_its_list_url(api: Api) -> None:
    past = protected(api, title="Bygone", **day("2019-06-01"))
    open_air = api.create_event(title="Open air", **in_days(3))
    french = api.post(
        f"/fr{NS}/events",
        "administrator",
        json={"title": "Huis clos", "password": "x", **day("2027-02-01")},
    ).json
    entries = {entry["id"]: entry for entry in walk(api, types="event")[0]}
    assert list(entries[open_air["id"]]) == ENTRY_KEYS
    assert list(entries[past["id"]]) == [*ENTRY_KEYS, "protected", "listed_url"]
    assert entries[past["id"]]["rest_url"] == f"http://localhost{NS}/events/{past['id']}"
    assert entries[past["id"]]["protected"] is True
    assert entries[past["id"]]["listed_url"] == f"http://localhost{NS}/events?include={past['id']}"
    assert entries[french["id"]]["listed_url"] == (
        f"http://localhost{NS}/events?include={french['id']}&i18n_language=fr"
    )
    french_walk = api.get(f"/fr{NS}/changes", query_string={"types": "event"}).json["changes"]
    on_french_root = {entry["id"]: entry for entry in french_walk}
    assert on_french_root[past["id"]]["listed_url"] == (
        f"http://localhost/fr{NS}/events?include={past['id']}&i18n_language=en"
    )
    assert on_french_root[french["id"]]["listed_url"] == (
        f"http://localhost/fr{NS}/events?include={french['id']}"
    )
    for entries_by_id in (entries, on_french_root):
        for number in (past["id"], french["id"]):
            (listed,) = api.get(entries_by_id[number]["listed_url"]).json["events"]
            assert listed["id"] == number and listed["description"] == ""
    assert_wp_error(api.get(entries[past["id"]]["rest_url"]), 403, "event-password-protected")


def test_the_document_declares_the_new_keys(api: Api) -> None:
    protected(api)
    api.create_event(title="Open air")
    document = api.get("/doc").json
    validator = OAS30Validator(
        {"$ref": "#/components/schemas/ChangeList", "components": document["components"]},
        format_checker=oas30_format_checker,
    )
    body = api.get("/changes").json
    assert any("listed_url" in entry for entry in body["changes"])
    assert [error.message for error in validator.iter_errors(body)] == []


# -- webhooks -----------------------------------------------------------------------------


@pytest.fixture
def hooks(api: Api, sibling_app: Build) -> Api:
    return api_for(sibling_app(webhook_allow_private=True), api)


@pytest.fixture
def receiver() -> t.Iterator[Receiver]:
    endpoint = Receiver()
    yield endpoint
    endpoint.close()


def test_a_protected_events_message_is_an_upsert_of_its_anonymous_listing(
    hooks: Api, app: Application, receiver: Receiver
) -> None:
    subscription = subscribe(hooks, receiver.url, ["event.created", "event.updated"])
    locked = protected(hooks, title="Locked")
    (created,) = messages(app)
    listed_url = f"http://localhost{NS}/events?include={locked['id']}"
    (listing,) = hooks.get(listed_url).json["events"]
    plain = hooks.create_event(title="Open air")
    hooks.patch(f"/events/{plain['id']}", "administrator", json={"password": PASSWORD})
    french = hooks.post(
        f"/fr{NS}/events",
        "administrator",
        json={"title": "Huis clos", "password": "x", **day("2027-02-01")},
    ).json
    body = payload(created)
    assert created.type == body["type"] == "event.created"
    data = body["data"]
    assert list(data) == ["id", "type", "action", "rest_url", "protected", "listed_url", "record"]
    assert (data["action"], data["protected"], data["listed_url"]) == ("upsert", True, listed_url)
    assert data["rest_url"] == f"http://localhost{NS}/events/{locked['id']}"
    assert data["record"] == listing
    assert_redacted(data["record"])
    assert not any(word.encode() in bytes(created.payload) for word in HIDDEN)
    _, _, protecting, in_french = (payload(message) for message in messages(app))
    assert protecting["type"] == "event.updated" and protecting["data"]["action"] == "upsert"
    assert protecting["data"]["record"]["title"] == "Open air"
    assert protecting["data"]["record"]["description"] == ""
    assert in_french["data"]["listed_url"] == (
        f"http://localhost{NS}/events?include={french['id']}&i18n_language=fr"
    )
    assert in_french["data"]["record"]["language"] == "fr"

    clock = ManualClock(dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=2))
    settings = Settings.build(app.settings.database_url, environ={}, webhook_allow_private=True)
    assert Worker(app.database, settings, clock, rng=random.Random(7)).run_once() == 4
    verifier = Webhook(subscription["secret"])
    delivered = [verifier.verify(got.body, got.headers) for got in receiver.received]
    assert body in delivered


def test_an_event_hidden_from_listings_is_an_upsert_no_list_shows(
    hooks: Api, app: Application
) -> None:
    """No list shows it (TEC §4.3), so its entry's list is empty and its message has
    no ``record``; it stays an ``upsert``, as the change feed says."""
    subscribe(hooks, TARGET, ["event.created"])
    unlisted = protected(hooks, title="Unlisted", hide_from_listings=True)
    (message,) = messages(app)
    data = payload(message)["data"]
    assert list(data) == ["id", "type", "action", "rest_url", "protected", "listed_url"]
    assert data["action"] == "upsert"
    (entry,) = [e for e in walk(hooks, types="event")[0] if e["id"] == unlisted["id"]]
    assert entry["listed_url"] == data["listed_url"]
    assert hooks.get(entry["listed_url"]).json["events"] == []


def test_hidden_events_travel_without_content_password_or_not(hooks: Api, app: Application) -> None:
    subscribe(hooks, TARGET, ["*"])
    draft = protected(hooks, "author", title="Author's secret", status="draft")
    private = protected(hooks, title="Board only", status="private")
    shown = protected(hooks, title="Shown")
    hooks.patch(f"/events/{shown['id']}", "administrator", json={"status": "draft"})
    hooks.delete(f"/events/{private['id']}", "administrator")
    sent = [(m, payload(m)) for m in messages(app) if m.type.startswith("event.")]
    assert [(body["type"], body["data"]["id"], body["data"]["action"]) for _, body in sent] == [
        ("event.created", draft["id"], "delete"),
        ("event.created", private["id"], "delete"),
        ("event.created", shown["id"], "upsert"),
        ("event.updated", shown["id"], "delete"),
        ("event.deleted", private["id"], "delete"),
    ]
    for message, body in sent:
        if body["data"]["action"] == "upsert":
            continue
        assert list(body["data"]) == ["id", "type", "action", "rest_url"], body
        raw = bytes(message.payload)
        for word in (*HIDDEN, "Author's secret", "Board only", "Shown", draft["slug"]):
            assert word.encode() not in raw


# -- item routes and feeds ------------------------------------------------------------------


def test_item_routes_keep_the_403_and_the_feed_keeps_no_content(api: Api) -> None:
    locked = protected(api, title="Locked")
    for path in (
        f"/events/{locked['id']}",
        f"/events/by-slug/{locked['slug']}",
        f"/events/{locked['id']}.ics",
    ):
        for role in (None, "author", "administrator"):
            assert_wp_error(api.get(path, role), 403, "event-password-protected")
    calendar = {"Accept": "text/calendar"}
    assert_wp_error(
        api.get(f"/events/{locked['id']}", headers=calendar), 403, "event-password-protected"
    )
    unlocked = api.get(f"/events/{locked['id']}.ics", query_string={"password": PASSWORD})
    assert unlocked.status_code == 200 and b"Backstage words" in unlocked.get_data()
    feed = api.get("/events.ics").get_data(as_text=True)
    assert "SUMMARY:Locked" in feed
    for line in ("DESCRIPTION", "LOCATION", "ORGANIZER", "CATEGORIES"):
        assert f"\n{line}" not in feed
    assert not any(word in feed for word in HIDDEN)


@pytest.mark.parametrize("as_", [None, "subscriber", "contributor2", "author2"])
def test_unpublished_protected_events_stay_hidden_on_every_path(api: Api, as_: Role) -> None:
    hidden = [
        protected(api, "author", title="Author's secret", status="draft"),
        protected(api, "contributor", title="Contributor's secret", status="pending"),
        protected(api, title="Board only", status="private"),
    ]
    binned = protected(api, title="Binned")
    shown = protected(api, title="Was shown")
    _, token = walk(api, as_)
    api.delete(f"/events/{binned['id']}", "administrator")
    api.patch(f"/events/{shown['id']}", "administrator", json={"status": "draft"})
    hidden += [binned, shown]
    numbers = {event["id"] for event in hidden}
    assert not numbers & {entry["id"] for entry in walk(api, as_, types="event")[0]}
    later, _ = walk(api, as_, sync_token=token)
    assert [(e["id"], e["action"]) for e in later] == [
        (binned["id"], "delete"),
        (shown["id"], "delete"),
    ]
    assert all(list(entry) == ENTRY_KEYS for entry in later)
    assert not numbers & set(listed_events(api, as_))
    include = ",".join(str(number) for number in sorted(numbers))
    assert listed_events(api, as_, include=include) == {}
    feed = api.get("/events.ics", as_).get_data(as_text=True)
    for event in hidden:
        assert event["title"] not in feed
        for path in (f"/events/{event['id']}", f"/events/{event['id']}.ics"):
            answer = api.get(path, as_, query_string={"password": PASSWORD})
            assert answer.status_code in (401, 403)
            assert answer.json["code"] != "event-password-protected"
