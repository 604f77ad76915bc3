"""Argument sets of venues and organizers, also used for inline creation from events."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from . import fields as f
from .messages import N_


def _text(description: str, max_length: int) -> f.String:
    """An optional text column: may be "" (clears it), at most ``max_length`` long."""
    return f.String(allow_empty=True, max_length=max_length, metadata={"description": description})


class LinkedPostArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    author = f.Integer(metadata={"description": N_("The author ID")})
    date = f.LooseDate(metadata={"description": N_("The publication date")})
    date_utc = f.LooseDate(metadata={"description": N_("The publication date (UTC time zone)")})


class VenueWriteArgs(LinkedPostArgs):
    venue = f.String(metadata={"description": N_("The venue name")})
    description = f.String(allow_empty=True, metadata={"description": N_("The venue description")})
    status = f.Status(metadata={"description": N_("The venue post status")})
    show_map = f.Boolean(
        metadata={"description": N_("Whether events linked to the venue should show a map")}
    )
    show_map_link = f.Boolean(
        metadata={"description": N_("Whether events linked to the venue should show a map link")}
    )
    address = _text(N_("The venue address"), 255)
    city = _text(N_("The venue city"), 255)
    country = _text(N_("The venue country"), 255)
    province = _text(N_("The venue province"), 255)
    state = _text(N_("The venue state"), 255)
    zip = _text(N_("The venue ZIP code"), 64)
    phone = _text(N_("The venue phone number"), 64)
    stateprovince = _text(N_("The venue state and province"), 255)
    website = f.Url(metadata={"description": N_("The venue website URL")})
    image = f.Raw(metadata={"description": N_("The venue featured image ID or URL")})
    geo_lat = f.Number(metadata={"description": N_("The venue latitude")})
    geo_lng = f.Number(metadata={"description": N_("The venue longitude")})
    translation_of = f.Integer(
        positive=True,
        metadata={"description": N_("The ID of the record this one translates")},
    )
    i18n_language = f.Language()


class VenueCreateArgs(VenueWriteArgs):
    venue = f.String(required=True, metadata={"description": N_("The venue name")})


class OrganizerWriteArgs(LinkedPostArgs):
    organizer = f.String(metadata={"description": N_("The organizer name")})
    description = f.String(
        allow_empty=True, metadata={"description": N_("The organizer description")}
    )
    status = f.Status(metadata={"description": N_("The organizer post status")})
    phone = _text(N_("The organizer phone number"), 64)
    website = f.Url(metadata={"description": N_("The organizer website")})
    email = _text(N_("The organizer e-mail address"), 255)
    image = f.Raw(metadata={"description": N_("The organizer featured image ID or URL")})
    translation_of = f.Integer(
        positive=True,
        metadata={"description": N_("The ID of the record this one translates")},
    )
    i18n_language = f.Language()


class OrganizerCreateArgs(OrganizerWriteArgs):
    organizer = f.String(required=True, metadata={"description": N_("The organizer name")})


class LinkedReadArgs(Schema):
    """Single venue/organizer reads and deletes."""

    class Meta:
        unknown = EXCLUDE

    i18n_language = f.Language()


class LinkedArchiveArgs(Schema):
    """``GET /venues`` and ``GET /organizers`` (TEC's ``Archive_Venue``), in SPEC order."""

    class Meta:
        unknown = EXCLUDE

    page = f.Integer(
        positive=True, load_default=1, metadata={"description": N_("The archive page to return")}
    )
    per_page = f.Integer(
        positive=True,
        metadata={
            "description": N_("The number of records to return on each page"),
            "default_setting": "default_per_page",
        },
    )
    search = f.String(
        metadata={"description": N_("Records should contain every word of the string")}
    )
    event = f.Integer(
        positive=True, metadata={"description": N_("Records should be linked to this event ID")}
    )
    has_events = f.Raw(
        metadata={
            "description": N_(
                "Truthy: records linked to a scheduled event; anything else: the"
                " records that are not"
            )
        }
    )
    only_with_upcoming = f.Raw(
        metadata={
            "default": False,
            "description": N_("Truthy: records linked to upcoming events only"),
        }
    )
    status = f.StringList(metadata={"description": N_("Records should have one of these statuses")})
    i18n_language = f.Language()
