"""Scheduled publishing (security.md D1-D4), with an injected clock instead of sleeping.

Protects: ``date_utc``/``date`` writable on events, venues and organizers, each derived
from the other in the site time zone (D1); a publisher writing with a future date
schedules (``future``), a past ``future`` date publishes, contributors never schedule
(D2); a due record is ``publish`` for every caller on every read path and in storage
(D3, audit finding "future events never publish"); and no cached answer, in this
process or another one on the same database, outlives the publication (D4).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import typing as t

import pytest
from conftest import ALL_ROLES, ANONYMOUS, Api, Role, api_for, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.models import Event, Organizer, PostModel, Venue, bind_models

START = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
#: the publication date of the scheduled records: later on START's day (so that the
#: response cache, whose keys hold the day, is invalidated by the publication alone)
DUE = "2026-03-01 18:00:00"
DUE_AT = dt.datetime(2026, 3, 1, 18, 0, tzinfo=dt.timezone.utc)
#: an event slot inside the default window seen from START and from DUE
SLOT = {"start_date": "2026-04-01 19:00:00", "end_date": "2026-04-01 21:00:00"}
PUBLISHERS = ("author", "editor", "administrator")
KINDS = {"events": Event, "venues": Venue, "organizers": Organizer}
NAMES = {"events": "title", "venues": "venue", "organizers": "organizer"}
Json = dict[str, t.Any]


def clocked(api: Api, sibling_app: t.Callable[..., Application], **settings: t.Any) -> Api:
    """A client of an app on the same database whose clock stands at START (moved
    through ``client.app.clock``)."""
    return api_for(sibling_app(clock=ManualClock(START), **settings), api)


def clock_of(client: Api) -> ManualClock:
    clock = client.app.clock
    assert isinstance(clock, ManualClock)
    return clock


def record_body(kind: str, name: str, **fields: t.Any) -> dict[str, t.Any]:
    body = {NAMES[kind]: name, **fields}
    return {**SLOT, **body} if kind == "events" else body


def create(client: Api, kind: str, name: str, as_: str = "administrator", **fields: t.Any) -> Json:
    response = client.post(f"/{kind}", as_, json=record_body(kind, name, **fields))
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.json


def stored_status(app: Application, model: type[PostModel], record_id: int) -> str:
    """The status in the database, read directly (not through the API)."""
    bind_models(app.database, app.login_store)
    with app.database.connection_context():
        return str(model.get_by_id(record_id).status)


# -- D1: date_utc and date ---------------------------------------------------------------

#: (sent, expected date, expected date_utc) with the site in Europe/Paris (UTC+1 in
#: winter), each field sent alone, across midnight too
DATE_PAIRS = [
    ({"date_utc": "2026-01-15 09:30:00"}, "2026-01-15 10:30:00", "2026-01-15 09:30:00"),
    ({"date": "2026-01-15 10:30:00"}, "2026-01-15 10:30:00", "2026-01-15 09:30:00"),
    ({"date_utc": "2026-02-20 22:00:00"}, "2026-02-20 23:00:00", "2026-02-20 22:00:00"),
    ({"date": "2026-02-21 00:15:00"}, "2026-02-21 00:15:00", "2026-02-20 23:15:00"),
]
KIND = pytest.mark.parametrize("kind", list(KINDS))
#: a publisher's requested status: none (publish by default), publish, future
STATUSES: list[str | None] = [None, "publish", "future"]


@KIND
def test_date_or_date_utc_sent_on_create_derives_the_other_in_the_site_time_zone(
    api: Api, sibling_app: t.Callable[..., Application], kind: str
) -> None:
    client = clocked(api, sibling_app, timezone="Europe/Paris")
    for sent, date, date_utc in DATE_PAIRS:
        created = create(client, kind, f"Dated {date_utc}", **sent)
        assert (created["date"], created["date_utc"]) == (date, date_utc), sent
        read = client.get(f"/{kind}/{created['id']}", "administrator").json
        assert (read["date"], read["date_utc"]) == (date, date_utc), sent


@KIND
def test_date_or_date_utc_sent_on_update_derives_the_other_in_the_site_time_zone(
    api: Api, sibling_app: t.Callable[..., Application], kind: str
) -> None:
    client = clocked(api, sibling_app, timezone="Europe/Paris")
    created = create(client, kind, "Redated")
    assert created["date_utc"] == "2026-03-01 12:00:00"  # the clock's now by default
    assert created["date"] == "2026-03-01 13:00:00"
    for sent, date, date_utc in DATE_PAIRS:
        updated = client.patch(f"/{kind}/{created['id']}", "administrator", json=sent)
        assert updated.status_code == 200, updated.get_data(as_text=True)
        assert (updated.json["date"], updated.json["date_utc"]) == (date, date_utc), sent
        read = client.get(f"/{kind}/{created['id']}", "administrator").json
        assert (read["date"], read["date_utc"]) == (date, date_utc), sent


@KIND
def test_summer_time_is_applied_when_deriving_the_other_date(
    api: Api, sibling_app: t.Callable[..., Application], kind: str
) -> None:
    client = clocked(api, sibling_app, timezone="Europe/Paris")
    from_utc = create(client, kind, "Summer UTC", date_utc="2026-07-01 09:30:00")
    from_local = create(client, kind, "Summer local", date="2026-07-01 11:30:00")
    for created in (from_utc, from_local):
        assert (created["date"], created["date_utc"]) == (
            "2026-07-01 11:30:00",
            "2026-07-01 09:30:00",
        )


# -- D2: scheduling ------------------------------------------------------------------


@KIND
@pytest.mark.parametrize("role", PUBLISHERS)
def test_a_publisher_writing_a_future_date_schedules_the_record(
    api: Api, sibling_app: t.Callable[..., Application], kind: str, role: str
) -> None:
    client = clocked(api, sibling_app)
    for status in STATUSES:
        fields = {"date_utc": DUE} if status is None else {"date_utc": DUE, "status": status}
        created = create(client, kind, f"Scheduled {status}", as_=role, **fields)
        assert created["status"] == "future", status
        assert stored_status(client.app, KINDS[kind], created["id"]) == "future", status


@KIND
@pytest.mark.parametrize("role", PUBLISHERS)
def test_an_update_to_a_future_date_schedules_a_published_record(
    api: Api, sibling_app: t.Callable[..., Application], kind: str, role: str
) -> None:
    client = clocked(api, sibling_app)
    created = create(client, kind, "Published", as_=role)
    assert created["status"] == "publish"
    updated = client.patch(f"/{kind}/{created['id']}", role, json={"date_utc": DUE})
    assert updated.status_code == 200, updated.get_data(as_text=True)
    assert updated.json["status"] == "future"
    assert stored_status(client.app, KINDS[kind], created["id"]) == "future"


@KIND
@pytest.mark.parametrize("role", PUBLISHERS)
def test_status_future_with_a_past_date_stores_publish(
    api: Api, sibling_app: t.Callable[..., Application], kind: str, role: str
) -> None:
    client = clocked(api, sibling_app)
    for fields in ({"date_utc": "2026-02-01 08:00:00"}, {}):  # dated in the past, or now
        created = create(client, kind, f"Past {len(fields)}", as_=role, status="future", **fields)
        assert created["status"] == "publish"
        assert stored_status(client.app, KINDS[kind], created["id"]) == "publish"


@KIND
def test_a_contributor_cannot_schedule(
    api: Api, sibling_app: t.Callable[..., Application], kind: str
) -> None:
    client = clocked(api, sibling_app)
    model = KINDS[kind]
    proposed = []
    for status in STATUSES:
        fields = {"date_utc": DUE} if status is None else {"date_utc": DUE, "status": status}
        created = create(client, kind, f"Proposed {status}", as_="contributor", **fields)
        assert created["status"] in ("draft", "pending"), status
        assert stored_status(client.app, model, created["id"]) == created["status"]
        proposed.append(created)
    clock_of(client).set(DUE_AT + dt.timedelta(days=1))  # their date passes: still unpublished
    for created in proposed:
        read = client.get(f"/{kind}/{created['id']}", "contributor")
        assert read.status_code == 200 and read.json["status"] == created["status"]
        assert stored_status(client.app, model, created["id"]) == created["status"]


# -- D3: publication on every read path ---------------------------------------------------


@dataclasses.dataclass
class Schedule:
    """One scheduled event linked to a published venue, organizer and category, plus a
    scheduled venue and organizer of their own, all due at DUE."""

    client: Api
    event: Json
    venue: Json
    organizer: Json
    category: Json
    future_venue: Json
    future_organizer: Json

    @property
    def clock(self) -> ManualClock:
        return clock_of(self.client)


def schedule(api: Api, sibling_app: t.Callable[..., Application]) -> Schedule:
    client = clocked(api, sibling_app)
    venue = create(client, "venues", "Harbour Hall")
    organizer = create(client, "organizers", "Quay Society")
    event = create(
        client,
        "events",
        "Zanzibar Quartet",
        date_utc=DUE,
        venue=venue["id"],
        organizer=[organizer["id"]],
        categories=["Harbourjazz"],
    )
    future_venue = create(client, "venues", "Lantern Depot", date_utc=DUE)
    future_organizer = create(client, "organizers", "Lantern Guild", date_utc=DUE)
    for record in (event, future_venue, future_organizer):
        assert record["status"] == "future"
    (category,) = event["categories"]
    return Schedule(client, event, venue, organizer, category, future_venue, future_organizer)


def listed_ids(response: TestResponse, key: str) -> list[int]:
    assert response.status_code == 200, response.get_data(as_text=True)
    return [item["id"] for item in response.json[key]]


def published_item(response: TestResponse, key: str, record_id: int) -> bool:
    """Whether the list answer holds ``record_id`` as a published record."""
    if response.status_code != 200:
        return False
    items = [item for item in response.json[key] if item["id"] == record_id]
    return [item["status"] for item in items] == ["publish"]


#: every read path of a scheduled event, venue or organizer: a check that it is shown
#: published to ``role``
ReadPath = t.Callable[[Schedule, Role], bool]


def _single(kind: str, field: str, key: str) -> ReadPath:
    def check(s: Schedule, role: Role) -> bool:
        record = getattr(s, field)
        path = f"/{kind}/{record[key]}" if key == "id" else f"/{kind}/by-slug/{record['slug']}"
        response = s.client.get(path, role)
        return response.status_code == 200 and response.json["status"] == "publish"

    return check


def _default_list(s: Schedule, role: Role) -> bool:
    response = s.client.get("/events", role)
    return published_item(response, "events", s.event["id"]) and (
        response.headers["X-WP-Total"] == "1"
    )


def _search(s: Schedule, role: Role) -> bool:
    response = s.client.get("/events", role, query_string={"search": "zanzibar"})
    return published_item(response, "events", s.event["id"])


def _include(s: Schedule, role: Role) -> bool:
    response = s.client.get("/events", role, query_string={"include": s.event["id"]})
    return published_item(response, "events", s.event["id"])


def _linked_by_event(kind: str, field: str) -> ReadPath:
    def check(s: Schedule, role: Role) -> bool:
        response = s.client.get(f"/{kind}", role, query_string={"event": s.event["id"]})
        return response.status_code == 200 and listed_ids(response, kind) == [
            getattr(s, field)["id"]
        ]

    return check


def _categories_of_post(s: Schedule, role: Role) -> bool:
    response = s.client.get("/categories", role, query_string={"post": s.event["id"]})
    return response.status_code == 200 and listed_ids(response, "categories") == [s.category["id"]]


def _category_count(s: Schedule, role: Role) -> bool:
    single = s.client.get(f"/categories/{s.category['id']}", role)
    listing = s.client.get("/categories", role)  # hide_empty: listed once it counts
    counted = [term["count"] for term in listing.json["categories"]]
    return single.json["count"] == 1 and counted == [1]


def _linked_list(kind: str, field: str) -> ReadPath:
    def check(s: Schedule, role: Role) -> bool:
        return published_item(s.client.get(f"/{kind}", role), kind, getattr(s, field)["id"])

    return check


def _linked_search(kind: str, field: str, word: str) -> ReadPath:
    def check(s: Schedule, role: Role) -> bool:
        response = s.client.get(f"/{kind}", role, query_string={"search": word})
        return published_item(response, kind, getattr(s, field)["id"])

    return check


READ_PATHS: dict[str, ReadPath] = {
    "event by id": _single("events", "event", "id"),
    "event by slug": _single("events", "event", "slug"),
    "default event list and X-WP-Total": _default_list,
    "event search": _search,
    "event include": _include,
    "venues?event=": _linked_by_event("venues", "venue"),
    "organizers?event=": _linked_by_event("organizers", "organizer"),
    "categories?post=": _categories_of_post,
    "category count": _category_count,
    "venue by id": _single("venues", "future_venue", "id"),
    "venue by slug": _single("venues", "future_venue", "slug"),
    "venue list": _linked_list("venues", "future_venue"),
    "venue search": _linked_search("venues", "future_venue", "lantern"),
    "organizer by id": _single("organizers", "future_organizer", "id"),
    "organizer by slug": _single("organizers", "future_organizer", "slug"),
    "organizer list": _linked_list("organizers", "future_organizer"),
    "organizer search": _linked_search("organizers", "future_organizer", "lantern"),
}


def test_nothing_scheduled_is_shown_published_before_its_date(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    s = schedule(api, sibling_app)
    s.clock.set(DUE_AT - dt.timedelta(seconds=1))
    for name, shown in READ_PATHS.items():
        for role in (ANONYMOUS, "subscriber", "contributor", "author"):  # cannot read it
            assert not shown(s, role), (name, role)
    assert_wp_error(s.client.get(f"/events/{s.event['id']}"), 403, "event-not-accessible")
    assert s.client.get("/events").headers["X-WP-Total"] == "0"
    for role in ("editor", "administrator"):
        assert s.client.get(f"/events/{s.event['id']}", role).json["status"] == "future"


def test_regression_future_events_never_publish(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    """Audit finding "future events never publish": once the clock reaches
    ``date_utc``, the record is ``publish`` on every read path for every caller, and so
    is its stored status."""
    s = schedule(api, sibling_app)
    s.client.get("/events")  # the earliest publication date is now known to the app
    s.clock.set(DUE_AT)  # date_utc <= now
    for name, shown in READ_PATHS.items():
        for role in ALL_ROLES:
            assert shown(s, role), (name, role)
    for model, record in (
        (Event, s.event),
        (Venue, s.future_venue),
        (Organizer, s.future_organizer),
    ):
        assert stored_status(s.client.app, model, record["id"]) == "publish"


@pytest.mark.parametrize("first", list(READ_PATHS))
def test_the_first_read_after_the_date_publishes_whichever_path_it_takes(
    api: Api, sibling_app: t.Callable[..., Application], first: str
) -> None:
    s = schedule(api, sibling_app)
    s.client.get("/events")
    s.clock.set(DUE_AT + dt.timedelta(seconds=1))
    assert READ_PATHS[first](s, ANONYMOUS), first
    assert READ_PATHS[first](s, "subscriber"), first
    assert stored_status(s.client.app, Event, s.event["id"]) == "publish"


def test_publication_is_seen_by_an_app_that_never_read_the_schedule(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    """A process started after the record was scheduled publishes it as well."""
    s = schedule(api, sibling_app)
    late = api_for(sibling_app(clock=ManualClock(DUE_AT + dt.timedelta(minutes=5))), api)
    assert late.get(f"/events/{s.event['id']}").json["status"] == "publish"
    assert stored_status(late.app, Event, s.event["id"]) == "publish"


# -- D4: the response cache ---------------------------------------------------------------


def cache_hits(client: Api, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each look-up in the client app's response cache was a hit."""
    cache = client.app.cache
    assert cache is not None
    hits: list[bool] = []

    def spy(original: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
        def spied(*args: t.Any, **kwargs: t.Any) -> t.Any:
            found = original(*args, **kwargs)
            hits.append(found is not None)
            return found

        return spied

    for lookup in ("get", "peek"):  # the pipeline's, and the anonymous fast path's
        monkeypatch.setattr(cache, lookup, spy(getattr(cache, lookup)))
    return hits


#: (a cached read, the caller, whether it shows the scheduled event as published)
CACHED_READS: list[tuple[str, Role, t.Callable[[Schedule, TestResponse], bool]]] = [
    ("/events", ANONYMOUS, lambda s, r: published_item(r, "events", s.event["id"])),
    (
        "/events?search=zanzibar",
        ANONYMOUS,
        lambda s, r: published_item(r, "events", s.event["id"]),
    ),
    ("/categories", ANONYMOUS, lambda s, r: listed_ids(r, "categories") == [s.category["id"]]),
    ("/venues", ANONYMOUS, lambda s, r: published_item(r, "venues", s.future_venue["id"])),
    (
        "/events/{event}",
        "administrator",
        lambda s, r: r.status_code == 200 and r.json["status"] == "publish",
    ),
]
CACHED = pytest.mark.parametrize(
    ("path", "role", "shown"), CACHED_READS, ids=[f"{p} {r}" for p, r, _ in CACHED_READS]
)


@CACHED
def test_a_cached_answer_does_not_outlive_the_publication(
    api: Api,
    sibling_app: t.Callable[..., Application],
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    role: Role,
    shown: t.Callable[[Schedule, TestResponse], bool],
) -> None:
    s = schedule(api, sibling_app)
    path = path.format(event=s.event["id"])
    hits = cache_hits(s.client, monkeypatch)
    first = s.client.get(path, role)
    second = s.client.get(path, role)
    assert hits[-1] is True, "the second read is a cache hit"
    assert second.get_data() == first.get_data() and not shown(s, second)
    s.clock.set(DUE_AT)
    assert shown(s, s.client.get(path, role))


@CACHED
def test_a_publication_by_one_process_reaches_the_cache_of_another(
    api: Api,
    sibling_app: t.Callable[..., Application],
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    role: Role,
    shown: t.Callable[[Schedule, TestResponse], bool],
) -> None:
    """Two apps on one database stand for two server processes, each with its own
    clock at the same time: the second sees the first one's publication through the
    write generation (it publishes nothing itself)."""
    s = schedule(api, sibling_app)
    path = path.format(event=s.event["id"])
    other = api_for(sibling_app(clock=ManualClock(START)), api)
    hits = cache_hits(other, monkeypatch)
    other.get(path, role)
    assert not shown(s, other.get(path, role)) and hits[-1] is True
    writes: list[str] = []
    original = other.app.database.execute_sql

    def recording(sql: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        if re.match(r'UPDATE [`"](event|venue|organizer|site_state)[`"]', sql.lstrip()):
            writes.append(sql)
        return original(sql, *args, **kwargs)

    monkeypatch.setattr(other.app.database, "execute_sql", recording)
    s.clock.set(DUE_AT)
    clock_of(other).set(DUE_AT)
    s.client.get("/")  # the first process serves a request: it publishes
    assert stored_status(s.client.app, Event, s.event["id"]) == "publish"
    assert shown(s, other.get(path, role))
    assert writes == [], "the second process had nothing left to publish"
