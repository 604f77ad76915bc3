"""The routes as the describers see them: paths, path variables and endpoints.

An endpoint is one responder with the methods it serves, in the route table's order:
POST, PUT and PATCH on an item share one responder, so they form one endpoint, as
TEC's ``EDITABLE`` handlers do.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

from marshmallow import Schema

from ..resources.base import Resource, responder_name
from ..routes import ROUTES, RouteSpec

#: Werkzeug converter → (WordPress's registered regex, JSON Schema of the value)
CONVERTERS: dict[str, tuple[str, dict[str, t.Any]]] = {
    "int": (r"\d+", {"type": "integer", "minimum": 0}),
    "slug": (r"[^/]+", {"type": "string", "pattern": "^[^/]+$"}),
}
VARIABLE_RE = re.compile(r"<(?:(\w+):)?(\w+)>")


@dataclasses.dataclass(frozen=True)
class PathVariable:
    name: str
    schema: dict[str, t.Any]
    description: str


@dataclasses.dataclass(frozen=True)
class Endpoint:
    methods: tuple[str, ...]
    arguments: type[Schema] | None


@dataclasses.dataclass(frozen=True)
class RouteInfo:
    spec: RouteSpec
    variables: tuple[PathVariable, ...]
    endpoints: tuple[Endpoint, ...]

    @property
    def relative_path(self) -> str:
        """The path below the namespace root: ``""`` for the root itself."""
        return "" if self.spec.path == "/" else self.spec.path

    @property
    def wordpress_pattern(self) -> str:
        """The route as WordPress registers it: ``/events/(?P<id>\\d+)``."""
        return VARIABLE_RE.sub(
            lambda match: f"(?P<{match[2]}>{CONVERTERS[match[1]][0]})",
            self.relative_path,
        )

    @property
    def openapi_path(self) -> str:
        """The route as an OpenAPI path template: ``/events/{id}``."""
        return VARIABLE_RE.sub(lambda match: "{" + match[2] + "}", self.spec.path)


def describe_routes(resource_classes: t.Mapping[str, type[Resource]]) -> tuple[RouteInfo, ...]:
    """Every served route, in registration order, with its endpoints."""
    routes = []
    for spec in ROUTES:
        resource_class = resource_classes[spec.resource]
        endpoints = _endpoints(spec, resource_class)
        if endpoints:
            routes.append(RouteInfo(spec, _variables(spec, resource_class), endpoints))
    return tuple(routes)


def _variables(spec: RouteSpec, resource_class: type[Resource]) -> tuple[PathVariable, ...]:
    return tuple(
        PathVariable(name, CONVERTERS[converter][1], resource_class.path_descriptions[name])
        for converter, name in VARIABLE_RE.findall(spec.path)
    )


def _endpoints(spec: RouteSpec, resource_class: type[Resource]) -> tuple[Endpoint, ...]:
    """One endpoint per responder, methods grouped in the route table's order."""
    grouped: dict[str, list[str]] = {}
    for method in spec.methods:
        name = responder_name(method, spec.shape)
        if getattr(resource_class, name, None) is not None:
            grouped.setdefault(name, []).append(method)
    return tuple(
        Endpoint(tuple(methods), resource_class.declared_arguments(methods[0], spec.shape))
        for methods in grouped.values()
    )
