"""``GET /`` and ``GET /doc``: the namespace index and the OpenAPI document.

Both describe the routes of ``RESOURCE_CLASSES``; the description is worked out once
per process, and rendered per request because links follow the mount point and
texts follow the request's language.
"""

from __future__ import annotations

import functools
import typing as t

from werkzeug.wrappers import Response

from ..describe.interface import RouteInfo, describe_routes
from ..describe.namespace_index import namespace_index
from ..describe.openapi import openapi_document
from ..errors import RestError
from ..http import json_response
from ..schemas.interface import DocArgs, NamespaceIndexArgs
from ..settings import NAMESPACE
from .base import Call, Resource, accepts


@functools.lru_cache(maxsize=1)
def served_routes() -> tuple[RouteInfo, ...]:
    from . import RESOURCE_CLASSES  # the registry lists this module's classes too

    return describe_routes(RESOURCE_CLASSES)


class NamespaceIndex(Resource):
    """``/``: what WordPress answers for ``/wp-json/<namespace>``."""

    @accepts(NamespaceIndexArgs)
    def on_get(self, call: Call) -> Response:
        args = self.load(call.schema, call.params)
        if args["namespace"] != NAMESPACE:
            raise RestError("rest_invalid_namespace", 404)
        index = namespace_index(
            served_routes(), call.urls, self.settings, call.translate
        )
        return json_response(index)


class Documentation(Resource):
    """``/doc``: the OpenAPI document (TEC's "Swagger" route)."""

    @accepts(DocArgs)
    def on_get(self, call: Call) -> Response:
        self.load(call.schema, call.params)
        document = openapi_document(
            served_routes(), call.urls, self.settings, call.translate
        )
        return json_response(document)


__all__: t.Sequence[str] = ("Documentation", "NamespaceIndex")
