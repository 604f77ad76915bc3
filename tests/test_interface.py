"""The namespace index (``GET /``) and the OpenAPI document (``GET /doc``).

Expected parameters are read from the argument sets the responders declare, never
listed here, so these tests check that both descriptions are generated from them.
"""

from __future__ import annotations

import datetime as dt
import re
import typing as t

import pytest
from conftest import NS, TEC_COMPONENTS, Api, api_for, assert_wp_error
from marshmallow import Schema
from openapi_spec_validator import validate as validate_openapi
from werkzeug.test import Client

from calendar_rest import create_app
from calendar_rest.i18n.catalogs import translator
from calendar_rest.resources import RESOURCE_CLASSES
from calendar_rest.resources.linked_posts import Venues
from calendar_rest.routes import ROUTES, route_table
from calendar_rest.schemas import VenueCreateArgs
from calendar_rest.schemas import fields as f

#: TEC's registration order, with ``calendar`` for ``tribe``
WORDPRESS_ROUTES = [
    "/calendar/events/v1",
    "/calendar/events/v1/doc",
    "/calendar/events/v1/events",
    "/calendar/events/v1/events/(?P<id>\\d+)",
    "/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)",
    "/calendar/events/v1/venues",
    "/calendar/events/v1/venues/(?P<id>\\d+)",
    "/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)",
    "/calendar/events/v1/organizers",
    "/calendar/events/v1/organizers/(?P<id>\\d+)",
    "/calendar/events/v1/organizers/by-slug/(?P<slug>[^/]+)",
    "/calendar/events/v1/categories",
    "/calendar/events/v1/categories/(?P<id>\\d+)",
    "/calendar/events/v1/tags",
    "/calendar/events/v1/tags/(?P<id>\\d+)",
    "/calendar/events/v1/events/(?P<id>\\d+)/occurrences",
    "/calendar/events/v1/events.ics",
    "/calendar/events/v1/events/(?P<id>[\\d]+).ics",
    "/calendar/events/v1/changes",
    "/calendar/events/v1/webhooks",
    "/calendar/events/v1/webhooks/(?P<id>\\d+)",
    "/calendar/events/v1/webhooks/(?P<id>\\d+)/deliveries",
]
OPENAPI_PATHS = [
    "/",
    "/doc",
    "/events",
    "/events/{id}",
    "/events/by-slug/{slug}",
    "/venues",
    "/venues/{id}",
    "/venues/by-slug/{slug}",
    "/organizers",
    "/organizers/{id}",
    "/organizers/by-slug/{slug}",
    "/categories",
    "/categories/{id}",
    "/tags",
    "/tags/{id}",
    "/events/{id}/occurrences",
    "/events.ics",
    "/events/{id}.ics",
    "/changes",
    "/webhooks",
    "/webhooks/{id}",
    "/webhooks/{id}/deliveries",
    # at the site root, with its own server (anchors.md §2)
    "/batch/v1",
]
NOW = dt.datetime(2026, 1, 1)
#: the routes of the namespace (the site root is described by the site index)
NAMESPACE_ROUTES = tuple(spec for spec in ROUTES if not spec.site)
VARIABLE = re.compile(r"<(?:\w+:)?(\w+)>")


def declared_arguments(resource: str, method: str, shape: str) -> type[Schema] | None:
    """The argument set the route table records for this responder."""
    route = next(
        route
        for route in route_table(RESOURCE_CLASSES)
        if (route.spec.resource, route.spec.shape) == (resource, shape)
    )
    endpoint = route.endpoint(method)
    return endpoint.arguments if endpoint is not None else None


def declared(resource: str, method: str, shape: str) -> list[str]:
    """The parameter names the responder validates, read off its declared schema."""
    arguments = declared_arguments(resource, method, shape)
    assert arguments is not None, f"{resource}.{shape} {method} declares no argument set"
    return [field.data_key or name for name, field in arguments().load_fields.items()]


