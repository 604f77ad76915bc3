"""The documentation schemas of ``calendar_rest.schemas.representations`` against real
responses.

Every kind of body the service answers is validated with openapi-schema-validator's
OpenAPI 3.0 validator against the components apispec generates, as schemathesis's
response conformance check would; the key-set tests make the documented objects list
exactly the keys ``calendar_rest.wire`` emits, so the schemas cannot drift from it.
"""

from __future__ import annotations

import datetime as dt
import functools
import typing as t

import pytest
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from conftest import TEC_COMPONENTS, Api
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from openapi_spec_validator import validate as validate_spec
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from calendar_rest.models import Attachment, Organizer, Venue
from calendar_rest.schemas.representations import COMPONENTS

#: where the generated document lives in the validators' registry
SPEC_URI = "urn:calendar-rest:doc"
Body = dict[str, t.Any]


@functools.cache
def spec() -> dict[str, t.Any]:
    """A minimal OpenAPI document holding every component, as the lead's ``/doc`` will."""
    document = APISpec(
        title="Calendar REST",
        version="1.0.0",
        openapi_version="3.0.3",
        plugins=[MarshmallowPlugin()],
    )
    for name, schema in COMPONENTS.items():
        document.components.schema(name, schema=schema)
    return document.to_dict()


@functools.cache
def validator(component: str) -> OAS30Validator:
    """A validator for one component; ``$ref``s resolve inside the document, which the
    registry serves under ``SPEC_URI``."""
    registry: Registry[t.Any] = Registry().with_resource(
        SPEC_URI, Resource.from_contents(spec(), default_specification=DRAFT4)
    )
    return OAS30Validator(
        {"$ref": f"{SPEC_URI}#/components/schemas/{component}"},
        registry=registry,
        format_checker=oas30_format_checker,
    )


def assert_conforms(body: t.Any, component: str) -> None:
    errors = sorted(validator(component).iter_errors(body), key=lambda error: error.json_path)
    assert not errors, "\n".join(f"{e.json_path}: {e.message}" for e in errors)


def documented_keys(component: str) -> set[str]:
    return set(spec()["components"]["schemas"][component]["properties"])


def ok(response: t.Any, status: int = 200) -> Body:
    assert response.status_code == status, response.get_data(as_text=True)
    return t.cast(Body, response.json)


# -- fixtures: records with every field set --------------------------------------------


@pytest.fixture
def image_id(api: Api) -> int:
    """An attachment with known dimensions, as an uploaded image has."""
    with api.app.database.connection_context():
        attachment = Attachment.create(
            url="https://example.com/images/hall.jpg",
            extension="jpg",
            width=1200,
            height=800,
            created=dt.datetime(2026, 1, 1),
        )
    return attachment.id


@pytest.fixture
def venue(api: Api, image_id: int) -> Body:
    """A venue with every column filled (the excerpt only the database can set)."""
    body = ok(
        api.post(
            "/venues",
            "administrator",
            json={
                "venue": "Blue Hall",
                "description": "A concert hall.",
                "address": "1 Main St",
                "city": "Springfield",
                "country": "United States",
                "province": "Sangamon",
                "state": "IL",
                "zip": "62701",
                "phone": "555-0100",
                "stateprovince": "IL",
                "website": "https://bluehall.example",
                "geo_lat": 39.8,
                "geo_lng": -89.65,
                "image": image_id,
            },
        ),
        201,
    )
    with api.app.database.connection_context():
        Venue.update(excerpt="Music.").where(Venue.id == body["id"]).execute()
    return body


@pytest.fixture
def organizers(api: Api, image_id: int) -> list[Body]:
    first = ok(
        api.post(
            "/organizers",
            "administrator",
            json={
                "organizer": "Ada",
                "description": "Promoter.",
                "phone": "555-0101",
                "website": "https://ada.example",
                "email": "ada@example.com",
                "image": image_id,
            },
        ),
        201,
    )
    with api.app.database.connection_context():
        Organizer.update(excerpt="Shows.").where(Organizer.id == first["id"]).execute()
    second = ok(api.post("/organizers", "administrator", json={"organizer": "Bob"}), 201)
    return [first, second]


@pytest.fixture
def terms(api: Api) -> dict[str, Body]:
    """A parent category, its child, and a tag."""
    parent = ok(api.post("/categories", "administrator", json={"name": "Music"}), 201)
    child = ok(
        api.post(
            "/categories",
            "administrator",
            json={
                "name": "Jazz",
                "parent": parent["id"],
                "description": "Swing and bop.",
            },
        ),
        201,
    )
    tag = ok(api.post("/tags", "administrator", json={"name": "Outdoor"}), 201)
    return {"parent": parent, "child": child, "tag": tag}


@pytest.fixture
def full_event(
    api: Api, venue: Body, organizers: list[Body], terms: dict[str, Body], image_id: int
) -> Body:
    """A published event with everything set, as created."""
    return api.create_event(
        title="Jazz night",
        description="Live music.",
        excerpt="Jazz.",
        venue=venue["id"],
        organizer=[organizer["id"] for organizer in organizers],
        categories=[terms["child"]["id"]],
        tags=[terms["tag"]["id"]],
        image=image_id,
        cost="$10 - 20",
        website="https://jazz.example",
        all_day=True,
        featured=True,
    )


