"""The site root, the namespace root and ``/doc``: the REST indexes and the OpenAPI
document.

Both describe the app's route table; each description is rendered once per mount
point and language (links follow the mount point, texts the request's language) and
then served as pre-encoded JSON.
"""

from __future__ import annotations

import threading
import typing as t

import orjson

from ..describe.namespace_index import namespace_index, site_index
from ..describe.openapi import openapi_document
from ..errors import RestError
from ..i18n.catalogs import Translate, translator
from ..responders import Call, Resource
from ..routes import Route, accepts
from ..schemas.descriptions import DocArgs, NamespaceIndexArgs, SiteIndexArgs
from ..settings import NAMESPACE, Settings
from ..wire.reply import Reply
from ..wordpress.urls import Urls

#: rendered descriptions kept per resource (mount points times languages)
RENDERED = 32
FIELDS_PARAMS = frozenset({"_fields", "_fields[]"})
Describe = t.Callable[[t.Sequence[Route], Urls, Settings, Translate], dict[str, t.Any]]


class Describing(Resource):
    """A resource answering a description of the route table, rendered once per mount
    point and language."""

    describe: t.ClassVar[Describe]

    def __init__(self, settings: Settings, routes: tuple[Route, ...]) -> None:
        super().__init__(settings, routes)
        self._rendered: dict[tuple[Urls, str], tuple[dict[str, t.Any], bytes]] = {}
        self._lock = threading.Lock()

    def rendered(self, call: Call) -> orjson.Fragment | dict[str, t.Any]:
        """The description, pre-encoded; as data when ``_fields`` will reduce it."""
        key = (call.urls, call.language)
        rendered = self._rendered.get(key)
        if rendered is None:
            describe = type(self).describe  # a plain function, not a method
            description = describe(self.routes, call.urls, self.settings, translator(call.language))
            rendered = (description, orjson.dumps(description))
            with self._lock:
                if len(self._rendered) >= RENDERED:
                    self._rendered.clear()
                self._rendered[key] = rendered
        if FIELDS_PARAMS & call.params.keys():
            return rendered[0]
        return orjson.Fragment(rendered[1])


class SiteIndex(Describing):
    """The site root ``/``: the REST index WordPress clients discover (``/wp-json/``)."""

    describe = site_index

    @accepts(SiteIndexArgs)
    def on_get(self, call: Call) -> Reply:
        return Reply(self.rendered(call))


class NamespaceIndex(Describing):
    """``/``: what WordPress answers for ``/wp-json/<namespace>``."""

    describe = namespace_index

    @accepts(NamespaceIndexArgs)
    def on_get(self, call: Call) -> Reply:
        if call.args["namespace"] != NAMESPACE:
            raise RestError("rest_invalid_namespace", 404)
        return Reply(self.rendered(call))


class Documentation(Describing):
    """``/doc``: the OpenAPI document (TEC's "Swagger" route)."""

    describe = openapi_document

    @accepts(DocArgs)
    def on_get(self, call: Call) -> Reply:
        return Reply(self.rendered(call))
