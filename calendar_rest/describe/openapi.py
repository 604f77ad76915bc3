"""``GET /doc``: the OpenAPI 3 document of the namespace, generated with apispec.

Paths, parameters and request bodies come from the route table and the declared
argument sets (through ``arguments.field_property``, as the namespace index does);
responses reference the representation schemas of ``schemas.representations``.
Every ``description`` is translated into the request's language. The only server is
the namespace root as mounted, so a client can call ``servers[0].url + path``.
"""

from __future__ import annotations

import typing as t

from apispec import APISpec

from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..media_types import JSON
from ..routes import Endpoint, Route, RouteSpec, namespace_routes
from ..schemas.representations import COMPONENTS
from ..settings import Settings
from ..wordpress.urls import Urls
from .arguments import OPENAPI_VERSION, argument_fields, field_property, new_plugin
from .batch_route import batch_path_item

API_VERSION = "1.0.0"
TITLE = N_("Calendar events REST API")
DESCRIPTION = N_(
    "Read and write calendar events, venues, organizers, event categories and event tags;"
    " the wire format of The Events Calendar's REST API v1."
)
SECURITY_SCHEME = "applicationPassword"
#: TEC's order of the document's top-level keys
TOP_LEVEL_ORDER = ("openapi", "info", "components", "servers", "paths")
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: resources only administrators may call, reads included
ADMIN_ONLY = frozenset({"webhooks"})
BODY_TYPES = ("application/json", "application/x-www-form-urlencoded")
#: what each status means, for the ``description`` every OpenAPI response needs
STATUS_TEXTS = {
    "200": N_("The requested data"),
    "201": N_("The created record"),
    "304": N_("The copy the client holds is current (If-None-Match, If-Modified-Since)"),
    "400": N_("Missing or invalid parameters"),
    "401": N_("Authentication is required, or the credentials are wrong"),
    "403": N_("The user may not do this"),
    "404": N_("No such record, route or archive page"),
    "409": N_("A concurrent write won; the request may be retried"),
    "410": N_("The record is already in the trash"),
    "412": N_(
        "A precondition (If-Match, If-Unmodified-Since, If-None-Match) failed: nothing was written"
    ),
    "413": N_("The request body is too large"),
    "429": N_(
        "Too many failed logins (the login or the address is locked for a while), or too "
        "many requests (the rate limits)"
    ),
    "500": N_("The server failed"),
}
#: list totals, in WordPress's and TEC's headers
TOTAL_HEADERS = {
    "X-WP-Total": N_("The number of records matching the request"),
    "X-WP-TotalPages": N_("The number of pages"),
    "X-TEC-Total": N_("The number of records matching the request"),
    "X-TEC-TotalPages": N_("The number of pages"),
}
#: the resources whose singles carry ``Last-Modified``
DATED = frozenset({"events", "venues", "organizers"})
SINGLE_SHAPES = frozenset({"item", "by_slug"})
#: the iCalendar feeds (calendar.md §1): dated too (``Last-Modified``, §2.2)
FEED_SHAPES = frozenset({"ics", "item_ics"})
#: an iCalendar body (RFC 5545)
CALENDAR_SCHEMA = {"type": "string"}
ETAG = {
    "description": N_("A strong tag of this representation (for If-None-Match and If-Match)"),
    "schema": {"type": "string"},
}
LAST_MODIFIED = {
    "description": N_("When the record was last modified, to the second (HTTP date)"),
    "schema": {"type": "string"},
}
#: conditional request headers: (name, description)
IF_NONE_MATCH_READ = (
    "If-None-Match",
    N_("Tags of copies the client holds, or *: a match answers 304 without a body"),
)
IF_MODIFIED_SINCE = (
    "If-Modified-Since",
    N_("An HTTP date: 304 when the record was not modified since (without If-None-Match)"),
)
IF_MATCH = (
    "If-Match",
    N_("Tags, or *: write only if the record's current tag is one of them (else 412)"),
)
IF_UNMODIFIED_SINCE = (
    "If-Unmodified-Since",
    N_("An HTTP date: write only if the record was not modified since (without If-Match)"),
)
IF_NONE_MATCH_WRITE = (
    "If-None-Match",
    N_("Tags, or *: refuse the write (412) if the record's current tag is one of them"),
)
RETRY_AFTER = {
    "description": N_("Whole seconds until the lock ends, or until a request is allowed again"),
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
}
#: the IETF rate limit fields (draft-ietf-httpapi-ratelimit-headers), when a limit counted
RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {
        "description": N_('The quotas that counted the request, e.g. "anon";q=600;w=60'),
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": N_(
            'What is left of each quota, and the seconds until it is whole, e.g. "anon";r=0;t=60'
        ),
        "schema": {"type": "string"},
    },
}
ROOT_SCHEMA: dict[str, t.Any] = {
    "type": "object",
    "required": ["namespace", "routes", "_links"],
    "properties": {
        "namespace": {"type": "string"},
        "routes": {"type": "object"},
        "_links": {"type": "object"},
    },
}
DOC_SCHEMA: dict[str, t.Any] = {
    "type": "object",
    "required": ["openapi", "info", "servers", "paths", "components"],
}


