"""Conditional requests (``sync.md`` §1 and §6): ETag and Last-Modified on reads, 304s
(response cache and anonymous fast path included), and conditional writes: If-Match,
If-Unmodified-Since and If-None-Match, their order among the other checks, that a
failed one writes nothing, and that of two racing writes with one tag exactly one wins.
"""

from __future__ import annotations

import collections
import concurrent.futures
import datetime as dt
import hashlib
import http.client
import json
import re
import threading
import typing as t
import urllib.error
import urllib.request

import pytest
from conftest import NS, Api, api_for, assert_wp_error
from live_server import running
from werkzeug.http import http_date, parse_date
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.edge.cors import ALLOWED_HEADERS, EXPOSED_HEADERS
from calendar_rest.models import ChangeEntry, Event
from calendar_rest.queries.lookups.site_state import generation

Build = t.Callable[..., Application]
STRONG_TAG = re.compile(r'^"[0-9a-f]{32,}"$')
IMF_FIXDATE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$")
ADMIN = "administrator"
#: per collection: a create body, an update body, whether singles carry Last-Modified,
#: and whether the type has a by-slug route
KINDS: dict[str, tuple[dict[str, t.Any], dict[str, t.Any], bool, bool]] = {
    "events": ({}, {"title": "Renamed"}, True, True),
    "venues": ({"venue": "Blue Hall"}, {"venue": "Red Hall"}, True, True),
    "organizers": ({"organizer": "Trio"}, {"organizer": "Quartet"}, True, True),
    "categories": ({"name": "Music"}, {"name": "Songs"}, False, False),
    "tags": ({"name": "jazz"}, {"name": "blues"}, False, False),
}


def create(api: Api, collection: str, as_: str = ADMIN, **fields: t.Any) -> dict[str, t.Any]:
    if collection == "events":
        return api.create_event(as_, **fields)
    response = api.post(f"/{collection}", as_, json={**KINDS[collection][0], **fields})
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def single_paths(api: Api, collection: str, record: dict[str, t.Any]) -> list[str]:
    paths = [f"/{collection}/{record['id']}"]
    if KINDS[collection][3]:
        paths.append(f"/{collection}/by-slug/{record['slug']}")
    return paths


def write_state(app: Application) -> tuple[int, int]:
    """The write generation and the size of the change log: what any write moves."""
    with app.database.connection_context():
        return generation(), ChangeEntry.select().count()


def digest_tag(body: bytes) -> str:
    return f'"{hashlib.sha256(body).hexdigest()[:32]}"'


def tag_of(response: TestResponse) -> str:
    tag = response.headers.get("ETag")
    assert tag is not None and STRONG_TAG.match(tag), dict(response.headers)
    return tag


def assert_not_modified(response: TestResponse, etag: str, *, dated: bool) -> None:
    assert response.status_code == 304, response.get_data(as_text=True)
    assert response.get_data() == b""
    assert "Content-Type" not in response.headers
    assert response.headers["ETag"] == etag
    assert ("Last-Modified" in response.headers) is dated
    assert "Date" in response.headers
    assert "Origin" in response.headers.get("Vary", "")


@pytest.fixture
def records(api: Api) -> dict[str, dict[str, t.Any]]:
    """One published record of each type, created by the administrator."""
    return {collection: create(api, collection) for collection in KINDS}


# -- ETag and Last-Modified on reads ------------------------------------------------------


def read_paths(records: dict[str, dict[str, t.Any]], api: Api) -> list[str]:
    paths = ["", "/doc"]
    for collection, record in records.items():
        paths += [f"/{collection}", *single_paths(api, collection, record)]
    return paths


