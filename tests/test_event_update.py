"""POST / PUT / PATCH on /events/{id} and /events/by-slug/{slug}: true partial updates."""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.models import Event

START = "2026-12-05 19:00:00"
END = "2026-12-05 21:00:00"
METHODS = ("POST", "PUT", "PATCH")
#: keys an update of the title alone may change
TOUCHED_BY_TITLE = {"title", "modified", "modified_utc"}


def new_event(api: Api, as_: str = "administrator", **fields: t.Any) -> dict[str, t.Any]:
    payload = {"title": "Jazz Night", "start_date": START, "end_date": END, **fields}
    response = api.post("/events", as_, json=payload)
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def rich_event(api: Api) -> dict[str, t.Any]:
    """An event where every field TEC would reset on update has a non-default value."""
    return new_event(
        api,
        status="draft",
        all_day=True,
        featured=True,
        sticky=True,
        show_map=True,
        show_map_link=True,
        hide_from_listings=True,
        website="https://jazz.example.org",
        timezone="America/New_York",
        cost="20$",
        description="Some text",
        excerpt="Short",
        venue={"venue": "Blue Hall", "city": "Paris"},
        organizer=[{"organizer": "Ann"}, {"organizer": "Bob"}],
        categories=["Music"],
        tags=["Outdoor"],
    )


def update(
    api: Api, method: str, event: dict[str, t.Any], by: str = "id",
    as_: str = "administrator", **fields: t.Any,
) -> TestResponse:  # fmt: skip
    path = f"/events/{event['id']}" if by == "id" else f"/events/by-slug/{event['slug']}"
    return api.request(method, path, as_, json=fields)


def updated(
    api: Api, event: dict[str, t.Any], method: str = "POST", by: str = "id", **fields: t.Any
) -> dict[str, t.Any]:
    response = update(api, method, event, by, **fields)
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(dict[str, t.Any], response.json)


def without(event: dict[str, t.Any], keys: set[str]) -> dict[str, t.Any]:
    return {key: value for key, value in event.items() if key not in keys}


@pytest.mark.parametrize("by", ["id", "slug"])
@pytest.mark.parametrize("method", METHODS)
def test_an_update_changes_only_the_fields_that_were_sent(api: Api, method: str, by: str) -> None:
    before = rich_event(api)
    after = updated(api, before, method, by, title="Jazz Night, revised")
    assert after["title"] == "Jazz Night, revised"
    assert without(after, TOUCHED_BY_TITLE) == without(before, TOUCHED_BY_TITLE)
    assert "json_ld" not in after
    single = api.get(f"/events/{before['id']}", "administrator").json
    linked = {"json_ld", "venue", "organizer"}  # embeds carry their own json_ld when single
    assert without(single, TOUCHED_BY_TITLE | linked) == without(before, TOUCHED_BY_TITLE | linked)
    assert single["venue"]["id"] == before["venue"]["id"]
    assert [o["id"] for o in single["organizer"]] == [o["id"] for o in before["organizer"]]


@pytest.mark.parametrize("method", METHODS)
def test_an_empty_update_keeps_every_field(api: Api, method: str) -> None:
    before = rich_event(api)
    after = updated(api, before, method)
    assert without(after, {"modified", "modified_utc"}) == without(
        before, {"modified", "modified_utc"}
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", "pending"),
        ("all_day", False),
        ("featured", False),
        ("sticky", False),
        ("show_map", False),
        ("show_map_link", False),
        ("hide_from_listings", False),
        ("website", "https://other.example.org"),
        ("cost", "Donation"),
        ("excerpt", "Longer"),
    ],
)
def test_a_single_field_can_be_changed_alone(api: Api, field: str, value: t.Any) -> None:
    before = rich_event(api)
    after = updated(api, before, **{field: value})
    shown = {"cost": "Donation", "excerpt": "<p>Longer</p>"}.get(field, value)
    assert after[field] == shown
    changed = {field, "modified", "modified_utc", "cost_details", "end_date", "start_date"}
    changed |= {f"{key}_details" for key in ("start_date", "end_date")}
    changed |= {k for k in after if k.startswith("utc_")}
    assert without(after, changed) == without(before, changed)


def test_a_website_can_be_emptied(api: Api) -> None:
    assert updated(api, rich_event(api), website="")["website"] == ""


