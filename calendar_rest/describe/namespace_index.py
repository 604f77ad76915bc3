"""``GET /``: WordPress's namespace index (``WP_REST_Server::get_namespace_index``).

Routes are keyed by their registered regex (``/calendar/events/v1/events/(?P<id>\\d+)``)
in registration order; each lists the union of its methods, one entry per endpoint
with its arguments, and a ``self`` link when the path has no variables. Arguments show
the JSON Schema keywords WordPress shows, then ``required``.
"""

from __future__ import annotations

import typing as t

from ..i18n import Translate
from ..settings import NAMESPACE, Settings
from ..wire.urls import Urls
from .arguments import argument_fields, field_property
from .interface import Endpoint, RouteInfo

#: the JSON Schema keywords WordPress copies from an argument into the index, in order
INDEX_KEYWORDS = (
    "type", "format", "enum", "items", "minimum", "maximum", "minLength", "maxLength",
    "default", "description",
)


def namespace_index(
    routes: t.Sequence[RouteInfo], urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    """The index of our one namespace, its texts in the request's language."""
    return {
        "namespace": NAMESPACE,
        "routes": {
            f"/{NAMESPACE}{route.wordpress_pattern}": _route(route, urls, settings, translate)
            for route in routes
        },
        "_links": {"up": [{"href": urls.api_root}]},
    }


def _route(
    route: RouteInfo, urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    data: dict[str, t.Any] = {
        "namespace": NAMESPACE,
        "methods": [method for endpoint in route.endpoints for method in endpoint.methods],
        "endpoints": [
            _endpoint(route, endpoint, settings, translate) for endpoint in route.endpoints
        ],
    }
    if not route.variables:
        data["_links"] = {"self": [{"href": urls.rest_base + route.relative_path}]}
    return data


def _endpoint(
    route: RouteInfo, endpoint: Endpoint, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    args: dict[str, t.Any] = {
        variable.name: {
            "type": variable.schema["type"],
            "description": translate(variable.description),
            "required": True,
        }
        for variable in route.variables
    }
    for name, field in argument_fields(endpoint.arguments):
        prop = field_property(field, settings, translate)
        arg = {key: prop[key] for key in INDEX_KEYWORDS if key in prop}
        arg["required"] = bool(field.required)
        args.setdefault(name, arg)
    # WordPress serialises an empty PHP array as a JSON list
    return {"methods": list(endpoint.methods), "args": args or []}