# -- the document --------------------------------------------------------------------


def test_components_form_a_valid_openapi_document_in_tec_order() -> None:
    validate_spec({**spec(), "paths": {}})
    assert list(spec()["components"]["schemas"]) == list(COMPONENTS)
    assert list(COMPONENTS)[: len(TEC_COMPONENTS)] == TEC_COMPONENTS


def test_every_documented_property_has_a_description() -> None:
    for name, schema in spec()["components"]["schemas"].items():
        for key, prop in schema["properties"].items():
            assert prop.get("description"), f"{name}.{key}"


# -- events ----------------------------------------------------------------------------


def test_a_single_event_with_everything_set_conforms(api: Api, full_event: Body) -> None:
    body = ok(api.get(f"/events/{full_event['id']}"))
    assert isinstance(body["image"], dict) and body["all_day"] is True
    assert body["venue"]["json_ld"] and len(body["organizer"]) == 2
    assert body["categories"] and body["tags"] and body["cost_details"]["values"]
    assert_conforms(body, "Event")
    assert_conforms(full_event, "Event")  # the creation response (no json_ld)


def test_an_event_without_links_image_or_cost_conforms(api: Api) -> None:
    created = api.create_event(title="Bare")
    body = ok(api.get(f"/events/{created['id']}"))
    assert body["image"] is False and body["venue"] == [] and body["organizer"] == []
    assert body["cost"] == "" and body["cost_details"]["values"] == []
    assert_conforms(body, "Event")


def test_a_password_protected_event_listed_anonymously_conforms(api: Api, full_event: Body) -> None:
    api.create_event(title="Secret", password="open sesame", venue=full_event["venue"]["id"])
    body = ok(api.get("/events"))
    secret = next(event for event in body["events"] if event["title"] == "Secret")
    assert secret["image"] is False and secret["all_day"] is None and secret["venue"] == []
    assert_conforms(body, "EventList")


def test_an_events_page_with_next_and_previous_links_conforms(api: Api) -> None:
    for number in range(3):
        api.create_event(title=f"Event {number}")
    body = ok(api.get("/events?per_page=1&page=2"))
    assert {"next_rest_url", "previous_rest_url"} <= set(body)
    assert_conforms(body, "EventList")
    assert set(body) == documented_keys("EventList")


def test_a_trashed_event_conforms(api: Api, full_event: Body) -> None:
    assert_conforms(ok(api.delete(f"/events/{full_event['id']}", "administrator")), "Event")


# -- venues and organizers ---------------------------------------------------------------


def test_venues_conform(api: Api, venue: Body) -> None:
    single = ok(api.get(f"/venues/{venue['id']}"))
    assert "json_ld" in single and "image" in single
    assert_conforms(single, "Venue")
    assert_conforms(venue, "Venue")
    assert_conforms(ok(api.get("/venues")), "VenueList")
    bare = ok(api.post("/venues", "administrator", json={"venue": "Shed"}), 201)
    assert_conforms(ok(api.get(f"/venues/{bare['id']}")), "Venue")
    assert_conforms(ok(api.delete(f"/venues/{bare['id']}", "administrator")), "Venue")


def test_organizers_conform(api: Api, organizers: list[Body]) -> None:
    for organizer in organizers:
        assert_conforms(ok(api.get(f"/organizers/{organizer['id']}")), "Organizer")
        assert_conforms(organizer, "Organizer")
    assert_conforms(ok(api.get("/organizers?per_page=1&page=2")), "OrganizerList")
    deleted = ok(api.delete(f"/organizers/{organizers[1]['id']}", "administrator"))
    assert_conforms(deleted, "Organizer")


# -- categories and tags -------------------------------------------------------------------


def test_categories_conform(api: Api, full_event: Body, terms: dict[str, Body]) -> None:
    single = ok(api.get(f"/categories/{terms['child']['id']}"))
    assert "up" in single["urls"] and "_links" in single
    assert_conforms(single, "Term")
    assert_conforms(terms["parent"], "Term")
    ok(api.post("/categories", "administrator", json={"name": "Theatre"}), 201)
    listing = ok(api.get("/categories?hide_empty=false&per_page=1&page=2"))
    assert {"next_rest_url", "previous_rest_url"} <= set(listing)
    assert_conforms(listing, "CategoryList")
    assert set(listing) == documented_keys("CategoryList")
    assert_conforms(ok(api.delete(f"/categories/{terms['child']['id']}", "administrator")), "Term")