def test_changing_only_the_timezone_keeps_wall_times_and_recomputes_utc(api: Api) -> None:
    event = new_event(api, timezone="America/New_York")
    assert event["utc_start_date"] == "2026-12-06 00:00:00"
    after = updated(api, event, timezone="Europe/Paris")
    assert (after["start_date"], after["end_date"]) == (START, END)
    assert (after["utc_start_date"], after["utc_end_date"]) == (
        "2026-12-05 18:00:00",
        "2026-12-05 20:00:00",
    )
    assert (after["timezone"], after["timezone_abbr"]) == ("Europe/Paris", "CET")


def test_sending_dates_again_reads_them_in_the_kept_timezone(api: Api) -> None:
    event = new_event(api, timezone="UTC+2")
    after = updated(api, event, start_date="2026-12-06 10:00:00", end_date="2026-12-06 12:00:00")
    assert after["timezone"] == "UTC+2"
    assert after["utc_start_date"] == "2026-12-06 08:00:00"


def test_changing_only_the_start_keeps_the_end(api: Api) -> None:
    after = updated(api, new_event(api), start_date="2026-12-05 18:00:00")
    assert (after["start_date"], after["end_date"]) == ("2026-12-05 18:00:00", END)
    assert after["utc_end_date"] == END


def test_a_start_after_the_kept_end_moves_the_end_to_the_start(api: Api) -> None:
    after = updated(api, new_event(api), start_date="2026-12-06 10:00:00")
    assert after["start_date"] == after["end_date"] == "2026-12-06 10:00:00"


def test_switching_all_day_on_stretches_the_kept_dates(api: Api) -> None:
    after = updated(api, new_event(api), all_day=True)
    assert (after["start_date"], after["end_date"]) == (
        "2026-12-05 00:00:00",
        "2026-12-05 23:59:59",
    )


# -- linked records --------------------------------------------------------------------


@pytest.mark.parametrize("empty", [[], ""])
@pytest.mark.parametrize("taxonomy", ["categories", "tags"])
def test_empty_terms_clear_that_taxonomy_only(api: Api, taxonomy: str, empty: t.Any) -> None:
    before = rich_event(api)
    after = updated(api, before, **{taxonomy: empty})
    assert after[taxonomy] == []
    other = "tags" if taxonomy == "categories" else "categories"
    assert after[other] == before[other]


def test_new_terms_replace_the_old_ones(api: Api) -> None:
    before = rich_event(api)
    after = updated(api, before, categories=["Theatre", "Dance"])
    assert sorted(term["name"] for term in after["categories"]) == ["Dance", "Theatre"]


def test_an_empty_organizer_list_clears_the_organizers(api: Api) -> None:
    before = rich_event(api)
    after = updated(api, before, organizer=[])
    assert after["organizer"] == []
    assert after["venue"] == before["venue"]


def test_a_new_organizer_list_replaces_the_old_one_in_order(api: Api) -> None:
    before = rich_event(api)
    ann, bob = (organizer["id"] for organizer in before["organizer"])
    after = updated(api, before, organizer=[bob, {"organizer": "Cleo"}, ann])
    assert [o["organizer"] for o in after["organizer"]] == ["Bob", "Cleo", "Ann"]


@pytest.mark.parametrize("empty", [0, "", "0"])
def test_venue_zero_or_empty_unlinks_the_venue(api: Api, empty: t.Any) -> None:
    before = rich_event(api)
    after = updated(api, before, venue=empty)
    assert after["venue"] == []
    assert after["organizer"] == before["organizer"]


def test_a_venue_can_be_replaced_by_id(api: Api) -> None:
    other = new_event(api, venue={"venue": "Red Room"})["venue"]["id"]
    after = updated(api, rich_event(api), venue=other)
    assert after["venue"]["venue"] == "Red Room"


def category_count(api: Api, event_id: int, name: str) -> int:
    event = api.get(f"/events/{event_id}", "administrator").json
    return next(term["count"] for term in event["categories"] if term["name"] == name)


def test_term_counts_follow_status_changes(api: Api) -> None:
    event = new_event(api, categories=["Music"])
    witness = new_event(api, categories=["Music"])
    assert category_count(api, witness["id"], "Music") == 2
    updated(api, event, status="draft")
    assert category_count(api, witness["id"], "Music") == 1
    updated(api, event, status="publish")
    assert category_count(api, witness["id"], "Music") == 2


