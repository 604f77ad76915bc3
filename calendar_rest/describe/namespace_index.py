"""The REST indexes of discovery: the site's (``WP_REST_Server::get_index``, at the
site root) and the namespace's (``WP_REST_Server::get_namespace_index``).

Routes are keyed by their registered regex (``/calendar/events/v1/events/(?P<id>\\d+)``)
in registration order; each lists the union of its methods, one entry per endpoint
with its arguments, and a ``self`` link when the path has no variables. Arguments show
the JSON Schema keywords WordPress shows, then ``required``.
"""

from __future__ import annotations

import typing as t

from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..routes import Endpoint, Route, namespace_routes
from ..settings import NAMESPACE, Settings
from ..wordpress.urls import Urls
from .arguments import argument_fields, field_property

SITE_NAME = N_("Calendar events")
SITE_DESCRIPTION = N_("Calendar events, venues, organizers, categories and tags")
#: the JSON Schema keywords WordPress copies from an argument into the index, in order
INDEX_KEYWORDS = (
    "type",
    "format",
    "enum",
    "items",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "default",
    "description",
)


def namespace_index(
    routes: t.Sequence[Route], urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    """The index of our one namespace, its texts in the request's language."""
    return {
        "namespace": NAMESPACE,
        "routes": _routes(namespace_routes(routes), urls, settings, translate),
        "_links": {"up": [{"href": urls.api_root}]},
    }


def site_index(
    routes: t.Sequence[Route], urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    """The site root's index, where WordPress clients discover the routes: the site
    route (``/``), then every route of the namespace index."""
    site = next(route for route in routes if route.spec.site)
    # routes of their own namespace at the site root (``/batch/v1``), after ours
    own = [route for route in routes if route.spec.site and route.spec.namespace]
    return {
        "name": translate(SITE_NAME),
        "description": translate(SITE_DESCRIPTION),
        "url": urls.api_root,
        "home": urls.api_root,
        "namespaces": [NAMESPACE, *(route.spec.namespace for route in own)],
        "routes": {
            "/": route_entry(site, urls, settings, translate),
            **_routes(namespace_routes(routes), urls, settings, translate),
            **{route.spec.path: route_entry(route, urls, settings, translate) for route in own},
        },
        "_links": {"help": [{"href": urls.rest("doc")}]},
    }


def _routes(
    routes: t.Iterable[Route], urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    return {
        f"/{NAMESPACE}{route.wordpress_pattern}": route_entry(route, urls, settings, translate)
        for route in routes
    }


def route_entry(
    route: Route, urls: Urls, settings: Settings, translate: Translate
) -> dict[str, t.Any]:
    """A route's entry in the index: also the body of a plain ``OPTIONS`` on it."""
    data: dict[str, t.Any] = {
        "namespace": route.spec.namespace if route.spec.site else NAMESPACE,
        "methods": [method for endpoint in route.endpoints for method in endpoint.methods],
        "endpoints": [
            _endpoint(route, endpoint, settings, translate) for endpoint in route.endpoints
        ],
    }
    if route.spec.site:
        data["_links"] = {"self": [{"href": urls.api_root + route.spec.path.lstrip("/")}]}
    elif not route.variables:
        data["_links"] = {"self": [{"href": urls.rest_base + route.relative_path}]}
    return data


def _endpoint(
    route: Route, endpoint: Endpoint, settings: Settings, translate: Translate
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
