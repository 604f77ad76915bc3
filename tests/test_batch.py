"""``POST /batch/v1`` (anchors.md §2): WordPress 5.6's batch of writes, each item
answered as the single request would be, and ``"atomic": true`` (all or nothing).
"""

from __future__ import annotations

import datetime as dt
import typing as t

import peewee
import pytest
from conftest import ALL_ROLES, NS, Api, api_for, assert_wp_error
from webhook_helpers import messages, subscribe
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.edge import writes as write_pipeline
from calendar_rest.edge.cache import CACHE_HEADER
from calendar_rest.models import ChangeEntry, Event

Body = dict[str, t.Any]
Build = t.Callable[..., Application]
TARGET = "http://127.0.0.1:9/hook"
DAY = (dt.date.today() + dt.timedelta(days=30)).isoformat()


def batch(
    api: Api,
    requests: list[Body],
    as_: str | None = "administrator",
    root: str = "",
    **extra: t.Any,
) -> TestResponse:
    """``POST {root}/batch/v1`` with these requests (and ``validation``, ``atomic``)."""
    body = {"requests": requests, **extra}
    return api.client.open(f"{root}/batch/v1", method="POST", headers=api.headers(as_), json=body)


def create(title: str, path: str = f"{NS}/events", **fields: t.Any) -> Body:
    """An item creating an event on ``DAY``."""
    body = {"title": title, "start_date": f"{DAY} 19:00:00", "end_date": f"{DAY} 21:00:00"}
    return {"path": path, "body": {**body, **fields}}


def answers(response: TestResponse) -> list[Body]:
    assert response.status_code == 207, response.get_data(as_text=True)
    return t.cast(list[Body], response.json["responses"])


def statuses(response: TestResponse) -> list[int]:
    return [item["status"] for item in answers(response)]


def count(app: Application, model: type[peewee.Model]) -> int:
    with app.database.connection_context():
        return int(model.select().count())


@pytest.fixture
def hooks(api: Api, sibling_app: Build) -> Api:
    """The API of a server accepting private webhook targets."""
    return api_for(sibling_app(webhook_allow_private=True), api)


# -- WordPress's semantics -------------------------------------------------------------


def test_each_item_is_answered_as_the_single_request_in_order(api: Api) -> None:
    """207 with ``{"body", "status", "headers"}`` per item, in request order; each
    created event exists, with the answer a single create gives (its ETag, the discovery link)."""
    response = batch(api, [create("First"), create("Second")])
    first, second = answers(response)
    assert list(first) == ["body", "status", "headers"]
    assert (first["status"], second["status"]) == (201, 201)
    assert [first["body"]["title"], second["body"]["title"]] == ["First", "Second"]
    for item in (first, second):
        event_id = item["body"]["id"]
        assert 'rel="https://api.w.org/"' in item["headers"]["Link"]
        single = api.get(f"/events/{event_id}")
        assert single.status_code == 200 and single.json["title"] == item["body"]["title"]
        assert item["headers"]["ETag"] == single.headers["ETag"]
    assert response.headers["Allow"] == "POST"
    assert response.headers["Content-Type"] == "application/json; charset=UTF-8"


def test_items_are_independent_without_atomic(api: Api, app: Application) -> None:
    """A failing item answers its own error; the others are written."""
    response = batch(api, [create("Kept"), create(""), create("Also kept")])
    kept, refused, also = answers(response)
    assert (kept["status"], refused["status"], also["status"]) == (201, 400, 201)
    assert refused["body"]["code"] == "rest_invalid_param"
    assert list(refused["body"]) == ["code", "message", "data"]
    assert count(app, Event) == 2


def test_require_all_validate_writes_nothing_when_one_item_fails(
    api: Api, app: Application
) -> None:
    """WordPress's ``{"failed": "validation", "responses": [...]}``: the failures'
    answers, ``null`` for the others, and nothing written."""
    changes = count(app, ChangeEntry)
    response = batch(
        api,
        [create("Valid"), create(""), {"path": f"{NS}/nowhere"}],
        validation="require-all-validate",
    )
    assert response.status_code == 207
    assert response.json["failed"] == "validation"
    valid, invalid, unknown = response.json["responses"]
    assert valid is None
    assert (invalid["status"], invalid["body"]["code"]) == (400, "rest_invalid_param")
    assert (unknown["status"], unknown["body"]["code"]) == (404, "rest_no_route")
    assert count(app, Event) == 0 and count(app, ChangeEntry) == changes
    passing = batch(api, [create("One"), create("Two")], validation="require-all-validate")
    assert statuses(passing) == [201, 201] and "failed" not in passing.json