def test_tags_conform(api: Api, full_event: Body, terms: dict[str, Body]) -> None:
    single = ok(api.get(f"/tags/{terms['tag']['id']}"))
    assert "parent" not in single
    assert_conforms(single, "Term")
    assert_conforms(ok(api.get("/tags")), "TagList")
    assert_conforms(ok(api.delete(f"/tags/{terms['tag']['id']}", "administrator")), "Term")


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "payload", "status", "code"),
    [
        ("GET", "/no/such/route", None, 404, "rest_no_route"),
        ("GET", "/events?page=first&per_page=0", None, 400, "rest_invalid_param"),
        ("GET", "/venues/999999", None, 400, "rest_invalid_param"),
        ("POST", "/venues", {}, 400, "rest_missing_callback_param"),
        ("GET", "/events/999999", None, 404, "rest-event-not-found"),
        ("POST", "/categories", {"name": "Music"}, 400, "term_exists"),
    ],
)
def test_error_bodies_conform(
    api: Api, method: str, path: str, payload: Body | None, status: int, code: str
) -> None:
    api.post("/categories", "administrator", json={"name": "Music"})
    response = api.request(method, path, "administrator", json=payload)
    body = ok(response, status)
    assert body["code"] == code
    assert_conforms(body, "Error")


def test_invalid_parameters_carry_params_and_details(api: Api) -> None:
    body = ok(api.get("/events?page=first"), 400)
    assert body["data"]["params"] and body["data"]["details"]
    assert_conforms(body, "Error")
    no_details = ok(api.get("/venues/999999"), 400)
    assert no_details["data"]["details"] == []
    assert_conforms(no_details, "Error")


def test_the_schemas_reject_what_the_wire_never_sends(api: Api, full_event: Body) -> None:
    """Guards against schemas that accept anything (a ``$ref`` lost on the way, say)."""
    event = ok(api.get(f"/events/{full_event['id']}"))
    term = {key: value for key, value in event["categories"][0].items() if key != "filter"}
    dates = {**event["start_date_details"], "year": 2026}
    for bad in (
        {"venue": [1]},
        {"image": True},
        {"all_day": "yes"},
        {"surprise": 1},
        {"venue": {**event["venue"], "surprise": 1}},
        {"organizer": ["Ada"]},
        {"categories": [term]},
        {"start_date_details": dates},
        {"translations": {"en": "1"}},
    ):
        with pytest.raises(AssertionError):
            assert_conforms({**event, **bad}, "Event")
    with pytest.raises(AssertionError):
        assert_conforms({"code": "x", "message": "y", "data": {}}, "Error")


# -- no drift: documented keys are exactly the emitted ones ----------------------------


def test_event_documents_exactly_the_keys_of_a_full_event(api: Api, full_event: Body) -> None:
    single = ok(api.get(f"/events/{full_event['id']}"))
    assert set(single) == documented_keys("Event")
    listed = ok(api.get("/events"))["events"][0]
    assert set(listed) == documented_keys("Event") - {"json_ld"}
    assert set(single["image"]) == documented_keys("Image") - {"sizes"}
    assert set(single["cost_details"]) == documented_keys("CostDetails")
    assert set(single["start_date_details"]) == documented_keys("DateDetails")
    for term in (*single["categories"], *single["tags"]):
        assert set(term) == documented_keys("EventTerm")


def test_venue_documents_exactly_the_keys_of_a_full_venue(api: Api, venue: Body) -> None:
    single = ok(api.get(f"/venues/{venue['id']}"))
    assert set(single) == documented_keys("Venue")
    assert set(ok(api.get("/venues"))["venues"][0]) == documented_keys("Venue") - {"json_ld"}


def test_organizer_documents_exactly_the_keys_of_a_full_organizer(
    api: Api, organizers: list[Body]
) -> None:
    single = ok(api.get(f"/organizers/{organizers[0]['id']}"))
    assert set(single) == documented_keys("Organizer")
    listed = ok(api.get("/organizers"))["organizers"]
    full = next(item for item in listed if item["id"] == organizers[0]["id"])
    assert set(full) == documented_keys("Organizer") - {"json_ld"}


def test_term_documents_exactly_the_keys_of_categories_and_tags(
    api: Api, full_event: Body, terms: dict[str, Body]
) -> None:
    category = ok(api.get(f"/categories/{terms['child']['id']}"))
    assert set(category) == documented_keys("Term")
    listed = ok(api.get("/categories"))["categories"][0]
    assert set(listed) == documented_keys("Term") - {"_links"}
    tag = ok(api.get(f"/tags/{terms['tag']['id']}"))
    assert set(tag) == documented_keys("Term") - {"parent"}


def test_schemas_declare_keys_in_wire_order(
    api: Api, full_event: Body, venue: Body, organizers: list[Body], terms: dict[str, Body]
) -> None:
    """Documented key order follows the emission order (clients diffing JSON see the same)."""
    bodies = {
        "Event": ok(api.get(f"/events/{full_event['id']}")),
        "Venue": ok(api.get(f"/venues/{venue['id']}")),
        "Organizer": ok(api.get(f"/organizers/{organizers[0]['id']}")),
        "Term": ok(api.get(f"/categories/{terms['child']['id']}")),
    }
    bodies["EventTerm"] = bodies["Event"]["categories"][0]
    for component, body in bodies.items():
        documented = [
            key for key in spec()["components"]["schemas"][component]["properties"] if key in body
        ]
        assert list(body) == documented, component