def openapi_document(
    routes: t.Sequence[Route], urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    spec = APISpec(
        title=TITLE,
        version=API_VERSION,
        openapi_version=OPENAPI_VERSION,
        plugins=[new_plugin()],
        info={"description": DESCRIPTION},
        servers=[{"url": urls.rest_base}],
    )
    for name, schema in COMPONENTS.items():
        spec.components.schema(name, schema=schema)
    spec.components.security_scheme(
        SECURITY_SCHEME,
        {
            "type": "http",
            "scheme": "basic",
            "description": N_("A user login and one of the user's application passwords"),
        },
    )
    for route in namespace_routes(routes):
        spec.path(path=route.openapi_path, operations=_operations(route, settings))
    document = spec.to_dict()
    for route in routes:  # routes of their own namespace at the site root (batch)
        if route.spec.site and route.spec.namespace:
            item = batch_path_item(route, urls, settings, SECURITY_SCHEME)
            item["post"]["responses"]["429"]["headers"] = {
                "Retry-After": RETRY_AFTER,
                **RATE_LIMIT_HEADERS,
            }
            document["paths"][route.spec.path] = item
    ordered = {key: document[key] for key in TOP_LEVEL_ORDER if key in document}
    ordered["info"] = {key: document["info"][key] for key in ("version", "title", "description")}
    return t.cast(dict[str, t.Any], _translated(ordered, translate))


def component_schemas(translate: Translate) -> dict[str, dict[str, t.Any]]:
    """The document's ``components.schemas``, texts translated."""
    spec = APISpec(TITLE, API_VERSION, OPENAPI_VERSION, plugins=[new_plugin()])
    for name, schema in COMPONENTS.items():
        spec.components.schema(name, schema=schema)
    schemas = spec.to_dict()["components"]["schemas"]
    return t.cast(dict[str, dict[str, t.Any]], _translated(schemas, translate))


def _operations(route: Route, settings: Settings) -> dict[str, t.Any]:
    operations = {}
    for endpoint in route.endpoints:
        for method in endpoint.methods:
            operations[method.lower()] = _operation(route, endpoint, method, settings)
    return operations


def _operation(
    route: Route, endpoint: Endpoint, method: str, settings: Settings
) -> dict[str, t.Any]:
    spec = route.spec
    parameters: list[dict[str, t.Any]] = [
        {
            "in": "path",
            "name": variable.name,
            "description": variable.description,
            "required": True,
            "schema": variable.schema,
        }
        for variable in route.variables
    ]
    operation: dict[str, t.Any] = {
        "operationId": f"{method.lower()}_{spec.resource}_{spec.shape}",
        "tags": [spec.resource],
        # reads are public (credentials widen what they show); writes need a user
        "security": [{SECURITY_SCHEME: []}]
        + ([{}] if method == "GET" and spec.resource not in ADMIN_ONLY else []),
    }
    arguments = [
        (name, field, field_property(field, settings, _same))
        for name, field in argument_fields(endpoint.arguments)
    ]
    if method in BODY_METHODS:
        operation["requestBody"] = _request_body(arguments)
    else:
        parameters += [
            _query_parameter(name, field.required, prop) for name, field, prop in arguments
        ]
    parameters += [
        {"in": "header", "name": name, "description": text, "schema": {"type": "string"}}
        for name, text in _conditional_headers(route, method)
    ]
    if parameters:
        operation["parameters"] = parameters
    operation["responses"] = _responses(route, method)
    return operation


def _conditional_headers(route: Route, method: str) -> list[tuple[str, str]]:
    """The conditional request headers ``method`` evaluates on ``route``."""
    spec = route.spec
    dated = spec.resource in DATED and spec.shape in SINGLE_SHAPES | FEED_SHAPES
    if method == "GET":
        return [IF_NONE_MATCH_READ, *([IF_MODIFIED_SINCE] if dated else [])]
    if spec.shape not in SINGLE_SHAPES:
        return []
    return [IF_MATCH, *([IF_UNMODIFIED_SINCE] if dated else []), IF_NONE_MATCH_WRITE]


def _same(text: str) -> str:
    return text


def _query_parameter(name: str, required: bool, prop: dict[str, t.Any]) -> dict[str, t.Any]:
    schema = {key: value for key, value in prop.items() if key != "description"}
    parameter = {
        "in": "query",
        "name": name,
        "description": prop.get("description", ""),
        "required": bool(required),
        "schema": schema,
    }
    if schema.get("type") == "array":  # repeated keys; commas and name[] mean the same
        parameter.update(style="form", explode=True)
    return parameter


def _request_body(arguments: list[tuple[str, t.Any, dict[str, t.Any]]]) -> dict[str, t.Any]:
    schema: dict[str, t.Any] = {
        "type": "object",
        "properties": {name: prop for name, _, prop in arguments},
    }
    required = [name for name, field, _ in arguments if field.required]
    if required:
        schema["required"] = required
    return {"content": {media: {"schema": schema} for media in BODY_TYPES}}


def _responses(route: Route, method: str) -> dict[str, t.Any]:
    spec = route.spec
    success = "201" if method == "POST" and spec.shape == "collection" else "200"
    body = _success_schema(route, method)
    # JSON stays the first media type of a negotiated route (client generators read it)
    media_types = spec.media_types if method == "GET" else (JSON,)
    responses: dict[str, t.Any] = {
        success: {
            "description": STATUS_TEXTS[success],
            "content": {
                media: {"schema": body if media == JSON else CALENDAR_SCHEMA}
                for media in media_types
            },
        }
    }
    if body.get("$ref", "").endswith("List"):
        responses[success]["headers"] = {
            name: {"description": text, "required": True, "schema": {"type": "integer"}}
            for name, text in TOTAL_HEADERS.items()
        }
    elif body.get("type") == "array":  # WordPress core's lists: the totals in headers
        responses[success]["headers"] = {
            name: {
                "description": TOTAL_HEADERS[name],
                "required": True,
                "schema": {"type": "integer"},
            }
            for name in ("X-WP-Total", "X-WP-TotalPages")
        }
    _describe_validators(responses, spec, method, success)
    statuses = _error_statuses(method)
    if method != "GET" and spec.shape in SINGLE_SHAPES:
        statuses = sorted({*statuses, "412"}, key=lambda status: (status == "500", status))
    if spec.resource == "changes":  # an unusable sync token: start over (sync.md §3.7)
        statuses = sorted({*statuses, "410"})
    for status in statuses:
        responses[status] = {
            "description": STATUS_TEXTS[status],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    responses["429"]["headers"] = {"Retry-After": RETRY_AFTER, **RATE_LIMIT_HEADERS}
    return responses


def _describe_validators(
    responses: dict[str, t.Any], spec: RouteSpec, method: str, success: str
) -> None:
    """``ETag`` (and ``Last-Modified``) on the success a read or a record's write
    answers, and a read's ``304`` carrying them."""
    dated = spec.resource in DATED and (
        spec.shape in SINGLE_SHAPES | FEED_SHAPES or success == "201"
    )
    if method != "GET" and spec.shape not in SINGLE_SHAPES and success != "201":
        return
    validators: dict[str, t.Any] = {"ETag": {**ETAG, "required": method == "GET"}}
    if dated:
        validators["Last-Modified"] = {**LAST_MODIFIED, "required": method == "GET"}
    headers = responses[success].setdefault("headers", {})
    headers.update(validators)
    if method == "GET":
        responses["304"] = {"description": STATUS_TEXTS["304"], "headers": validators}


#: the representation each resource answers with: (one record, one archive page)
REPRESENTATIONS = {
    "events": ("Event", "EventList"),
    "venues": ("Venue", "VenueList"),
    "organizers": ("Organizer", "OrganizerList"),
    "categories": ("Term", "CategoryList"),
    "tags": ("Term", "TagList"),
    "changes": ("Change", "ChangeList"),
}


def _success_schema(route: Route, method: str) -> dict[str, t.Any]:
    spec = route.spec
    if spec.resource == "root":
        return ROOT_SCHEMA
    if spec.resource == "doc":
        return DOC_SCHEMA
    if spec.resource == "webhooks":
        return _webhook_schema(spec.shape, method)
    single, archive = REPRESENTATIONS[spec.resource]
    listing = spec.shape in ("collection", "occurrences")
    name = archive if listing and method == "GET" else single
    return {"$ref": f"#/components/schemas/{name}"}


def _webhook_schema(shape: str, method: str) -> dict[str, t.Any]:
    """Webhook routes answer WordPress core's shapes: bare arrays, ``{deleted,
    previous}``, and the create's body, the only one with the secret."""
    if shape == "deliveries":
        return {"type": "array", "items": {"$ref": "#/components/schemas/WebhookDelivery"}}
    if shape == "collection":
        if method == "POST":
            return {"$ref": "#/components/schemas/WebhookCreated"}
        return {"type": "array", "items": {"$ref": "#/components/schemas/Webhook"}}
    if method == "DELETE":
        return {"$ref": "#/components/schemas/WebhookDeleted"}
    return {"$ref": "#/components/schemas/Webhook"}


def _error_statuses(method: str) -> list[str]:
    statuses = ["400", "401", "403", "404", "429"]  # any credentials may be throttled
    if method in BODY_METHODS or method == "DELETE":
        statuses += ["409", "413"]
    if method == "DELETE":
        statuses.append("410")
    return [*sorted(statuses), "500"]


def _translated(node: t.Any, translate: Translate) -> t.Any:
    """A copy of ``node`` with every ``description`` text (and the title) translated."""
    if isinstance(node, dict):
        return {
            key: translate(value)
            if key in ("description", "title") and isinstance(value, str)
            else _translated(value, translate)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_translated(item, translate) for item in node]
    return node
