"""``GET /`` and ``GET /doc``: the namespace index and the OpenAPI document.

Both describe the routes of ``RESOURCE_CLASSES``; the description is worked out once
per process and rendered once per mount point, settings and language (links follow
the mount point, texts the request's language).
"""

from __future__ import annotations

import functools
import typing as t

import orjson
from werkzeug.wrappers import Response

from ..describe.interface import RouteInfo, describe_routes
from ..describe.namespace_index import namespace_index
from ..describe.openapi import openapi_document
from ..errors import RestError
from ..http import json_response
from ..i18n import translator
from ..schemas.interface import DocArgs, NamespaceIndexArgs
from ..settings import NAMESPACE, Settings
from ..wire.urls import Urls
from .base import Call, Resource, accepts


@functools.lru_cache(maxsize=1)
def served_routes() -> tuple[RouteInfo, ...]:
    from . import RESOURCE_CLASSES  # the registry lists this module's classes too

    return describe_routes(RESOURCE_CLASSES)


@functools.lru_cache(maxsize=32)
def rendered_index(urls: Urls, settings: Settings, language: str) -> bytes:
    """The index for one mount point, settings and language (a pure function of them,
    so it is built once rather than on every request)."""
    return orjson.dumps(namespace_index(served_routes(), urls, settings, translator(language)))


@functools.lru_cache(maxsize=32)
def rendered_document(urls: Urls, settings: Settings, language: str) -> bytes:
    """The OpenAPI document, likewise built once per mount point and language."""
    return orjson.dumps(openapi_document(served_routes(), urls, settings, translator(language)))


def forget_descriptions() -> None:
    """Drop the cached descriptions, after the route table or an argument set changed
    at run time (tests do; a deployed app never does)."""
    for cached in (served_routes, rendered_index, rendered_document):
        cached.cache_clear()


class NamespaceIndex(Resource):
    """``/``: what WordPress answers for ``/wp-json/<namespace>``."""

    @accepts(NamespaceIndexArgs)
    def on_get(self, call: Call) -> Response:
        args = self.load(call.schema, call.params)
        if args["namespace"] != NAMESPACE:
            raise RestError("rest_invalid_namespace", 404)
        index = rendered_index(call.urls, self.settings, call.language)
        return json_response(orjson.Fragment(index))


class Documentation(Resource):
    """``/doc``: the OpenAPI document (TEC's "Swagger" route)."""

    @accepts(DocArgs)
    def on_get(self, call: Call) -> Response:
        self.load(call.schema, call.params)
        return json_response(
            orjson.Fragment(rendered_document(call.urls, self.settings, call.language))
        )


__all__: t.Sequence[str] = ("Documentation", "NamespaceIndex", "forget_descriptions")