@pytest.mark.parametrize("caller", [None, ADMIN])
def test_every_200_read_carries_a_strong_etag_and_head_the_same(
    api: Api, records: dict[str, dict[str, t.Any]], caller: str | None
) -> None:
    site = api.client.get("/", headers=api.headers(caller))
    assert site.status_code == 200
    tag_of(site)
    for path in read_paths(records, api):
        got = api.get(path, caller)
        assert got.status_code == 200, path
        head = api.request("HEAD", path, caller)
        assert head.status_code == 200 and head.get_data() == b""
        assert head.headers["ETag"] == tag_of(got), path
        for french in (api.get(f"/fr{NS}{path}", caller),):
            tag_of(french)


def test_list_tags_are_the_digest_of_the_exact_body_fields_included(
    api: Api, records: dict[str, dict[str, t.Any]]
) -> None:
    for path in ("/events", "/venues", "/tags", "/events?_fields=id,title", ""):
        response = api.get(path)
        assert response.headers["ETag"] == digest_tag(response.get_data()), path
    full, trimmed = api.get("/events"), api.get("/events?_fields=id,title")
    assert full.headers["ETag"] != trimmed.headers["ETag"]


def test_last_modified_is_on_post_singles_only(
    api: Api, records: dict[str, dict[str, t.Any]]
) -> None:
    for collection, record in records.items():
        for path in single_paths(api, collection, record):
            response = api.get(path)
            if KINDS[collection][2]:
                value = response.headers["Last-Modified"]
                assert IMF_FIXDATE.match(value), value
                modified = dt.datetime.strptime(response.json["modified_utc"], "%Y-%m-%d %H:%M:%S")
                assert value == http_date(modified.replace(tzinfo=dt.timezone.utc))
            else:
                assert "Last-Modified" not in response.headers, path
        assert "Last-Modified" not in api.get(f"/{collection}").headers
    assert "Last-Modified" not in api.get("").headers


def test_errors_carry_no_validators(api: Api) -> None:
    for response in (api.get("/events/999999"), api.get("/venues/999999"), api.get("/nowhere")):
        assert response.status_code >= 400
        assert "ETag" not in response.headers and "Last-Modified" not in response.headers


def test_tags_are_the_same_in_another_process_on_the_same_database(
    api: Api, records: dict[str, dict[str, t.Any]], sibling_app: Build
) -> None:
    other = api_for(sibling_app(), api)
    for caller in (None, ADMIN):
        for path in read_paths(records, api):
            mine, theirs = api.get(path, caller), other.get(path, caller)
            assert mine.get_data() == theirs.get_data(), path
            assert mine.headers["ETag"] == theirs.headers["ETag"], path
            assert mine.headers.get("Last-Modified") == theirs.headers.get("Last-Modified")


def test_callers_who_see_different_bodies_get_different_tags(api: Api) -> None:
    venue = create(api, "venues", venue="Secret Hall", status="draft")
    event = api.create_event(ADMIN, venue=venue["id"])
    public, private = api.get(f"/events/{event['id']}"), api.get(f"/events/{event['id']}", ADMIN)
    assert public.status_code == private.status_code == 200
    assert public.get_data() != private.get_data()
    assert public.headers["ETag"] != private.headers["ETag"]
    # and the same body for two callers is the same tag
    assert api.get(f"/tags/{create(api, 'tags')['id']}").headers["ETag"]


def test_a_write_in_the_same_second_changes_the_tag(api: Api, sibling_app: Build) -> None:
    clock = ManualClock(dt.datetime.now(dt.timezone.utc).replace(microsecond=0))
    client = api_for(sibling_app(clock=clock), api)
    for collection in KINDS:
        record = create(client, collection)
        path = f"/{collection}/{record['id']}"
        first = client.put(path, ADMIN, json=KINDS[collection][1])
        before = client.get(path, ADMIN)
        second = client.put(path, ADMIN, json=KINDS[collection][1])  # same values, same second
        after = client.get(path, ADMIN)
        assert first.status_code == second.status_code == 200
        assert before.get_data() == after.get_data(), collection  # nothing visible changed
        assert before.headers.get("Last-Modified") == after.headers.get("Last-Modified")
        assert tag_of(before) != tag_of(after), collection
        assert first.headers["ETag"] == before.headers["ETag"]
        assert second.headers["ETag"] == after.headers["ETag"]


