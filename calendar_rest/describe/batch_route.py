"""``POST /batch/v1`` in the OpenAPI document (anchors.md §2).

The route lives at the site root, outside the namespace the document's server names,
so its operation names its own server (OpenAPI 3's operation-level ``servers``, which
leaves the path item holding operations only): a generated client calls it with that
URL as its base. Its answer is ``207`` with one
``{"body", "status", "headers"}`` per request, or ``null`` for a request that was not
run (``require-all-validate``).
"""

from __future__ import annotations

import typing as t

from ..i18n.messages import N_
from ..routes import Route
from ..settings import Settings
from ..wordpress.urls import Urls
from .arguments import argument_fields, field_property

MULTI_STATUS = N_("The answer of each request, in the order sent")
ERROR_REF = {"$ref": "#/components/schemas/Error"}
#: what the batch as a whole may answer besides its 207
BATCH_ERRORS = {
    "400": N_("Invalid batch, or more requests than the batch may hold"),
    "401": N_("The credentials are wrong"),
    "403": N_("The user may not do this"),
    "404": N_("No such record, route or archive page"),
    "409": N_("An atomic batch lost a race with concurrent writes too often; retry it"),
    "413": N_("The request body is too large"),
    "429": N_(
        "Too many failed logins (the login or the address is locked for a while), or too "
        "many requests (the rate limits)"
    ),
    "500": N_("The server failed"),
}
ITEM_ANSWER: dict[str, t.Any] = {
    "type": "object",
    "nullable": True,
    "required": ["body", "status", "headers"],
    "properties": {
        "body": {"type": "object", "additionalProperties": True, "nullable": True},
        "status": {"type": "integer"},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
BATCH_ANSWER: dict[str, t.Any] = {
    "type": "object",
    "required": ["responses"],
    "properties": {
        "failed": {"type": "string", "enum": ["validation"]},
        "responses": {"type": "array", "items": ITEM_ANSWER},
    },
}


def batch_path_item(
    route: Route, urls: Urls, settings: Settings, security: str
) -> dict[str, t.Any]:
    """The path item of the batch route, its operation with its own server (the site
    root)."""
    arguments = [
        (name, field, field_property(field, settings, _same))
        for name, field in argument_fields(route.endpoints[0].arguments)
    ]
    schema: dict[str, t.Any] = {
        "type": "object",
        "properties": {name: prop for name, _, prop in arguments},
        "required": [name for name, field, _ in arguments if field.required],
    }
    responses: dict[str, t.Any] = {
        "207": {
            "description": MULTI_STATUS,
            "content": {"application/json": {"schema": BATCH_ANSWER}},
        }
    }
    for status, text in BATCH_ERRORS.items():
        responses[status] = {
            "description": text,
            "content": {"application/json": {"schema": ERROR_REF}},
        }
    operation = {
        "operationId": f"post_{route.spec.resource}_{route.spec.shape}",
        "servers": [{"url": urls.api_root.rstrip("/")}],
        "tags": [route.spec.resource],
        # anyone may send one; each request needs what it would need alone
        "security": [{security: []}, {}],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": schema}},
        },
        "responses": responses,
    }
    return {"post": operation}


def _same(text: str) -> str:
    return text