def test_term_counts_follow_term_changes(api: Api) -> None:
    event = new_event(api, categories=["Music"])
    witness = new_event(api, categories=["Music", "Theatre"])
    after = updated(api, event, categories=["Theatre"])
    assert after["categories"][0]["count"] == 2
    assert category_count(api, witness["id"], "Music") == 1


# -- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_updating_a_missing_id_is_a_404(api: Api, method: str) -> None:
    response = api.request(method, "/events/424242", "administrator", json={"title": "x"})
    body = assert_wp_error(response, 404, "rest-event-not-found")
    assert body["message"] == "Event with ID 424242 does not exist."


@pytest.mark.parametrize("method", METHODS)
def test_updating_an_unknown_slug_is_an_invalid_slug_parameter(api: Api, method: str) -> None:
    response = api.request(method, "/events/by-slug/no-such-event", "administrator", json={})
    body = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["slug"]


@pytest.mark.parametrize("field", ["title", "description", "excerpt", "slug"])
def test_text_fields_cannot_be_emptied(api: Api, field: str) -> None:
    body = assert_wp_error(
        update(api, "POST", new_event(api), **{field: ""}), 400, "rest_invalid_param"
    )
    assert list(body["data"]["params"]) == [field]


def test_an_invalid_update_changes_nothing(api: Api) -> None:
    before = new_event(api)
    assert_wp_error(
        update(api, "PATCH", before, title="New", website="foo"), 400, "rest_invalid_param"
    )
    assert api.get(f"/events/{before['id']}").json["title"] == "Jazz Night"


def test_an_anonymous_update_is_a_401_and_a_subscribers_a_403(api: Api) -> None:
    event = new_event(api)
    assert_wp_error(update(api, "POST", event, as_=None, title="x"), 401, "rest_forbidden")
    assert_wp_error(update(api, "POST", event, as_="subscriber", title="x"), 403, "rest_forbidden")


# -- password, slug, dates -------------------------------------------------------------


def test_a_password_sent_by_id_protects_the_event(api: Api) -> None:
    event = new_event(api)
    updated(api, event, password="secret")
    assert_wp_error(api.get(f"/events/{event['id']}"), 403, "event-password-protected")
    unlocked = api.get(f"/events/{event['id']}", query_string={"password": "secret"})
    assert unlocked.status_code == 200


def test_a_password_sent_by_slug_is_ignored(api: Api) -> None:
    event = new_event(api)
    updated(api, event, by="slug", password="secret", title="Renamed")
    response = api.get(f"/events/{event['id']}")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["title"] == "Renamed"


def test_a_new_slug_is_sanitised_and_the_event_answers_to_it(api: Api) -> None:
    new_event(api, title="Taken")
    event = new_event(api)
    after = updated(api, event, by="slug", slug="Taken")
    assert after["slug"] == "taken-2"
    assert api.get("/events/by-slug/taken-2").json["id"] == event["id"]
    assert_wp_error(api.get("/events/by-slug/jazz-night"), 400, "rest_invalid_param")


def test_saving_the_same_slug_again_does_not_suffix_it(api: Api) -> None:
    event = new_event(api)
    assert updated(api, event, slug="jazz-night")["slug"] == "jazz-night"


def test_modified_changes_but_date_does_not(api: Api, app: Application) -> None:
    event = new_event(api)
    old = dt.datetime(2026, 1, 2, 3, 4, 5)
    with app.database.connection_context():
        Event.update(modified=old, modified_utc=old).where(Event.id == event["id"]).execute()
    after = updated(api, event, title="Later")
    assert after["modified"] != "2026-01-02 03:04:05"
    assert after["modified_utc"] != "2026-01-02 03:04:05"
    assert (after["date"], after["date_utc"]) == (event["date"], event["date_utc"])


def test_an_editor_may_update_someone_elses_event_but_a_contributor_may_not(api: Api) -> None:
    event = new_event(api, "author")
    assert update(api, "PUT", event, as_="editor", title="By editor").status_code == 200
    assert_wp_error(update(api, "PUT", event, as_="author2", title="x"), 403, "rest_forbidden")
    assert_wp_error(
        update(api, "PUT", event, by="slug", as_="contributor", title="x"), 403, "rest_forbidden"
    )
