"""The records' pages as a resource of the route table: events (with the password
form's ``POST``), venues, organizers, and WordPress's plain permalinks.

``/?post_type=…&p=ID`` (what the API gives unpublished records as their ``url``)
comes here from ``/`` (``edge/pages.py``): a record anonymous readers may read is
sent to its page (301), any other is a 404.
"""

from __future__ import annotations

from ..errors import RestError
from ..media_types import HTML_CONTENT_TYPE
from ..models import Event, Organizer, Venue
from ..queries.lists.linked import linked_by_id
from ..queries.lookups.events import event_by_id
from ..responders import Call, Resource
from ..rules.permissions import can_read
from ..wire.reply import Reply
from ..wordpress.urls import POST_TYPES
from .event_page import event_page
from .linked_page import linked_page
from .links import SiteLinks
from .params import page_number

#: the post types of plain permalinks, and their models
PERMALINK_MODELS = {
    POST_TYPES["event"]: ("event", Event),
    POST_TYPES["venue"]: ("venue", Venue),
    POST_TYPES["organizer"]: ("organizer", Organizer),
}


class Records(Resource):
    """``/event/{slug}/``, ``/venue/{slug}/``, ``/organizer/{slug}/`` (each venue and
    organizer paged as ``…/page/{n}/``) and the plain permalinks."""

    def may_call(self, method: str, user: object) -> bool:
        return method in ("GET", "POST")  # POST: only the event's password form

    def on_get_event(self, call: Call, slug: str) -> Reply:
        return event_page(call, self.settings, slug)

    def on_post_event(self, call: Call, slug: str) -> Reply:
        return event_page(call, self.settings, slug, posted=True)

    def on_get_event_ical(self, call: Call, slug: str) -> Reply:
        """Served by the API's ``/events/{id}.ics`` (``edge/pages.py``): never here
        unless the site is off."""
        raise RestError("rest_no_route", 404)

    def on_get_venue(self, call: Call, slug: str) -> Reply:
        return linked_page(call, self.settings, "venue", slug, 1)

    def on_get_venue_page(self, call: Call, slug: str, page: int) -> Reply:
        return linked_page(call, self.settings, "venue", slug, page_number(page))

    def on_get_organizer(self, call: Call, slug: str) -> Reply:
        return linked_page(call, self.settings, "organizer", slug, 1)

    def on_get_organizer_page(self, call: Call, slug: str, page: int) -> Reply:
        return linked_page(call, self.settings, "organizer", slug, page_number(page))

    def on_get_permalink(self, call: Call) -> Reply:
        """``/?post_type=…&p=ID``: the record's page when it is public, else 404."""
        kind, model = PERMALINK_MODELS.get(str(call.params.get("post_type")), ("", None))
        number = str(call.params.get("p", ""))
        if model is None or not number.isdigit():
            raise RestError("rest_no_route", 404)
        record_id = int(number)
        record = event_by_id(record_id) if model is Event else linked_by_id(model, record_id)
        if record is None or record.status != "publish" or not can_read(None, record):
            raise RestError("rest_no_route", 404)
        links = SiteLinks(call.urls, record.language)
        target = links.page(f"/{kind}/{record.slug}/")
        return Reply(b"", 301, [("Location", target)], HTML_CONTENT_TYPE)
