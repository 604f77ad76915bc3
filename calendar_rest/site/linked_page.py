"""Venue and organizer pages (``site.md`` §2 "Venue / organizer"): ``/venue/{slug}/``
and ``/organizer/{slug}/``, the record as an anonymous ``GET /venues/{id}`` shows
it and its upcoming events (the list view's query narrowed by ``venue`` or
``organizer``, paged as the list is). A record anonymous readers may not read
(draft, private, trashed) is a 404, never a 403.
"""

from __future__ import annotations

import typing as t

from ..errors import RestError
from ..models import Organizer, Venue
from ..queries.lists.linked import linked_by_slug
from ..queries.lookups.posts import images_of
from ..queries.lookups.translations import load_translations
from ..responders import Call
from ..rules.permissions import can_read
from ..settings import Settings
from ..wire.linked import linked_data
from ..wire.reply import Reply
from .archive import EventFilter, list_events
from .calendar_links import map_link
from .cards import by_month, card
from .event_page import summary
from .frame import Frame, page_reply
from .links import with_query
from .list_view import today
from .texts import UPCOMING_AT, UPCOMING_BY

#: the page kinds: model, the API parameter narrowing events to one, title text
KINDS: dict[str, tuple[type[Venue] | type[Organizer], str, str]] = {
    "venue": (Venue, "venue", UPCOMING_AT),
    "organizer": (Organizer, "organizer", UPCOMING_BY),
}


def linked_page(call: Call, settings: Settings, kind: str, slug: str, page: int) -> Reply:
    """Page ``page`` of the ``kind`` (``venue``/``organizer``) named ``slug``."""
    model, param, heading = KINDS[kind]
    record = linked_by_slug(model, slug)
    if record is None or not can_read(None, record):
        raise RestError("rest_no_route", 404)
    image = images_of([record]).get(record.image_id or 0)
    translations = load_translations([record], user=None, total=call.total)
    data = linked_data(
        record, call.urls, image, translations, single=True, geolocation=settings.geolocation
    )
    day = today(call, settings)
    wanted = EventFilter(
        ((param, str(record.id)), ("ends_after", f"{day} 00:00:00"), ("strict_dates", "true"))
    )
    listing = list_events(call, settings, wanted, page=page, per_page=settings.default_per_page)
    base = f"/{kind}/{record.slug}/"

    def path(number: int) -> str:
        return base if number == 1 else f"{base}page/{number}/"

    shown = data.get("image") if isinstance(data.get("image"), dict) else None
    frame = Frame(
        title=record.title,
        path=path(page),
        api_query=wanted.query(),
        description=summary({**data, "title": record.title}),
        og_type="profile" if kind == "organizer" else "place",
        image=shown["url"] if shown else "",
        prev=with_query(path(page - 1), ()) if page > 1 else None,
        next=with_query(path(page + 1), ()) if page < listing.pages else None,
    )
    context: dict[str, t.Any] = {
        "kind": kind,
        "record": data,
        "image": shown,
        "map_link": map_link(data) if kind == "venue" else None,
        "events_heading": call.translate(heading) % record.title,
        "groups": by_month([card(event) for event in listing.events]),
        "listing": listing,
    }
    return page_reply(call, settings, frame, "linked.html", context)