def route_methods() -> list[tuple[str, str, str, str]]:
    """(path, resource, shape, method) for every method of every route."""
    return [
        (spec.path, spec.resource, spec.shape, method)
        for spec in NAMESPACE_ROUTES
        for method in spec.methods
    ]


# -- the namespace index --------------------------------------------------------------


def test_the_index_keys_every_route_by_its_wordpress_regex_in_registration_order(
    api: Api,
) -> None:
    response = api.get("/")
    assert response.status_code == 200
    body = response.json
    assert list(body) == ["namespace", "routes", "_links"]
    assert body["namespace"] == "calendar/events/v1"
    assert list(body["routes"]) == WORDPRESS_ROUTES
    assert body["_links"] == {"up": [{"href": "http://localhost/"}]}


@pytest.mark.parametrize("spec", NAMESPACE_ROUTES, ids=lambda spec: spec.path)
def test_each_route_lists_its_methods_endpoints_and_every_declared_parameter(
    api: Api, spec: t.Any
) -> None:
    routes = api.get("/").json["routes"]
    route = next(
        value
        for key, value in zip(routes, routes.values(), strict=True)
        if key == WORDPRESS_ROUTES[NAMESPACE_ROUTES.index(spec)]
    )
    assert route["namespace"] == "calendar/events/v1"
    assert route["methods"] == list(spec.methods)
    variables = VARIABLE.findall(spec.path)
    for endpoint in route["endpoints"]:
        args = endpoint["args"]
        names = declared(spec.resource, endpoint["methods"][0], spec.shape)
        # by slug, the path's slug and the new-slug field share one name (as in TEC)
        assert list(args) == variables + [name for name in names if name not in variables]
        for name in variables:
            assert args[name]["required"] is True
        for arg in args.values():
            assert list(arg)[-1] == "required" and isinstance(arg["required"], bool)
            assert arg["description"]
    if variables:
        assert "_links" not in route
    else:
        href = "http://localhost" + NS + ("" if spec.path == "/" else spec.path)
        assert route["_links"] == {"self": [{"href": href}]}


def test_editable_methods_form_one_endpoint_between_get_and_delete(api: Api) -> None:
    """open-web.md §8: item routes list GET, the edits, then DELETE (TEC registers
    DELETE second; WordPress clients read the order of ``methods``)."""
    routes = api.get("/").json["routes"]
    methods = [endpoint["methods"] for endpoint in routes[WORDPRESS_ROUTES[3]]["endpoints"]]
    assert methods == [["GET"], ["POST", "PUT", "PATCH"], ["DELETE"]]
    categories = WORDPRESS_ROUTES.index("/calendar/events/v1/categories/(?P<id>\\d+)")
    methods = [
        endpoint["methods"] for endpoint in routes[WORDPRESS_ROUTES[categories]]["endpoints"]
    ]
    assert methods == [["GET"], ["POST", "PUT", "PATCH"], ["DELETE"]]
    methods = [endpoint["methods"] for endpoint in routes[WORDPRESS_ROUTES[2]]["endpoints"]]
    assert methods == [["GET"], ["POST"]]


def test_arguments_carry_type_default_enum_items_and_required(api: Api) -> None:
    routes = api.get("/").json["routes"]
    archive = routes["/calendar/events/v1/events"]["endpoints"][0]["args"]
    assert archive["page"]["type"] == "integer" and archive["page"]["default"] == 1
    assert archive["per_page"]["default"] == 10  # the site's default_per_page setting
    assert archive["venue"]["type"] == "array"
    assert archive["venue"]["items"]["type"] == "integer"
    assert archive["featured"]["type"] == "boolean"
    assert archive["i18n_language"]["enum"] == ["en", "fr"]
    create = routes["/calendar/events/v1/events"]["endpoints"][1]["args"]
    assert [name for name, arg in create.items() if arg["required"]] == [
        "title",
        "start_date",
        "end_date",
    ]
    assert create["status"]["enum"] == ["publish", "future", "draft", "pending", "private"]
    root = routes["/calendar/events/v1"]["endpoints"][0]["args"]
    assert root["namespace"]["default"] == "calendar/events/v1"
    assert root["context"]["default"] == "view"


