"""What one write may carry: at most ``MAX_LINKED`` organizers, categories and tags
(each kind apart, existing or created inline), refused past it with 400
``rest_too_many_items`` before any lock is taken or any record is read.

Found when tried as an attacker would: a contributor's event with 5,000 inline organizers
held SQLite's write lock for a minute, and an author's with 2,000 new categories for
twelve seconds, while every other writer waited.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, assert_wp_error

from calendar_rest.app import Application
from calendar_rest.models import Event, Organizer, Term
from calendar_rest.schemas import EventCreateArgs, TooManyItems, validate
from calendar_rest.schemas.events import MAX_LINKED

DAY = dt.date.today() + dt.timedelta(days=9)
EVENT = {"title": "Bounded", "start_date": f"{DAY} 18:00:00", "end_date": f"{DAY} 20:00:00"}


def organizers(count: int) -> list[dict[str, str]]:
    return [
        {"organizer": f"Trio {number}", "email": f"t{number}@example.com"}
        for number in range(count)
    ]


def names(prefix: str, count: int) -> list[str]:
    return [f"{prefix} {number}" for number in range(count)]


def counts(app: Application) -> tuple[int, int, int]:
    with app.database.connection_context():
        return Event.select().count(), Organizer.select().count(), Term.select().count()


OVER = MAX_LINKED + 1
TOO_MANY: dict[str, dict[str, t.Any]] = {
    "inline organizers": {"organizer": organizers(OVER)},
    "organizer IDs as a CSV string": {"organizer": ",".join(str(n) for n in range(1, OVER + 1))},
    "new categories": {"categories": names("Genre", OVER)},
    "tag IDs": {"tags": list(range(1, OVER + 1))},
    "tags as a CSV string": {"tags": ",".join(names("tag", OVER))},
}


@pytest.mark.parametrize("body", TOO_MANY.values(), ids=TOO_MANY.keys())
@pytest.mark.parametrize("as_", ["contributor", "author", "administrator"])
def test_a_create_past_the_bound_is_refused_before_any_lock(
    api: Api, app: Application, write_scopes: list[str], body: dict[str, t.Any], as_: str
) -> None:
    before = counts(app)
    response = api.post("/events", as_, json={**EVENT, **body})
    error = assert_wp_error(response, 400, "rest_too_many_items")
    (name,) = body
    assert error["data"] == {"status": 400, "param": name, "max": MAX_LINKED}
    assert name in error["message"] and str(MAX_LINKED) in error["message"]
    assert write_scopes == [] and counts(app) == before


def test_an_update_past_the_bound_is_refused_and_changes_nothing(
    api: Api, app: Application, write_scopes: list[str]
) -> None:
    event = api.create_event("author", **EVENT)
    write_scopes.clear()
    before = counts(app)
    for method in (api.post, api.put, api.patch):
        response = method(f"/events/{event['id']}", "author", json={"tags": names("t", OVER)})
        assert_wp_error(response, 400, "rest_too_many_items")
    assert write_scopes == [] and counts(app) == before
    assert api.get(f"/events/{event['id']}").json == api.get(f"/events/{event['id']}").json


def test_a_form_body_is_bounded_too(api: Api, write_scopes: list[str]) -> None:
    """PHP brackets (``organizer[0][organizer]=...``), as browsers and WordPress send them."""
    form = {**EVENT}
    for number in range(OVER):
        form[f"organizer[{number}][organizer]"] = f"Duo {number}"
    response = api.post("/events", "contributor", data=form)
    assert_wp_error(response, 400, "rest_too_many_items")
    assert write_scopes == []


def test_the_bound_itself_is_allowed(api: Api, app: Application) -> None:
    response = api.post(
        "/events",
        "administrator",
        json={
            **EVENT,
            "organizer": organizers(MAX_LINKED),
            "categories": names("Genre", MAX_LINKED),
            "tags": names("tag", MAX_LINKED),
        },
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    created = response.json
    assert len(created["organizer"]) == MAX_LINKED
    assert len(created["categories"]) == len(created["tags"]) == MAX_LINKED


def test_the_validators_library_refuses_before_reading_a_value() -> None:
    with pytest.raises(TooManyItems) as refused:
        validate(EventCreateArgs(), {**EVENT, "organizer": [object()] * OVER})
    assert (refused.value.name, refused.value.limit) == ("organizer", MAX_LINKED)


def test_the_bound_is_documented_for_generated_clients(api: Api) -> None:
    document = api.get("/doc").json
    body = document["paths"]["/events"]["post"]["requestBody"]["content"]
    schema = next(iter(body.values()))["schema"]
    properties = (
        schema.get("properties")
        or document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]["properties"]
    )
    for name in ("organizer", "categories", "tags"):
        assert properties[name]["maxItems"] == MAX_LINKED, name