@pytest.mark.parametrize("role", ALL_ROLES)
def test_each_role_gets_inside_a_batch_what_it_gets_alone(api: Api, role: str | None) -> None:
    """The batch's credentials apply to every item, with each item's own permission."""
    target = api.create_event(title="Someone's")
    single = [
        api.post("/events", role, json=create("Alone")["body"]).status_code,
        api.patch(f"/events/{target['id']}", role, json={"title": "x"}).status_code,
    ]
    items = [create("Batched"), {"method": "PATCH", "path": f"{NS}/events/{target['id']}"}]
    items[1]["body"] = {"title": "x"}
    assert statuses(batch(api, items, role)) == single


def test_if_match_in_an_item_s_headers_is_its_precondition(api: Api) -> None:
    record = api.create_event(title="Tagged")
    tag = api.get(f"/events/{record['id']}").headers["ETag"]
    path = f"{NS}/events/{record['id']}"
    stale = {"method": "PUT", "path": path, "body": {"title": "B"}, "headers": {"If-Match": '"x"'}}
    fresh = {"method": "PUT", "path": path, "body": {"title": "A"}, "headers": {"If-Match": tag}}
    refused, written = answers(batch(api, [stale, fresh]))
    assert (refused["status"], refused["body"]["code"]) == (412, "rest_precondition_failed")
    assert written["status"] == 200 and written["body"]["title"] == "A"
    assert api.get(f"/events/{record['id']}").json["title"] == "A"
    again = {**fresh, "body": {"title": "C"}}  # the tag is stale now
    assert statuses(batch(api, [again])) == [412]


def test_only_write_methods_of_this_api_are_batched(api: Api) -> None:
    """GET is refused in the list (405), a route of the site root (a batch in a
    batch, the index) 400, a path or method no route serves 404, as alone."""
    record = api.create_event(title="Read")
    items: list[Body] = [
        {"method": "GET", "path": f"{NS}/events/{record['id']}"},
        {"path": "/batch/v1", "body": {"requests": [create("Nested")]}},
        {"path": "/"},
        {"path": f"{NS}/nowhere"},
        {"method": "DELETE", "path": f"{NS}/events"},
        create("Still written"),
    ]
    got = answers(batch(api, items))
    codes = [(item["status"], item["body"]["code"]) for item in got[:5]]
    assert codes == [
        (405, "rest_batch_not_allowed"),
        (400, "rest_batch_not_allowed"),
        (400, "rest_batch_not_allowed"),
        (404, "rest_no_route"),
        (404, "rest_no_route"),
    ]
    assert got[5]["status"] == 201


def test_method_overrides_do_not_apply_inside(api: Api, app: Application) -> None:
    """``_method`` and ``X-HTTP-Method-Override`` in an item are not read: it is the
    method it names."""
    record = api.create_event(title="Stays")
    path = f"{NS}/events/{record['id']}"
    items = [
        {**create("By query"), "path": f"{NS}/events?_method=DELETE"},
        {"method": "PATCH", "path": path, "body": {"title": "Patched"}},
    ]
    items[1]["headers"] = {"X-HTTP-Method-Override": "DELETE"}
    assert statuses(batch(api, items)) == [201, 200]
    assert api.get(f"/events/{record['id']}").json["title"] == "Patched"


def test_the_item_query_and_the_french_root(api: Api) -> None:
    """Paths carry their query (``_fields``) and may go through ``/fr``; the batch
    itself may be sent to ``/fr/batch/v1``."""
    items = [
        {**create("Fields"), "path": f"{NS}/events?_fields=id,title"},
        create("", path=f"/fr{NS}/events"),
        create("French", path=f"/fr{NS}/events"),
    ]
    fields, refused, french = answers(batch(api, items, root="/fr"))
    assert list(fields["body"]) == ["id", "title"]
    assert refused["body"]["message"].startswith("Paramètre")
    assert french["status"] == 201
    assert french["body"]["rest_url"].startswith(f"http://localhost/fr{NS}/events/")
    in_english = answers(batch(api, [create("")]))[0]
    assert in_english["body"]["message"].startswith("Invalid parameter")