# -- conditional reads --------------------------------------------------------------------


def test_if_none_match_answers_304_with_weak_comparison(
    api: Api, records: dict[str, dict[str, t.Any]]
) -> None:
    for collection, record in records.items():
        for path in [f"/{collection}", *single_paths(api, collection, record)]:
            got = api.get(path)
            tag = tag_of(got)
            dated = "Last-Modified" in got.headers
            for header in (tag, f'"nope", {tag}', f'  "a" ,{tag} ', f"W/{tag}", "*"):
                answer = api.get(path, headers={"If-None-Match": header})
                assert_not_modified(answer, tag, dated=dated)
                if dated:
                    assert answer.headers["Last-Modified"] == got.headers["Last-Modified"]
            other = api.get(path, headers={"If-None-Match": '"other", W/"x"'})
            assert other.status_code == 200 and other.get_data() == got.get_data()
            assert other.headers["ETag"] == tag


def test_head_gets_the_same_conditional_handling(api: Api) -> None:
    event = api.create_event()
    tag = tag_of(api.get(f"/events/{event['id']}"))
    head = api.request("HEAD", f"/events/{event['id']}", headers={"If-None-Match": tag})
    assert_not_modified(head, tag, dated=True)
    listed = tag_of(api.get("/events"))
    head = api.request("HEAD", "/events", headers={"If-None-Match": listed})
    assert_not_modified(head, listed, dated=False)
    assert "X-WP-Total" not in head.headers


def test_if_modified_since_only_where_last_modified_and_without_if_none_match(api: Api) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    got = api.get(path)
    modified = got.headers["Last-Modified"]
    earlier = http_date(t.cast(dt.datetime, parse_date(modified)) - dt.timedelta(seconds=1))
    later = http_date(t.cast(dt.datetime, parse_date(modified)) + dt.timedelta(days=1))
    assert_not_modified(
        api.get(path, headers={"If-Modified-Since": modified}), tag_of(got), dated=True
    )
    assert_not_modified(
        api.get(path, headers={"If-Modified-Since": later}), tag_of(got), dated=True
    )
    assert api.get(path, headers={"If-Modified-Since": earlier}).status_code == 200
    assert api.get(path, headers={"If-Modified-Since": "yesterday-ish"}).status_code == 200
    both = {"If-Modified-Since": later, "If-None-Match": '"other"'}
    assert api.get(path, headers=both).status_code == 200  # If-None-Match decides
    # lists and terms have no Last-Modified: the date is ignored
    assert api.get("/events", headers={"If-Modified-Since": later}).status_code == 200
    term = create(api, "tags")
    assert api.get(f"/tags/{term['id']}", headers={"If-Modified-Since": later}).status_code == 200


def test_a_304_keeps_cache_control_vary_and_cors(api: Api) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    tag = tag_of(api.get(path, ADMIN))
    origin = {"Origin": "https://elsewhere.example"}
    answer = api.get(path, ADMIN, headers={"If-None-Match": tag, **origin})
    assert_not_modified(answer, tag, dated=True)
    assert answer.headers["Cache-Control"].startswith("no-cache")
    anonymous_tag = tag_of(api.get(path))
    answer = api.get(path, headers={"If-None-Match": anonymous_tag, **origin})
    assert_not_modified(answer, anonymous_tag, dated=True)
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    exposed = answer.headers["Access-Control-Expose-Headers"]
    assert "ETag" in exposed and "Last-Modified" in exposed
    assert "Allow" not in answer.headers


