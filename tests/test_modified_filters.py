"""``modified_after``, ``modified_before`` and ``orderby=modified`` (``sync.md`` §2).

A client keeping a copy of the calendar asks for what changed since its last visit,
so the bounds must be strict at whole-second resolution (a record modified exactly
at the bound is not repeated), read every form a client sends (site time, ``Z``,
offsets, an unencoded ``+``, a record's own ``modified`` passed back), refuse the
rest, never reveal what the caller may not read, and every write, whatever it
changes, must move ``modified``. Time moves with a ``ManualClock``; the site is in
Paris (UTC+1 in November), so site time and UTC differ.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, api_for, assert_wp_error
from open_web import ROOTS, Body, call, ns, ok, path_and_query, query_of
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.repository.schema import create_schema

START = dt.datetime(2026, 11, 24, 10, 0, tzinfo=dt.timezone.utc)
KINDS = ["events", "venues", "organizers"]
EACH_KIND = pytest.mark.parametrize("kind", KINDS)
BOTH_ROOTS = pytest.mark.parametrize("root", list(ROOTS.values()), ids=list(ROOTS))
#: the key of a record's name, in requests and in responses
NAME = {"events": "title", "venues": "venue", "organizers": "organizer"}
PARAMS = ("modified_after", "modified_before", "orderby", "order")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def client(api: Api, sibling_app: t.Any, clock: ManualClock) -> Api:
    """The API of a Paris site whose time is ``clock``."""
    return api_for(sibling_app(clock=clock, timezone="Europe/Paris"), api)


def create(client: Api, kind: str, name: str, as_: str = "administrator", **fields: t.Any) -> Body:
    payload = {NAME[kind]: name, **fields}
    if kind == "events":
        payload.setdefault("start_date", "2026-12-01 10:00:00")
        payload.setdefault("end_date", "2026-12-01 12:00:00")
    return ok(client.post(f"/{kind}", as_, json=payload), 201)


def three(client: Api, clock: ManualClock, kind: str) -> list[Body]:
    """Records made at 10:00:00, 11:00:00 and 12:00:00 UTC (11:00... in Paris)."""
    made = []
    for name in ("Alpha jazz", "Beta jazz", "Gamma rock"):
        made.append(create(client, kind, name))
        clock.advance(hours=1)
    return made


def names(response: TestResponse, kind: str) -> list[str]:
    return [record[NAME[kind]] for record in ok(response)[kind]]


def listed(client: Api, kind: str, query: str, as_: str | None = None) -> list[str]:
    """Names listed by ``GET kind?query`` (``query`` sent as is: ``+`` unencoded means
    a space), in the order the list gives them."""
    return names(client.get(f"/{kind}?{query}", as_), kind)


# -- 2.1 accepted forms and strictness ----------------------------------------------------

#: 11:00:00 UTC, written as clients write it
ELEVEN_UTC = [
    "2026-11-24T12:00:00",  # site time (Paris)
    "2026-11-24 12:00:00",  # a space for T: the record's own ``modified``
    "2026-11-24T11:00:00Z",
    "2026-11-24T11:00:00z",
    "2026-11-24T12:00:00%2B01:00",
    "2026-11-24T12:00:00+01:00",  # an unencoded +: read as a space, meaning +
    "2026-11-24T06:00:00-05:00",
    "2026-11-24T11:00:00.999999Z",  # fractional seconds are truncated
]


@EACH_KIND
@pytest.mark.parametrize("value", ELEVEN_UTC)
def test_every_accepted_form_names_the_same_moment(
    client: Api, clock: ManualClock, kind: str, value: str
) -> None:
    three(client, clock, kind)
    response = client.get(f"/{kind}?modified_after={value}")
    assert names(response, kind) == ["Gamma rock"]  # Beta, modified at 11:00:00, is out
    assert query_of(ok(response)["rest_url"]).count(("modified_after", "2026-11-24T11:00:00Z"))
    before = sorted(listed(client, kind, f"modified_before={value}"))
    assert before == ["Alpha jazz"]


@EACH_KIND
def test_fractions_are_truncated_not_rounded(client: Api, clock: ManualClock, kind: str) -> None:
    three(client, clock, kind)
    # 11:00:00.999 is 11:00:00 at whole-second resolution: Beta is not before it
    assert listed(client, kind, "modified_before=2026-11-24T11:00:00.999Z") == ["Alpha jazz"]


@EACH_KIND
def test_bounds_are_strict_and_take_a_records_modified_back(
    client: Api, clock: ManualClock, kind: str
) -> None:
    alpha, beta, gamma = three(client, clock, kind)
    assert beta["modified"] == "2026-11-24 12:00:00"  # Paris time
    assert listed(client, kind, f"modified_after={beta['modified']}") == ["Gamma rock"]
    assert listed(client, kind, f"modified_before={beta['modified']}") == ["Alpha jazz"]
    utc = beta["modified_utc"].replace(" ", "T") + "Z"
    assert listed(client, kind, f"modified_after={utc}") == ["Gamma rock"]
    between = f"modified_after={alpha['modified']}&modified_before={gamma['modified']}"
    assert listed(client, kind, between) == ["Beta jazz"]
    empty = f"modified_after={gamma['modified']}&modified_before={alpha['modified']}"
    assert listed(client, kind, empty) == []


@EACH_KIND
def test_bounds_combine_with_the_other_filters(client: Api, clock: ManualClock, kind: str) -> None:
    alpha, _, _ = three(client, clock, kind)
    response = client.get(f"/{kind}?search=jazz&modified_after={alpha['modified']}")
    assert names(response, kind) == ["Beta jazz"]
    assert ok(response)["total"] == 1
    assert response.headers["X-WP-Total"] == "1"


def test_bounds_combine_with_the_default_event_window(client: Api, clock: ManualClock) -> None:
    """An event that ended before today is outside the default window, however
    recently it changed; widening the window brings it back."""
    create(
        client, "events", "Last week", start_date="2026-11-17 10:00", end_date="2026-11-17 12:00"
    )
    clock.advance(hours=1)
    past = create(
        client, "events", "Past gig", start_date="2026-11-20 10:00", end_date="2026-11-20 12:00"
    )
    after = "modified_after=2026-11-24T10:30:00Z"
    assert listed(client, "events", after) == []
    assert listed(client, "events", f"{after}&start_date=2026-11-01") == ["Past gig"]
    assert listed(client, "events", f"{after}&include={past['id']}") == ["Past gig"]
    assert (
        listed(client, "events", "modified_before=2026-11-24T10:30:00Z&include=" + str(past["id"]))
        == []
    )


# -- 2.2 order ------------------------------------------------------------------------------


@EACH_KIND
def test_orderby_modified_is_newest_first_unless_asked(
    client: Api, clock: ManualClock, kind: str
) -> None:
    alpha, _, _ = three(client, clock, kind)
    ok(client.post(f"/{kind}/{alpha['id']}", "administrator", json={"description": "Edited"}))
    newest_first = ["Alpha jazz", "Gamma rock", "Beta jazz"]
    assert listed(client, kind, "orderby=modified") == newest_first
    assert listed(client, kind, "orderby=modified&order=desc") == newest_first
    assert listed(client, kind, "order=asc&orderby=modified") == newest_first[::-1]
    rest_url = ok(client.get(f"/{kind}?orderby=modified"))["rest_url"]
    assert ("orderby", "modified") in query_of(rest_url)
    assert ("order", "desc") in query_of(rest_url)


@EACH_KIND
def test_ties_are_broken_by_id_in_the_same_direction(
    client: Api, clock: ManualClock, kind: str
) -> None:
    ids = [create(client, kind, f"Same second {number}")["id"] for number in range(3)]
    clock.advance(seconds=1)
    later = create(client, kind, "Next second")["id"]
    desc = [record["id"] for record in ok(client.get(f"/{kind}?orderby=modified"))[kind]]
    assert desc == [later, *sorted(ids, reverse=True)]
    asc = [r["id"] for r in ok(client.get(f"/{kind}?orderby=modified&order=asc"))[kind]]
    assert asc == [*sorted(ids), later]


@EACH_KIND
def test_without_orderby_the_default_order_stays_and_order_is_ignored(
    client: Api, clock: ManualClock, kind: str
) -> None:
    """Events by start date, venues and organizers newest publication first."""
    starts = {"Alpha jazz": "2026-12-03", "Beta jazz": "2026-12-01", "Gamma rock": "2026-12-02"}
    for name, day in starts.items():
        extra = {"start_date": f"{day} 10:00", "end_date": f"{day} 12:00"}
        create(client, kind, name, **(extra if kind == "events" else {}))
        clock.advance(hours=1)
    default = listed(client, kind, "")
    expected = {
        "events": ["Beta jazz", "Gamma rock", "Alpha jazz"],
        "venues": ["Gamma rock", "Beta jazz", "Alpha jazz"],
        "organizers": ["Gamma rock", "Beta jazz", "Alpha jazz"],
    }
    assert default == expected[kind]
    for order in ("asc", "desc"):
        response = client.get(f"/{kind}?order={order}")
        assert names(response, kind) == default
        assert "order" not in dict(query_of(ok(response)["rest_url"]))


# -- refusals -------------------------------------------------------------------------------

BAD_DATES = [
    "",
    "yesterday",
    "1700000000",
    "2026-11-24",
    "2026-11-24T10:00",
    "2026-11-24T10:00:00+01",
    "2026-11-24T10:00:00+0100",
    "2026-11-24T10:00:00+01:60",
    "2026-11-24T10:00:00%2B24:00",
    "2026-11-24T10:00:00ZZ",
    "2026-11-24T10:00:00 Z",
    "2026-13-01T10:00:00",
    "2026-02-30T10:00:00",
    "2026-11-24T24:00:00",
    "2026-11-24T10:00:60",
    "2026/11/24T10:00:00",
    "0999-12-31T10:00:00Z",
    "%D9%A2026-11-24T10:00:00",  # a non-ASCII digit
]
BAD_VALUES = [
    *(("modified_after", value) for value in BAD_DATES),
    ("modified_before", "tomorrow"),
    ("orderby", "date"),
    ("orderby", "MODIFIED"),
    ("orderby", ""),
    ("order", "ascending"),
    ("order", ""),
]


@EACH_KIND
@pytest.mark.parametrize(("name", "value"), BAD_VALUES)
def test_bad_values_are_invalid_params(client: Api, kind: str, name: str, value: str) -> None:
    body = assert_wp_error(client.get(f"/{kind}?{name}={value}"), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == [name]


@BOTH_ROOTS
def test_bad_values_are_reported_together_in_the_roots_language(api: Api, root: str) -> None:
    query = "modified_after=soon&modified_before=2026-11-24T10:00&orderby=title&order=up"
    body = assert_wp_error(
        call(api, "GET", ns(root, f"/venues?{query}")), 400, "rest_invalid_param"
    )
    assert set(body["data"]["params"]) == set(PARAMS)
    message = body["data"]["params"]["modified_after"]
    assert ("AAAA-MM-JJ" in message) == (root == "/fr"), message


# -- every write moves modified -------------------------------------------------------------


@EACH_KIND
def test_status_only_edits_and_trash_move_modified(
    client: Api, clock: ManualClock, kind: str
) -> None:
    record = create(client, kind, "Moving")
    clock.advance(minutes=5)
    drafted = ok(client.post(f"/{kind}/{record['id']}", "administrator", json={"status": "draft"}))
    assert (drafted["status"], drafted["modified_utc"]) == ("draft", "2026-11-24 10:05:00")
    assert drafted["modified"] == "2026-11-24 11:05:00"
    clock.advance(minutes=5)
    trashed = ok(client.delete(f"/{kind}/{record['id']}", "administrator"))
    assert trashed["modified_utc"] == "2026-11-24 10:10:00"
    trash = "status=trash&modified_after=2026-11-24T10:05:00Z"
    assert listed(client, kind, trash, "administrator") == ["Moving"]


@EACH_KIND
def test_scheduled_publication_moves_modified(client: Api, clock: ManualClock, kind: str) -> None:
    """A sync client must learn of a record when it becomes public, not when it was
    scheduled (which it may have synced past while the record was still hidden)."""
    scheduled = create(client, kind, "Soon", date_utc="2026-11-24 11:00:00")
    assert scheduled["status"] == "future"
    clock.advance(hours=2)
    assert listed(client, kind, "modified_after=2026-11-24T11:30:00Z") == ["Soon"]
    published = ok(client.get(f"/{kind}/{scheduled['id']}"))
    assert (published["status"], published["modified_utc"]) == ("publish", "2026-11-24 12:00:00")


# -- visibility -----------------------------------------------------------------------------


@EACH_KIND
def test_modified_after_never_reveals_hidden_records(
    client: Api, clock: ManualClock, kind: str
) -> None:
    create(client, kind, "Public")
    clock.advance(minutes=1)
    create(client, kind, "Secret draft", status="draft")
    create(client, kind, "Secret private", status="private")
    query = "modified_after=2026-11-24T09:00:00Z&orderby=modified"
    for caller in (None, "subscriber", "contributor"):
        response = client.get(f"/{kind}?{query}", caller)
        assert names(response, kind) == ["Public"], caller
        assert response.headers["X-WP-Total"] == "1"
    drafts = client.get(f"/{kind}?{query}&status=draft")
    assert_wp_error(drafts, 400, "rest_invalid_param")
    seen = listed(client, kind, query, "administrator")
    assert seen == ["Secret private", "Secret draft", "Public"]


# -- paging, description, schema ------------------------------------------------------------


@EACH_KIND
def test_page_links_repeat_the_bounds(client: Api, clock: ManualClock, kind: str) -> None:
    three(client, clock, kind)
    value = "2026-11-24T10:30:00+01:00"
    query = "modified_after=2026-11-24T10:30:00%2B01:00&orderby=modified&order=asc&per_page=1"
    first = client.get(f"/{kind}?{query}")
    assert names(first, kind) == ["Alpha jazz"]
    next_url = ok(first)["next_rest_url"]
    assert ("modified_after", value) in query_of(next_url)
    assert f"<{next_url}>" in first.headers["Link"]
    second = call(client, "GET", path_and_query(next_url))
    assert names(second, kind) == ["Beta jazz"]
    assert ok(second)["total"] == 3


def archive_args(api: Api, root: str, kind: str) -> Body:
    """The arguments the namespace index of ``root`` lists for ``GET kind``."""
    routes = ok(call(api, "GET", ns(root, "/")))["routes"]
    route = next(value for path, value in routes.items() if path.endswith(f"/v1/{kind}"))
    return t.cast(Body, route["endpoints"][0]["args"])


@BOTH_ROOTS
@EACH_KIND
def test_the_index_describes_the_parameters(api: Api, root: str, kind: str) -> None:
    args = archive_args(api, root, kind)
    assert args["modified_after"]["type"] == "string"
    assert args["modified_after"]["format"] == "date-time"
    assert args["orderby"]["enum"] == ["modified"]
    assert args["order"]["enum"] == ["asc", "desc"]
    assert not any(args[name]["required"] for name in PARAMS)
    described = args["modified_before"]["description"]
    assert ("modifiés" in described) == (root == "/fr"), described


@BOTH_ROOTS
@EACH_KIND
def test_the_document_describes_the_parameters(api: Api, root: str, kind: str) -> None:
    args = archive_args(api, root, kind)
    doc = ok(call(api, "GET", ns(root, "/doc")))
    parameters = {p["name"]: p for p in doc["paths"][f"/{kind}"]["get"]["parameters"]}
    for name in PARAMS:
        assert parameters[name]["in"] == "query"
        assert parameters[name]["schema"]["type"] == "string"
        assert parameters[name]["description"] == args[name]["description"]
    assert parameters["modified_after"]["schema"]["format"] == "date-time"
    assert parameters["order"]["schema"]["enum"] == ["asc", "desc"]


def test_init_adds_the_index_to_an_existing_database(app: Application, backend: str) -> None:
    """The list reads ``modified_utc`` through an index; ``init`` on a database made
    before it existed adds it (MySQL has no ``CREATE INDEX IF NOT EXISTS``)."""
    database = app.database
    with database.connection_context():
        names = {index.name for index in database.get_indexes("event")}
        assert "event_modified_utc_id" in names
        assert "venue_language_status_modified_utc_id" in {
            index.name for index in database.get_indexes("venue")
        }
        on_table = " ON event" if backend == "mysql" else ""
        database.execute_sql(f"DROP INDEX event_modified_utc_id{on_table}")
    create_schema(database)
    create_schema(database)  # safe to repeat
    with database.connection_context():
        assert "event_modified_utc_id" in {index.name for index in database.get_indexes("event")}
