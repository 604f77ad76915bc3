"""Resource classes: one per collection, responders named ``on_<method>[_<shape>]``.

``RESOURCE_CLASSES`` maps the resource names of ``routes.ROUTES`` to their classes
(``Application`` refuses to start if a route names no class).
"""

from __future__ import annotations

from .base import Resource
from .events import Events
from .interface import Documentation, NamespaceIndex
from .linked_posts import Organizers, Venues
from .terms import Categories, Tags

RESOURCE_CLASSES: dict[str, type[Resource]] = {
    "root": NamespaceIndex,
    "doc": Documentation,
    "events": Events,
    "venues": Venues,
    "organizers": Organizers,
    "categories": Categories,
    "tags": Tags,
}