def test_304_from_the_anonymous_fast_path(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = api.create_event()
    paths = [f"/events/{event['id']}", "/events"]
    tags = {path: tag_of(api.get(path)) for path in paths}  # cached now

    def refuse(*_: t.Any) -> t.NoReturn:
        raise AssertionError("routed: not answered from the cache")

    monkeypatch.setattr(app.dispatcher, "handle", refuse)
    for path in paths:
        answer = api.get(path, headers={"If-None-Match": tags[path]})
        assert_not_modified(answer, tags[path], dated=path != "/events")
        full = api.get(path, headers={"If-None-Match": '"stale"'})
        assert full.status_code == 200 and full.headers["ETag"] == tags[path]
    modified = api.get(paths[0]).headers["Last-Modified"]
    assert api.get(paths[0], headers={"If-Modified-Since": modified}).status_code == 304


def test_304_from_the_cache_for_an_authenticated_caller(
    api: Api, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    tag = tag_of(api.get(path, ADMIN))  # cached now

    def refuse(*_: t.Any) -> t.NoReturn:
        raise AssertionError("the responder ran: not answered from the cache")

    monkeypatch.setattr(app.dispatcher.calls, "render", refuse)
    assert_not_modified(api.get(path, ADMIN, headers={"If-None-Match": tag}), tag, dated=True)
    again = api.get(path, ADMIN, headers={"If-None-Match": '"stale"'})
    assert again.status_code == 200 and again.headers["ETag"] == tag


def test_envelope_answers_200_with_the_etag_in_its_headers(api: Api) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    tag = tag_of(api.get(path))
    answer = api.get(f"{path}?_envelope", headers={"If-None-Match": tag})
    assert answer.status_code == 200
    assert answer.json["status"] == 200
    assert answer.json["headers"]["ETag"] == tag
    assert answer.json["body"]["id"] == event["id"]
    fields = api.get(f"{path}?_fields=id,title")
    assert fields.headers["ETag"] != tag
    assert_not_modified(
        api.get(f"{path}?_fields=id,title", headers={"If-None-Match": fields.headers["ETag"]}),
        fields.headers["ETag"],
        dated=True,
    )


def test_reads_of_hidden_records_ignore_the_headers(api: Api) -> None:
    draft = api.create_event("contributor", status="draft")
    path = f"/events/{draft['id']}"
    for caller in (None, "subscriber", "author2"):
        plain = api.get(path, caller)
        assert plain.status_code in (401, 403, 404)
        for header in ("*", '"anything"'):
            answer = api.get(path, caller, headers={"If-None-Match": header})
            assert answer.status_code == plain.status_code
            assert answer.get_data() == plain.get_data()
            assert "ETag" not in answer.headers


# -- conditional writes -------------------------------------------------------------------


@pytest.mark.parametrize("collection", list(KINDS))
def test_if_match_guards_every_single_write(api: Api, app: Application, collection: str) -> None:
    record = create(api, collection)
    for path in single_paths(api, collection, record):
        stale = tag_of(api.get(path, ADMIN))
        update = KINDS[collection][1]
        fresh = api.patch(path, ADMIN, json={})  # a write: the tag above is stale now
        assert fresh.status_code == 200
        current = tag_of(api.get(path, ADMIN))
        assert fresh.headers["ETag"] == current != stale
        before = write_state(app)
        snapshot = api.get(path, ADMIN).get_data()
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            for header in (stale, f"W/{current}", '"other"'):
                refused = api.request(
                    method, path, ADMIN, json=update, headers={"If-Match": header}
                )
                assert_wp_error(refused, 412, "rest_precondition_failed")
                assert "ETag" not in refused.headers
        assert write_state(app) == before
        assert api.get(path, ADMIN).get_data() == snapshot
        done = api.put(path, ADMIN, json=update, headers={"If-Match": f'"x", {current}'})
        assert done.status_code == 200, done.get_data(as_text=True)
        after = api.get(path, ADMIN)
        assert done.headers["ETag"] == after.headers["ETag"] != current
        assert done.headers.get("Last-Modified") == after.headers.get("Last-Modified")
        assert ("Last-Modified" in done.headers) is KINDS[collection][2]
        star = api.patch(path, ADMIN, json={}, headers={"If-Match": "*"})
        assert star.status_code == 200


@pytest.mark.parametrize("collection", list(KINDS))
def test_if_match_on_a_missing_record_is_412_not_the_not_found_answer(
    api: Api, app: Application, collection: str
) -> None:
    paths = [f"/{collection}/999999"]
    if KINDS[collection][3]:
        paths.append(f"/{collection}/by-slug/no-such-record")
    before = write_state(app)
    for path in paths:
        plain = api.put(path, ADMIN, json=KINDS[collection][1])
        assert plain.status_code in (400, 404)
        for method in ("PUT", "DELETE"):
            for header in ("*", '"abc"'):
                answer = api.request(method, path, ADMIN, json={}, headers={"If-Match": header})
                assert_wp_error(answer, 412, "rest_precondition_failed")
        # If-None-Match: * on a missing record holds: the route's own answer
        answer = api.put(path, ADMIN, json=KINDS[collection][1], headers={"If-None-Match": "*"})
        assert answer.status_code == plain.status_code
    assert write_state(app) == before


def test_a_stale_tag_is_412_even_with_an_invalid_body(api: Api, app: Application) -> None:
    event = api.create_event()
    venue = create(api, "venues")
    path = f"/events/{event['id']}"
    current = tag_of(api.get(path, ADMIN))
    invalid = {"start_date": "not a date at all", "status": "nonsense"}
    assert api.put(path, ADMIN, json=invalid).status_code == 400
    before = write_state(app)
    answer = api.put(path, ADMIN, json=invalid, headers={"If-Match": '"stale"'})
    assert_wp_error(answer, 412, "rest_precondition_failed")
    answer = api.put(path, ADMIN, json=invalid, headers={"If-Match": current})
    assert answer.status_code == 400  # the tag holds: the body is validated
    vpath = f"/venues/{venue['id']}"
    bad = {"status": "nonsense"}
    assert api.put(vpath, ADMIN, json=bad).status_code == 400
    assert_wp_error(
        api.put(vpath, ADMIN, json=bad, headers={"If-Match": '"stale"'}),
        412,
        "rest_precondition_failed",
    )
    assert write_state(app) == before


def test_authentication_and_permission_answer_before_preconditions(
    api: Api, app: Application
) -> None:
    event = api.create_event(ADMIN)
    path = f"/events/{event['id']}"
    draft = api.create_event("contributor", status="draft")
    draft_path = f"/events/{draft['id']}"
    before = write_state(app)
    for target in (path, draft_path, "/events/999999"):
        for header in ("*", '"stale"'):
            conditional = {"If-Match": header}
            # anonymous: 401 as without the header (a draft's existence is not revealed)
            plain = api.put(target, json={"title": "x"})
            answer = api.put(target, json={"title": "x"}, headers=conditional)
            assert_wp_error(answer, 401, plain.json["code"])
            # a subscriber may not edit events at all
            plain = api.put(target, "subscriber", json={"title": "x"})
            answer = api.put(target, "subscriber", json={"title": "x"}, headers=conditional)
            assert (answer.status_code, answer.json["code"]) == (
                plain.status_code,
                plain.json["code"],
            )
    # a contributor may not edit the administrator's event nor another's draft: 403
    for target in (path, draft_path):
        for header in ("*", '"stale"'):
            plain = api.put(target, "contributor2", json={"title": "x"})
            answer = api.put(
                target, "contributor2", json={"title": "x"}, headers={"If-Match": header}
            )
            assert plain.status_code == 403
            assert (answer.status_code, answer.json["code"]) == (403, plain.json["code"])
    assert write_state(app) == before


def test_if_unmodified_since_only_without_if_match_and_where_dated(
    api: Api, app: Application
) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    modified = t.cast(dt.datetime, parse_date(api.get(path, ADMIN).headers["Last-Modified"]))
    earlier = http_date(modified - dt.timedelta(hours=1))
    before = write_state(app)
    refused = api.put(path, ADMIN, json={"title": "x"}, headers={"If-Unmodified-Since": earlier})
    assert_wp_error(refused, 412, "rest_precondition_failed")
    assert write_state(app) == before
    current = tag_of(api.get(path, ADMIN))
    both = {"If-Unmodified-Since": earlier, "If-Match": current}
    assert api.put(path, ADMIN, json={"title": "y"}, headers=both).status_code == 200
    modified_now = api.get(path, ADMIN).headers["Last-Modified"]
    same = {"If-Unmodified-Since": modified_now}
    assert api.put(path, ADMIN, json={"title": "z"}, headers=same).status_code == 200
    invalid = {"If-Unmodified-Since": "not a date"}
    assert api.put(path, ADMIN, json={"title": "w"}, headers=invalid).status_code == 200
    term = create(api, "categories")
    old = {"If-Unmodified-Since": "Mon, 01 Jan 1990 00:00:00 GMT"}
    assert api.put(f"/categories/{term['id']}", ADMIN, json={}, headers=old).status_code == 200


def test_if_none_match_on_a_write(api: Api, app: Application) -> None:
    venue = create(api, "venues")
    path = f"/venues/{venue['id']}"
    current = tag_of(api.get(path, ADMIN))
    before = write_state(app)
    for header in ("*", current, f"W/{current}", f'"a", {current}'):
        answer = api.put(path, ADMIN, json={"venue": "x"}, headers={"If-None-Match": header})
        assert_wp_error(answer, 412, "rest_precondition_failed")
    assert write_state(app) == before
    answer = api.put(path, ADMIN, json={"venue": "x"}, headers={"If-None-Match": '"other"'})
    assert answer.status_code == 200


def test_method_overrides_follow_the_overriding_methods_rules(api: Api, app: Application) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    current = tag_of(api.get(path, ADMIN))
    before = write_state(app)
    stale = {"If-Match": '"stale"'}
    refused = api.post(f"{path}?_method=PUT", ADMIN, json={"title": "x"}, headers=stale)
    assert_wp_error(refused, 412, "rest_precondition_failed")
    override = {"X-HTTP-Method-Override": "DELETE", **stale}
    assert_wp_error(api.post(path, ADMIN, headers=override), 412, "rest_precondition_failed")
    assert write_state(app) == before
    overridden = {"X-HTTP-Method-Override": "DELETE", "If-Match": current}
    trashed = api.post(path, ADMIN, headers=overridden)
    assert trashed.status_code == 200 and trashed.json["status"] == "trash"


def test_a_matching_delete_trashes_the_event(api: Api, app: Application) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    current = tag_of(api.get(path, ADMIN))
    answer = api.delete(path, ADMIN, headers={"If-Match": current})
    assert answer.status_code == 200
    assert answer.json["status"] == "trash"
    with app.database.connection_context():
        assert Event.get_by_id(event["id"]).status == "trash"
    assert IMF_FIXDATE.match(answer.headers["Last-Modified"])


@pytest.mark.parametrize("collection", list(KINDS))
def test_a_create_carries_the_tag_of_its_item(api: Api, collection: str) -> None:
    if collection == "events":
        response = api.post(
            "/events",
            ADMIN,
            json={"title": "New", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00"},
        )
    else:
        response = api.post(f"/{collection}", ADMIN, json=KINDS[collection][0])
    assert response.status_code == 201
    item = api.get(f"/{collection}/{response.json['id']}", ADMIN)
    assert response.headers["ETag"] == tag_of(item)
    assert response.headers.get("Last-Modified") == item.headers.get("Last-Modified")


def test_the_tag_of_a_write_follows_the_query(api: Api) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}?_fields=id,title"
    answer = api.put(path, ADMIN, json={"title": "Short"})
    assert answer.status_code == 200
    assert answer.headers["ETag"] == tag_of(api.get(path, ADMIN))


@pytest.mark.parametrize("rounds", [3])
def test_two_concurrent_writes_with_one_tag_exactly_one_wins(
    api: Api, app: Application, rounds: int
) -> None:
    event = api.create_event()
    path = f"{NS}/events/{event['id']}"
    headers = {**api.headers(ADMIN), "Content-Type": "application/json"}

    def put(port: int, tag: str, title: str, barrier: threading.Barrier) -> int | str:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}{path}",
            data=json.dumps({"title": title}).encode(),
            headers={**headers, "If-Match": tag},
            method="PUT",
        )
        barrier.wait()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            code = json.loads(error.read() or b"{}").get("code")
            return int(error.code) if code == "rest_precondition_failed" else f"{error.code} {code}"

    def current(port: int) -> str:  # through the server: its Host is in the body's URLs
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            return str(response.headers["ETag"])

    with running(app, threads=4) as port:
        for number in range(rounds):
            tag = current(port)
            barrier = threading.Barrier(2, timeout=30)
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futures = [
                    pool.submit(put, port, tag, f"Round {number} writer {writer}", barrier)
                    for writer in range(2)
                ]
                statuses = [future.result(timeout=120) for future in futures]
            assert collections.Counter(statuses) == {200: 1, 412: 1}, statuses
            assert current(port) != tag