def test_the_per_page_default_follows_the_setting(sibling_app: t.Any, api: Api) -> None:
    other = sibling_app(default_per_page=25)
    routes = Client(other).get(NS + "/").json["routes"]
    assert routes[f"{NS}/venues"]["endpoints"][0]["args"]["per_page"]["default"] == 25


def test_a_new_parameter_appears_in_the_index_and_the_doc_without_touching_them(
    api: Api, sibling_app: t.Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    class ExtendedVenueCreateArgs(VenueCreateArgs):
        capacity = f.Integer(metadata={"description": "How many people the venue seats"})

    monkeypatch.setattr(Venues, "create_args", ExtendedVenueCreateArgs)
    extended = api_for(sibling_app(), api)  # the route table is read at start-up
    index = extended.get("/").json["routes"][f"{NS}/venues"]["endpoints"][1]["args"]
    assert index["capacity"] == {
        "type": "integer",
        "minimum": -(2**31 - 1),
        "maximum": 2**31 - 1,
        "description": "How many people the venue seats",
        "required": False,
    }
    doc = extended.get("/doc").json
    body = doc["paths"]["/venues"]["post"]["requestBody"]["content"]["application/json"]
    assert "capacity" in body["schema"]["properties"]
    refused = extended.post("/venues", "administrator", json={"venue": "Hall", "capacity": "x"})
    assert list(assert_wp_error(refused, 400, "rest_invalid_param")["data"]["params"]) == [
        "capacity"
    ]
    assert "capacity" not in api.get("/").json["routes"][f"{NS}/venues"]["endpoints"][1]["args"]


def test_another_namespace_is_not_found(api: Api) -> None:
    assert_wp_error(
        api.get("/", query_string={"namespace": "wp/v2"}), 404, "rest_invalid_namespace"
    )
    ours = api.get("/", query_string={"namespace": "calendar/events/v1", "context": "view"})
    assert ours.status_code == 200


def test_an_unknown_context_is_a_clear_400(api: Api) -> None:
    body = assert_wp_error(
        api.get("/", query_string={"context": "nonsense"}), 400, "rest_invalid_param"
    )
    assert list(body["data"]["params"]) == ["context"]


def test_the_index_is_public_and_allows_get_only(api: Api) -> None:
    response = api.get("/")
    assert response.status_code == 200
    assert response.headers["Allow"] == "GET"
    assert_wp_error(api.post("/", "administrator"), 404, "rest_no_route")


# -- /doc -----------------------------------------------------------------------------


def test_the_doc_is_a_valid_openapi_document_in_tecs_key_order(api: Api) -> None:
    response = api.get("/doc")
    assert response.status_code == 200
    document = response.json
    validate_openapi(document)
    assert list(document) == ["openapi", "info", "components", "servers", "paths"]
    assert document["openapi"].startswith("3.0")
    assert list(document["components"]["schemas"])[:8] == TEC_COMPONENTS
    assert list(document["paths"]) == OPENAPI_PATHS


@pytest.fixture(scope="module")
def document(database_url: str) -> dict[str, t.Any]:
    """``/doc`` as an app with the default settings serves it, fetched once for the
    tests that read it operation by operation: each app renders it anew (0.1 s)."""
    app = create_app(database_url)
    try:
        response = Client(app).get(f"{NS}/doc")
    finally:
        app.database.close_all()
    assert response.status_code == 200
    return t.cast(dict[str, t.Any], response.json)


@pytest.mark.parametrize(("path", "resource", "shape", "method"), route_methods())
def test_every_operation_documents_every_declared_parameter(
    document: dict[str, t.Any], path: str, resource: str, shape: str, method: str
) -> None:
    openapi_path = VARIABLE.sub(lambda match: "{" + match[1] + "}", path)
    operation = document["paths"][openapi_path][method.lower()]
    variables = VARIABLE.findall(path)
    parameters = operation.get("parameters", [])
    assert [p["name"] for p in parameters if p["in"] == "path"] == variables
    names = declared(resource, method, shape)
    if method in ("POST", "PUT", "PATCH"):
        for media in ("application/json", "application/x-www-form-urlencoded"):
            schema = operation["requestBody"]["content"][media]["schema"]
            assert list(schema["properties"]) == names
    else:
        assert [p["name"] for p in parameters if p["in"] == "query"] == names
    assert "200" in operation["responses"] or "201" in operation["responses"]
    assert {"400", "401", "403", "404", "500"} <= set(operation["responses"])


@pytest.mark.parametrize(
    ("script_name", "path", "server"),
    [
        ("", f"{NS}/doc", f"http://localhost{NS}"),
        ("", f"/fr{NS}/doc", f"http://localhost/fr{NS}"),
        ("/api", f"{NS}/doc", f"http://localhost/api{NS}"),
        ("/api", f"/fr{NS}/doc", f"http://localhost/api/fr{NS}"),
    ],
)
def test_the_server_is_the_namespace_root_as_mounted(
    api: Api, script_name: str, path: str, server: str
) -> None:
    response = api.client.get(path, environ_overrides={"SCRIPT_NAME": script_name})
    assert response.json["servers"] == [{"url": server}]


def test_the_site_url_setting_decides_the_server(sibling_app: t.Any, api: Api) -> None:
    other = sibling_app(site_url="https://calendar.example.org/site")
    document = Client(other).get(f"/fr{NS}/doc").json
    assert document["servers"] == [{"url": f"https://calendar.example.org/site/fr{NS}"}]


def test_list_responses_document_their_total_headers(api: Api) -> None:
    operation = api.get("/doc").json["paths"]["/events"]["get"]
    headers = operation["responses"]["200"]["headers"]
    totals = {"X-WP-Total", "X-WP-TotalPages", "X-TEC-Total", "X-TEC-TotalPages"}
    assert set(headers) == totals | {"ETag"}  # and the tag of every read (sync.md §1.1)


# -- languages --------------------------------------------------------------------------


def french(text: str) -> str:
    translated = translator("fr")(text)
    assert translated != text, f"no French for {text!r}"
    return translated


@pytest.mark.parametrize(
    ("path", "query"),
    [(f"/fr{NS}/", {}), ("/", {"i18n_language": "fr"})],
    ids=["french root", "i18n_language"],
)
def test_the_index_speaks_french(api: Api, path: str, query: dict[str, str]) -> None:
    routes = api.get(path, query_string=query).json["routes"]
    page = routes[f"{NS}/events"]["endpoints"][0]["args"]["page"]
    assert page["description"] == french("The archive page to return")
    identifier = routes[f"{NS}/venues/(?P<id>\\d+)"]["endpoints"][0]["args"]["id"]
    assert identifier["description"] == french("The venue post ID")


def test_the_french_root_links_under_fr(api: Api) -> None:
    body = api.get(f"/fr{NS}/").json
    assert body["_links"]["up"] == [{"href": "http://localhost/fr/"}]
    assert body["routes"][f"{NS}/events"]["_links"]["self"] == [
        {"href": f"http://localhost/fr{NS}/events"}
    ]


@pytest.mark.parametrize(
    ("path", "query"),
    [(f"/fr{NS}/doc", {}), ("/doc", {"i18n_language": "fr"})],
    ids=["french root", "i18n_language"],
)
def test_the_doc_speaks_french(api: Api, path: str, query: dict[str, str]) -> None:
    document = api.get(path, query_string=query).json
    validate_openapi(document)
    assert document["info"]["title"] == french("Calendar events REST API")
    parameters = document["paths"]["/events"]["get"]["parameters"]
    page = next(p for p in parameters if p["name"] == "page")
    assert page["description"] == french("The archive page to return")
    status = document["components"]["schemas"]["Event"]["properties"]["status"]
    assert status["description"] == french("The event status")


def test_english_stays_the_default(api: Api) -> None:
    routes = api.get("/").json["routes"]
    page = routes[f"{NS}/events"]["endpoints"][0]["args"]["page"]
    assert page["description"] == "The archive page to return"


def existing_record_url(api: Api, path: str, resource: str) -> str:
    """``path`` with its variable filled in by a record that exists."""
    if "<" not in path:
        return path
    record = {
        "events": lambda: api.create_event(),
        "venues": lambda: api.post("/venues", "administrator", json={"venue": "Hall"}).json,
        "organizers": lambda: (
            api.post("/organizers", "administrator", json={"organizer": "Ann"}).json
        ),
        "categories": lambda: api.post("/categories", "administrator", json={"name": "C"}).json,
        "tags": lambda: api.post("/tags", "administrator", json={"name": "T"}).json,
        "webhooks": lambda: webhook_subscription(api),
    }[resource]()
    return VARIABLE.sub(lambda match: str(record[match[1]]), path)


def webhook_subscription(api: Api) -> dict[str, int]:
    """A subscription stored directly (the API would resolve a public host)."""
    from calendar_rest.repository.webhooks import create_subscription

    with api.app.database.connection_context():
        created, _ = create_subscription("https://hooks.example.com/in", ["*"], True, NOW)
    return {"id": created.id}


def required_fields(resource: str, method: str, shape: str) -> dict[str, str]:
    """A value for each required parameter, so that only the language is wrong."""
    arguments = declared_arguments(resource, method, shape)
    assert arguments is not None
    return {
        field.data_key or name: "2030-01-01 10:00:00"
        for name, field in arguments().load_fields.items()
        if field.required
    }


@pytest.mark.parametrize("root", ["", "/fr"])
@pytest.mark.parametrize(("path", "resource", "shape", "method"), route_methods())
def test_every_route_refuses_a_language_other_than_en_and_fr(
    api: Api, path: str, resource: str, shape: str, method: str, root: str
) -> None:
    """On both roots: the French root serves the same routes and parameters."""
    url = existing_record_url(api, path, resource)
    url = f"{root}{NS}{'' if url == '/' else url}" if root else url
    response = api.request(
        method,
        url,
        "administrator",
        query_string={"i18n_language": "de"},
        json=required_fields(resource, method, shape) if method != "GET" else None,
    )
    body = assert_wp_error(response, 400, "rest_invalid_param")
    assert "i18n_language" in body["data"]["params"]
    assert "i18n_language" in declared(resource, method, shape)


def test_error_messages_follow_the_request_language(api: Api) -> None:
    english = assert_wp_error(api.get("/nope"), 404, "rest_no_route")
    body = assert_wp_error(api.get(f"/fr{NS}/nope"), 404, "rest_no_route")
    assert body["message"] == french(english["message"])
    invalid = api.get("/events", query_string={"page": "x", "i18n_language": "fr"})
    body = assert_wp_error(invalid, 400, "rest_invalid_param")
    assert body["message"] == french("Invalid parameter(s): %s") % "page"
    assert body["data"]["params"]["page"] == french("%(param)s is not of type integer.") % {
        "param": "page"
    }


def test_a_missing_parameter_is_reported_in_french(api: Api) -> None:
    response = api.post(f"/fr{NS}/events", "administrator", json={"title": "Concert"})
    body = assert_wp_error(response, 400, "rest_missing_callback_param")
    assert body["message"] == french("Missing parameter(s): %s") % "start_date, end_date"


def test_a_free_event_says_so_in_french(api: Api) -> None:
    event = api.create_event(cost="0")
    assert event["cost"] == "Free"
    french_event = api.get(f"/fr{NS}/events/{event['id']}").json
    assert french_event["cost"] == french("Free")


def test_every_responder_declares_its_argument_set() -> None:
    for path, resource, shape, method in route_methods():
        arguments = declared_arguments(resource, method, shape)
        assert arguments is not None and issubclass(arguments, Schema), (path, method)
    assert [route.spec for route in route_table(RESOURCE_CLASSES)] == list(ROUTES)