def test_item_paths_queries_and_headers_beyond_ascii(api: Api) -> None:
    """An item is handed on as a server would hand on a request (PEP 3333): its path
    percent-decoded, every text as its UTF-8 bytes; characters beyond Latin-1 were a
    500 (found by the schemathesis run of ``/batch/v1``)."""
    tag = {"path": f"{NS}/tags", "body": {"name": "Café"}}
    items = [
        {"path": f"{NS}/events/é", "body": {}},
        {"path": f"{NS}/tags?name=Thé", "body": {}},
        {**tag, "headers": {"X-Note": "naïve ☕"}},
        {"path": f"{NS}/tag%73", "body": {"name": "Encoded path"}},
    ]
    not_found, by_query, with_header, decoded = answers(batch(api, items))
    assert not_found["status"] == 404 and not_found["body"]["code"] == "rest_no_route"
    assert by_query["status"] == 201 and by_query["body"]["name"] == "Thé"
    assert with_header["status"] == 201 and with_header["body"]["name"] == "Café"
    assert decoded["status"] == 201 and decoded["body"]["name"] == "Encoded path"


def test_at_most_batch_max_requests(api: Api, app: Application, sibling_app: Build) -> None:
    """25 by default (WordPress's); one more is 400 ``rest_batch_max_requests``."""
    assert statuses(batch(api, [create(f"E{i}") for i in range(25)])) == [201] * 25
    over = batch(api, [create(f"F{i}") for i in range(26)])
    assert_wp_error(over, 400, "rest_batch_max_requests")
    assert count(app, Event) == 25
    small = api_for(sibling_app(batch_max_requests=2), api)
    assert_wp_error(
        batch(small, [create("a"), create("b"), create("c")]), 400, "rest_batch_max_requests"
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "rest_missing_callback_param"),
        ({"requests": "no"}, "rest_invalid_param"),
        ({"requests": [{"method": "POST"}]}, "rest_invalid_param"),
        ({"requests": [], "validation": "strict"}, "rest_invalid_param"),
    ],
)
def test_an_invalid_batch_is_refused_whole(api: Api, body: Body, code: str) -> None:
    response = api.client.open(
        "/batch/v1", method="POST", headers=api.headers("administrator"), json=body
    )
    assert_wp_error(response, 400, code)


def test_get_is_no_route_and_anonymous_batches_answer_per_item(api: Api) -> None:
    assert_wp_error(api.client.get("/batch/v1"), 404, "rest_no_route")
    anonymous = answers(batch(api, [create("Nobody")], as_=None))
    assert (anonymous[0]["status"], anonymous[0]["body"]["code"]) == (401, "rest_forbidden")


# -- all or nothing --------------------------------------------------------------------


def test_an_atomic_batch_whose_tenth_item_fails_leaves_no_trace(
    hooks: Api, app: Application
) -> None:
    """Records, change log and webhook outbox: nothing of the first nine remains; the
    failure is answered with 424 ``rest_batch_failed_dependency`` for the others."""
    subscription = subscribe(hooks, TARGET, ["*"])
    token = hooks.get("/changes").json["sync_token"]
    events, changes = count(app, Event), count(app, ChangeEntry)
    items = [create(f"Event {i}") for i in range(9)] + [create(""), create("Never run")]
    got = answers(batch(hooks, items, atomic=True))
    assert [item["status"] for item in got] == [424] * 9 + [400, 424]
    assert got[9]["body"]["code"] == "rest_invalid_param"
    dependency = got[0]
    assert dependency["body"]["code"] == "rest_batch_failed_dependency"
    assert dependency["body"]["data"] == {"status": 424, "failed_request": 9}
    assert dependency["headers"] == {}
    assert count(app, Event) == events and count(app, ChangeEntry) == changes
    assert messages(app, subscription["id"]) == []
    later = hooks.get("/changes", query_string={"sync_token": token}).json
    assert later["changes"] == []
    assert hooks.get("/events").json["total"] == 0


