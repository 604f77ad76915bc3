"""Argument sets of venues and organizers, also used for inline creation from events."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from . import fields as f


def _text(description: str, max_length: int) -> f.String:
    """An optional text column: may be "" (clears it), at most ``max_length`` long."""
    return f.String(allow_empty=True, max_length=max_length, metadata={"description": description})


class LinkedPostArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    author = f.Integer(metadata={"description": "The author ID"})
    date = f.LooseDate(metadata={"description": "The publication date"})
    date_utc = f.LooseDate(metadata={"description": "The publication date (UTC time zone)"})


class VenueWriteArgs(LinkedPostArgs):
    venue = f.String(metadata={"description": "The venue name"})
    description = f.String(allow_empty=True, metadata={"description": "The venue description"})
    status = f.Status(metadata={"description": "The venue post status"})
    show_map = f.Boolean(
        metadata={"description": "Whether events linked to the venue should show a map"}
    )
    show_map_link = f.Boolean(
        metadata={"description": "Whether events linked to the venue should show a map link"}
    )
    address = _text("The venue address", 255)
    city = _text("The venue city", 255)
    country = _text("The venue country", 255)
    province = _text("The venue province", 255)
    state = _text("The venue state", 255)
    zip = _text("The venue ZIP code", 64)
    phone = _text("The venue phone number", 64)
    stateprovince = _text("The venue state and province", 255)
    website = f.Url(metadata={"description": "The venue website URL"})
    image = f.Raw(metadata={"description": "The venue featured image ID or URL"})
    geo_lat = f.Number(metadata={"description": "The venue latitude"})
    geo_lng = f.Number(metadata={"description": "The venue longitude"})
    i18n_language = f.Language(metadata={"description": "The language of the request"})


class VenueCreateArgs(VenueWriteArgs):
    venue = f.String(required=True, metadata={"description": "The venue name"})


class OrganizerWriteArgs(LinkedPostArgs):
    organizer = f.String(metadata={"description": "The organizer name"})
    description = f.String(allow_empty=True, metadata={"description": "The organizer description"})
    status = f.Status(metadata={"description": "The organizer post status"})
    phone = _text("The organizer phone number", 64)
    website = f.Url(metadata={"description": "The organizer website"})
    email = _text("The organizer e-mail address", 255)
    image = f.Raw(metadata={"description": "The organizer featured image ID or URL"})
    i18n_language = f.Language(metadata={"description": "The language of the request"})


class OrganizerCreateArgs(OrganizerWriteArgs):
    organizer = f.String(required=True, metadata={"description": "The organizer name"})


class LinkedReadArgs(Schema):
    """Single venue/organizer reads and deletes."""

    class Meta:
        unknown = EXCLUDE

    i18n_language = f.Language(metadata={"description": "The language of the request"})


class LinkedArchiveArgs(Schema):
    """``GET /venues`` and ``GET /organizers`` (TEC's ``Archive_Venue``), in SPEC order."""

    class Meta:
        unknown = EXCLUDE

    page = f.Integer(
        positive=True, load_default=1, metadata={"description": "The archive page to return"}
    )
    per_page = f.Integer(
        positive=True, metadata={"description": "The number of records to return on each page"}
    )
    search = f.String(metadata={"description": "Records should contain every word of the string"})
    event = f.Integer(
        positive=True, metadata={"description": "Records should be linked to this event ID"}
    )
    has_events = f.Raw(
        metadata={
            "description": "Truthy: records linked to a scheduled event; anything else: the"
            " records that are not"
        }
    )
    only_with_upcoming = f.Raw(
        metadata={"description": "Truthy: records linked to upcoming events only"}
    )
    status = f.StringList(metadata={"description": "Records should have one of these statuses"})
    i18n_language = f.Language(metadata={"description": "The language of the request"})
