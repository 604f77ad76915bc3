"""Resource classes: one per collection, responders named ``on_<method>[_<shape>]``.

A responder only orchestrates, in WordPress's order: the parameters (their shape, then
the records they name), the permission, the read (``queries``) or the write
(``repository``), the representation (``wire``), returned as a ``Reply``; the
base class and what a responder receives (``Call``) are ``responders.py``, shared
with the public pages (``site/``). Only the edge
imports this package (the dispatcher binds the route table to its instances at
start-up); ``RESOURCE_CLASSES`` maps the resource names of ``routes.ROUTES`` to their
classes (``routes.route_table`` refuses to build a table where a route names no class).

- ``events`` — ``/events``, ``/events/{id}``, ``/events/by-slug/{slug}``: TEC's event
  routes.
- ``event_feeds`` — the iCalendar representations of events (``.ics`` and
  ``Accept: text/calendar``).
- ``linked_posts`` — venue and organizer routes, one base parametrised by model.
- ``terms`` — category and tag routes (WordPress core's terms controller).
- ``changes`` — ``GET /changes``: the permission-aware change feed.
- ``webhooks`` — webhook subscription routes, for administrators.
- ``descriptions`` — the site root, the namespace root and ``/doc``.
- ``batch`` — ``POST /batch/v1`` at the site root: its arguments (the edge runs it).
"""

from __future__ import annotations

from ..responders import Resource
from .batch import Batch
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
    "batch": Batch,
}
