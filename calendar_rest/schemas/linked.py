"""Argument sets of venues and organizers, also used for inline creation from events."""

from __future__ import annotations

import typing as t

from marshmallow import Schema

from . import fields as f
from . import shared
from .messages import N_
from .shared import Args


def _text(help: str, max_length: int) -> f.String:
    """An optional text column: may be "" (clears it), at most ``max_length`` long."""
    return f.String(allow_empty=True, max_length=max_length, help=help)


def _linked_args(
    name: str,
    noun: str,
    texts: t.Mapping[str, str],
    own: dict[str, f.WPField],
    located: dict[str, f.WPField] | None = None,
    *,
    create: bool,
) -> type[Schema]:
    """A venue's or organizer's writable fields: the post's own (author, dates), the
    name under ``noun`` (required on creates), then ``own`` fields, the image, the
    ``located`` ones (a venue's coordinates) and the translation link."""
    declared: dict[str, f.WPField] = {
        "author": f.Integer(help=N_("The author ID")),
        "date": f.LooseDate(help=N_("The publication date")),
        "date_utc": f.LooseDate(help=N_("The publication date (UTC time zone)")),
        noun: f.String(required=create, help=texts["name"]),
        "description": f.String(allow_empty=True, help=texts["description"]),
        "status": f.Status(help=texts["status"]),
        **own,
        "image": f.Raw(help=texts["image"]),
        **(located or {}),
        "translation_of": shared.translation_of(),
        "i18n_language": f.Language(),
    }
    return Args.from_dict(t.cast(dict[str, t.Any], declared), name=name)


#: what the shared fields mean, in a venue's words and in an organizer's
TEXTS: dict[str, tuple[str, str]] = {
    "name": (N_("The venue name"), N_("The organizer name")),
    "description": (N_("The venue description"), N_("The organizer description")),
    "status": (N_("The venue post status"), N_("The organizer post status")),
    "image": (
        N_("The venue featured image ID or URL"),
        N_("The organizer featured image ID or URL"),
    ),
}
VENUE_TEXTS = {key: venue for key, (venue, _) in TEXTS.items()}
ORGANIZER_TEXTS = {key: organizer for key, (_, organizer) in TEXTS.items()}


def _venue_fields() -> dict[str, f.WPField]:
    return {
        "show_map": f.Boolean(help=N_("Whether events linked to the venue should show a map")),
        "show_map_link": f.Boolean(
            help=N_("Whether events linked to the venue should show a map link")
        ),
        "address": _text(N_("The venue address"), 255),
        "city": _text(N_("The venue city"), 255),
        "country": _text(N_("The venue country"), 255),
        "province": _text(N_("The venue province"), 255),
        "state": _text(N_("The venue state"), 255),
        "zip": _text(N_("The venue ZIP code"), 64),
        "phone": _text(N_("The venue phone number"), 64),
        "stateprovince": _text(N_("The venue state and province"), 255),
        "website": f.Url(help=N_("The venue website URL")),
    }


def _coordinates() -> dict[str, f.WPField]:
    return {
        "geo_lat": f.Number(help=N_("The venue latitude")),
        "geo_lng": f.Number(help=N_("The venue longitude")),
    }


def _organizer_fields() -> dict[str, f.WPField]:
    return {
        "phone": _text(N_("The organizer phone number"), 64),
        "website": f.Url(help=N_("The organizer website")),
        "email": _text(N_("The organizer e-mail address"), 255),
    }


VenueWriteArgs = _linked_args(
    "VenueWriteArgs", "venue", VENUE_TEXTS, _venue_fields(), _coordinates(), create=False
)
VenueCreateArgs = _linked_args(
    "VenueCreateArgs", "venue", VENUE_TEXTS, _venue_fields(), _coordinates(), create=True
)
OrganizerWriteArgs = _linked_args(
    "OrganizerWriteArgs", "organizer", ORGANIZER_TEXTS, _organizer_fields(), create=False
)
OrganizerCreateArgs = _linked_args(
    "OrganizerCreateArgs", "organizer", ORGANIZER_TEXTS, _organizer_fields(), create=True
)


class LinkedReadArgs(Args):
    """Single venue/organizer reads and deletes."""

    i18n_language = f.Language()


class LinkedArchiveArgs(Args):
    """``GET /venues`` and ``GET /organizers`` (TEC's ``Archive_Venue``), in SPEC order."""

    page = shared.page()
    per_page = shared.per_page(N_("The number of records to return on each page"))
    # "" is refused as TEC does; white space only is a search without words: no filter
    search = f.String(allow_blank=True, help=N_("Records should contain every word of the string"))
    event = f.Integer(positive=True, help=N_("Records should be linked to this event ID"))
    has_events = f.Truthy(
        help=N_(
            "Truthy: records linked to a scheduled event; anything else: the records that are not"
        )
    )
    only_with_upcoming = f.Truthy(
        metadata={"default": False}, help=N_("Truthy: records linked to upcoming events only")
    )
    status = f.StringList(help=N_("Records should have one of these statuses"))
    modified_after = shared.modified_after()
    modified_before = shared.modified_before()
    orderby = shared.orderby()
    order = shared.order()
    i18n_language = f.Language()
