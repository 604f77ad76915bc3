"""Resource classes: one per collection, responders named ``on_<method>[_<shape>]``.

``RESOURCE_CLASSES`` maps the resource names of ``routes.ROUTES`` to their classes
(``routes.route_table`` refuses to build a table where a route names no class).
"""

from __future__ import annotations

from .base import Resource
from .changes import Changes
from .descriptions import Documentation, NamespaceIndex, SiteIndex
from .events import Events
from .linked_posts import Organizers, Venues
from .terms import Categories, Tags
from .webhooks import Webhooks

RESOURCE_CLASSES: dict[str, type[Resource]] = {
    "site": SiteIndex,
    "root": NamespaceIndex,
    "doc": Documentation,
    "events": Events,
    "venues": Venues,
    "organizers": Organizers,
    "categories": Categories,
    "tags": Tags,
    "changes": Changes,
    "webhooks": Webhooks,
}