def test_an_atomic_batch_writes_everything_with_its_outbox(hooks: Api, app: Application) -> None:
    subscription = subscribe(hooks, TARGET, ["event.created"])
    record = hooks.create_event(title="Before")
    path = f"{NS}/events/{record['id']}"
    items = [create("A"), create("B"), {"method": "PATCH", "path": path, "body": {"title": "C"}}]
    got = answers(batch(hooks, items, atomic=True))
    assert [item["status"] for item in got] == [201, 201, 200]
    assert hooks.get(f"/events/{record['id']}").json["title"] == "C"
    assert len(messages(app, subscription["id"])) == 3  # Before, A, B
    for item in got[:2]:
        shown = hooks.get(f"/events/{item['body']['id']}")
        assert shown.headers["ETag"] == item["headers"]["ETag"]


def test_an_atomic_batch_that_loses_a_race_is_replayed_whole(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transient failure in the third item rolls back the first two and replays the
    batch: each event once."""
    original = write_pipeline.Writes.run
    calls: list[int] = []

    def flaky(self: t.Any, *args: t.Any, **kwargs: t.Any) -> t.Any:
        calls.append(1)
        if len(calls) == 3:
            raise peewee.OperationalError("database is locked")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(write_pipeline.Writes, "run", flaky)
    got = answers(batch(api, [create("X"), create("Y"), create("Z")], atomic=True))
    assert [item["status"] for item in got] == [201, 201, 201]
    assert len(calls) == 6
    assert sorted(e["title"] for e in api.get("/events", "administrator").json["events"]) == [
        "X",
        "Y",
        "Z",
    ]


def test_atomic_with_require_all_validate_checks_first(api: Api, app: Application) -> None:
    response = batch(api, [create("A"), create("")], atomic=True, validation="require-all-validate")
    assert response.json["failed"] == "validation"
    assert response.json["responses"][0] is None
    assert count(app, Event) == 0


# -- the cache and the descriptions ----------------------------------------------------


def test_batch_writes_invalidate_the_cache_and_are_never_cached(api: Api) -> None:
    assert api.get("/events").headers.get(CACHE_HEADER) == "miss"
    assert api.get("/events").headers.get(CACHE_HEADER) == "hit"
    response = batch(api, [create("New")])
    assert CACHE_HEADER not in response.headers
    fresh = api.get("/events")
    assert fresh.headers.get(CACHE_HEADER) == "miss"
    assert [event["title"] for event in fresh.json["events"]] == ["New"]
    again = batch(api, [create("Newer")])
    assert statuses(again) == [201]
    assert len(api.get("/events").json["events"]) == 2


def test_the_index_options_and_doc_describe_the_route(api: Api) -> None:
    index = api.client.get("/").json
    assert index["namespaces"] == ["calendar/events/v1", "batch/v1"]
    route = index["routes"]["/batch/v1"]
    assert route["namespace"] == "batch/v1" and route["methods"] == ["POST"]
    assert list(route["endpoints"][0]["args"]) == ["validation", "requests", "atomic"]
    assert route["endpoints"][0]["args"]["requests"]["required"] is True
    assert route["_links"]["self"][0]["href"] == "http://localhost/batch/v1"
    options = api.client.options("/batch/v1")
    assert options.status_code == 200 and options.headers["Allow"] == "POST"
    assert options.json["endpoints"] == route["endpoints"]
    french = api.client.get("/fr/").json["routes"]["/batch/v1"]
    assert french["_links"]["self"][0]["href"] == "http://localhost/fr/batch/v1"
    doc = api.get("/doc").json
    item = doc["paths"]["/batch/v1"]
    assert item["post"]["servers"] == [{"url": "http://localhost"}]
    assert item["post"]["operationId"] == "post_batch_index"
    assert "207" in item["post"]["responses"]


def test_cors_refusal_and_the_body_limit_apply_to_the_batch(
    api: Api, app: Application, sibling_app: Build
) -> None:
    """A page of another origin may not write through a batch (403), and a batch over
    ``max_body_bytes`` is a 413, as a single write would be; nothing is written."""
    headers = {**api.headers("administrator"), "Origin": "https://elsewhere.example"}
    refused = api.client.open(
        "/batch/v1", method="POST", headers=headers, json={"requests": [create("No")]}
    )
    assert_wp_error(refused, 403, "rest_cors_origin_not_allowed")
    small = api_for(sibling_app(max_body_bytes=400), api)
    too_large = batch(small, [create(f"Too large {i}") for i in range(3)])
    assert_wp_error(too_large, 413, "rest_payload_too_large")
    assert count(app, Event) == 0
