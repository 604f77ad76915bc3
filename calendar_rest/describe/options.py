"""The body of a plain ``OPTIONS`` request, as WordPress's ``rest_handle_options_request``
answers it: the route's entry in the namespace index, plus the JSON Schema of the record
the route serves (its ``$ref``s written out, so that it stands alone)."""

from __future__ import annotations

import threading
import typing as t

from ..i18n.catalogs import translator
from ..routes import Route
from ..settings import Settings
from ..wordpress.urls import Urls
from .namespace_index import route_entry
from .openapi import component_schemas

#: the component describing each resource's records
RECORD_SCHEMAS = {
    "events": "Event",
    "venues": "Venue",
    "organizers": "Organizer",
    "categories": "Term",
    "tags": "Term",
}
JSON_SCHEMA_DRAFT = "http://json-schema.org/draft-04/schema#"
REF_PREFIX = "#/components/schemas/"
#: rendered bodies kept (routes times mount points times languages)
KEPT = 256


class OptionsResponder:
    """Renders each route's ``OPTIONS`` body once per mount point and language."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._bodies: dict[tuple[str, Urls, str], dict[str, t.Any]] = {}
        self._lock = threading.Lock()

    def body(self, route: Route, urls: Urls, language: str) -> dict[str, t.Any]:
        key = (route.key, urls, language)
        body = self._bodies.get(key)
        if body is None:
            body = self.render(route, urls, language)
            with self._lock:
                if len(self._bodies) >= KEPT:
                    self._bodies.clear()
                self._bodies[key] = body
        return body

    def render(self, route: Route, urls: Urls, language: str) -> dict[str, t.Any]:
        translate = translator(language)
        body = route_entry(route, urls, self.settings, translate)
        name = RECORD_SCHEMAS.get(route.spec.resource)
        if name is not None:
            components = component_schemas(translate)
            schema = _inlined(components[name], components)
            body["schema"] = {"$schema": JSON_SCHEMA_DRAFT, "title": name.lower(), **schema}
        return body


def _inlined(node: t.Any, components: dict[str, dict[str, t.Any]]) -> t.Any:
    """``node`` with every component reference replaced by the component itself."""
    if isinstance(node, dict):
        target = node.get("$ref")
        if isinstance(target, str) and target.startswith(REF_PREFIX):
            return _inlined(components[target[len(REF_PREFIX) :]], components)
        return {key: _inlined(value, components) for key, value in node.items()}
    if isinstance(node, list):
        return [_inlined(item, components) for item in node]
    return node
