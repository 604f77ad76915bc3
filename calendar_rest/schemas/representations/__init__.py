"""What our response bodies look like, as marshmallow schemas for the OpenAPI document.

These schemas document the wire format built by ``calendar_rest.wire``; nothing ever
serialises with them (the wire functions build the JSON by hand, key for key, because
TEC's quirks — ``image`` being ``false``, ``venue`` being ``[]``, keys dropped when
empty — are awkward to express as a dump). apispec turns them into
``components.schemas``: TEC's eight components (``ImageSize`` … ``Organizer``, in TEC's
order, with TEC's descriptions where TEC has one) followed by what our document also
needs (embedded terms, list wrappers, errors).

Components referenced before they are registered (an event's venue, organizers and
terms) are written as literal ``$ref``s, so registering ``COMPONENTS`` in order gives
TEC's component order. Only marshmallow and the standard library are imported here.

- ``base`` — the base of every documented body and the field builders they share
- ``events`` — the event and what it is made of (cost and date details, images)
- ``linked`` — venues and organizers, standalone or embedded, built by one factory
- ``terms`` — categories and tags, as their routes return them and as events embed them
- ``lists`` — the archive page wrappers, one per record list
- ``changes`` — the change feed's entries and page (``sync.md`` §3)
- ``webhooks`` — webhook subscriptions and delivery attempts (``sync.md`` §4)
- ``errors`` — WordPress's error body, as every failure answers it
"""

from __future__ import annotations

from marshmallow import Schema

from .base import COMPONENTS_PATH, Representation, empty_array, ref
from .changes import Change, ChangeList
from .errors import PARAM_DETAIL, Error
from .events import CostDetails, DateDetails, Event, Image, ImageSize
from .linked import Organizer, Venue
from .lists import CategoryList, EventList, OrganizerList, TagList, VenueList
from .terms import EventTerm, Term
from .webhooks import Webhook, WebhookCreated, WebhookDeleted, WebhookDelivery

#: every component, in the order of the document: TEC's eight first, in TEC's order
COMPONENTS: dict[str, type[Schema]] = {
    "ImageSize": ImageSize,
    "CostDetails": CostDetails,
    "Term": Term,
    "Image": Image,
    "DateDetails": DateDetails,
    "Event": Event,
    "Venue": Venue,
    "Organizer": Organizer,
    "EventTerm": EventTerm,
    "EventList": EventList,
    "VenueList": VenueList,
    "OrganizerList": OrganizerList,
    "CategoryList": CategoryList,
    "TagList": TagList,
    "Change": Change,
    "ChangeList": ChangeList,
    "Webhook": Webhook,
    "WebhookCreated": WebhookCreated,
    "WebhookDeleted": WebhookDeleted,
    "WebhookDelivery": WebhookDelivery,
    "Error": Error,
}

__all__ = [
    "COMPONENTS",
    "COMPONENTS_PATH",
    "PARAM_DETAIL",
    "Representation",
    "empty_array",
    "ref",
    *COMPONENTS,
]
