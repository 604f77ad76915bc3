"""What serves each route and method, resolved once at start-up (Falcon's way).

The route table names the responders; binding it to resource instances gives every
``(route, method)`` its :class:`Target`: the responder, its argument set (one shared
schema instance, loading with it is stateless) and the parameters that take a list.
"""

from __future__ import annotations

import dataclasses
import functools
import typing as t

from marshmallow import EXCLUDE, Schema

from ..responders import Resource
from ..routes import Route
from ..wire.reply import Reply


class NoArgs(Schema):
    """The argument set of a responder that declares none: every parameter is ignored."""

    class Meta:
        unknown = EXCLUDE


@dataclasses.dataclass(frozen=True)
class Target:
    """What serves one method of one route."""

    route: Route
    resource: Resource
    responder: t.Callable[..., Reply]
    #: the declared argument set, one shared instance (loading with it is stateless)
    schema: Schema
    #: the responder reports invalid parameters itself (``routes.accepts``)
    collects_errors: bool
    #: the parameters that take a list (their repeated keys are united)
    repeatable: frozenset[str]


@functools.cache
def shared_schema(arguments: type[Schema]) -> Schema:
    """The one instance of an argument set in a process: loading with it is stateless,
    and making one costs about 0.1 ms (some ninety per app)."""
    return arguments()


def bind_targets(
    routes: tuple[Route, ...], resources: t.Mapping[str, Resource]
) -> dict[tuple[str, str], Target]:
    """Every ``(route key, method)`` of the table with the target serving it."""
    targets = {}
    for route in routes:
        resource = resources[route.spec.resource]
        for endpoint in route.endpoints:
            schema = shared_schema(endpoint.arguments or NoArgs)
            responder = getattr(resource, endpoint.responder)
            repeatable = frozenset(
                field.data_key or name
                for name, field in schema.fields.items()
                if getattr(field, "repeatable", False)
            )
            target = Target(
                route, resource, responder, schema, endpoint.collects_errors, repeatable
            )
            for method in endpoint.methods:
                targets[(route.key, method)] = target
    return targets