def test_a_real_server_sends_304s_on_a_kept_alive_connection(api: Api, app: Application) -> None:
    event = api.create_event()
    path = f"{NS}/events/{event['id']}"
    with running(app) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("GET", path)
            first = connection.getresponse()
            body = first.read()
            tag = first.headers["ETag"]
            assert first.status == 200 and tag and body
            connection.request("GET", path, headers={"If-None-Match": tag})
            second = connection.getresponse()
            assert (second.status, second.read()) == (304, b"")
            assert second.headers["ETag"] == tag and second.headers["Last-Modified"]
            assert second.headers.get("Content-Type") is None
            connection.request("GET", path)  # the connection is still in step
            third = connection.getresponse()
            assert (third.status, third.read(), third.headers["ETag"]) == (200, body, tag)
        finally:
            connection.close()


# -- CORS and the OpenAPI document --------------------------------------------------------


def test_cors_lets_pages_send_and_read_the_conditional_headers(api: Api) -> None:
    for name in ("If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"):
        assert name in ALLOWED_HEADERS
    assert {"ETag", "Last-Modified"} <= set(EXPOSED_HEADERS)
    preflight = api.request(
        "OPTIONS",
        "/events",
        headers={
            "Origin": "https://elsewhere.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "If-Modified-Since",
        },
    )
    allowed = preflight.headers["Access-Control-Allow-Headers"]
    assert "If-Modified-Since" in allowed and "If-Unmodified-Since" in allowed


