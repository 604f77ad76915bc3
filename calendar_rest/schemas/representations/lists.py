"""The archive page wrappers: one per record list, built by one factory."""

from __future__ import annotations

import typing as t

from marshmallow import Schema, fields

from ..messages import N_
from .base import Representation, integer, text
from .events import Event
from .linked import Organizer, Venue
from .terms import Term


def _archive_page(
    name: str,
    key: str,
    item: type[Schema],
    items_text: str,
    total_text: str,
    *,
    terms: bool = False,
) -> type[Schema]:
    """An archive page wrapper. Post lists read ``{key, rest_url, next_rest_url,
    previous_rest_url, total, total_pages}``; TEC's term lists put the items after the
    totals: ``{rest_url, total, total_pages, key, next_rest_url, previous_rest_url}``."""
    items = {
        key: fields.List(fields.Nested(item), required=True, metadata={"description": items_text})
    }
    rest_url = {"rest_url": text(N_("The REST URL of this page"), required=True)}
    links = {
        "next_rest_url": text(N_("The REST URL of the next page, when there is one")),
        "previous_rest_url": text(N_("The REST URL of the previous page, when there is one")),
    }
    totals = {
        "total": integer(total_text, required=True),
        "total_pages": integer(N_("The number of pages"), required=True),
    }
    declared: dict[str, fields.Field[t.Any]] = (
        {**rest_url, **totals, **items, **links}
        if terms
        else {**items, **rest_url, **links, **totals}
    )
    return Representation.from_dict(declared, name=name)


EventList = _archive_page(
    "EventList",
    "events",
    Event,
    N_("The events of the page"),
    N_("The number of events matching the request"),
)
VenueList = _archive_page(
    "VenueList",
    "venues",
    Venue,
    N_("The venues of the page"),
    N_("The number of venues matching the request"),
)
OrganizerList = _archive_page(
    "OrganizerList",
    "organizers",
    Organizer,
    N_("The organizers of the page"),
    N_("The number of organizers matching the request"),
)
CategoryList = _archive_page(
    "CategoryList",
    "categories",
    Term,
    N_("The categories of the page"),
    N_("The number of categories matching the request"),
    terms=True,
)
TagList = _archive_page(
    "TagList",
    "tags",
    Term,
    N_("The tags of the page"),
    N_("The number of tags matching the request"),
    terms=True,
)