def test_the_openapi_document_describes_validators_304_and_412(api: Api) -> None:
    paths = api.get("/doc").json["paths"]

    def headers_of(operation: dict[str, t.Any]) -> set[str]:
        return {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}

    event = paths["/events/{id}"]
    assert {"If-None-Match", "If-Modified-Since"} <= headers_of(event["get"])
    assert {"ETag", "Last-Modified"} <= set(event["get"]["responses"]["200"]["headers"])
    assert {"ETag", "Last-Modified"} <= set(event["get"]["responses"]["304"]["headers"])
    assert "content" not in event["get"]["responses"]["304"]
    for method in ("post", "put", "patch", "delete"):
        operation = event[method]
        assert {"If-Match", "If-Unmodified-Since", "If-None-Match"} <= headers_of(operation)
        assert "412" in operation["responses"]
        assert "ETag" in operation["responses"]["200"]["headers"]
    assert "412" in paths["/venues/by-slug/{slug}"]["put"]["responses"]
    term = paths["/categories/{id}"]
    assert "If-Unmodified-Since" not in headers_of(term["put"])
    assert "Last-Modified" not in term["get"]["responses"]["200"]["headers"]
    listing = paths["/events"]["get"]["responses"]
    assert "ETag" in listing["200"]["headers"] and "304" in listing
    assert "Last-Modified" not in listing["200"]["headers"]
    assert "412" not in paths["/events"]["post"]["responses"]
    assert "ETag" in paths["/events"]["post"]["responses"]["201"]["headers"]
