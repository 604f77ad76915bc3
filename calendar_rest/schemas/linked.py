"""Argument sets of venues and organizers, also used for inline creation from events."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from . import fields as f


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
    address = f.String(allow_empty=True, metadata={"description": "The venue address"})
    city = f.String(allow_empty=True, metadata={"description": "The venue city"})
    country = f.String(allow_empty=True, metadata={"description": "The venue country"})
    province = f.String(allow_empty=True, metadata={"description": "The venue province"})
    state = f.String(allow_empty=True, metadata={"description": "The venue state"})
    zip = f.String(allow_empty=True, metadata={"description": "The venue ZIP code"})
    phone = f.String(allow_empty=True, metadata={"description": "The venue phone number"})
    stateprovince = f.String(
        allow_empty=True, metadata={"description": "The venue state and province"}
    )
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
    phone = f.String(allow_empty=True, metadata={"description": "The organizer phone number"})
    website = f.Url(metadata={"description": "The organizer website"})
    email = f.String(allow_empty=True, metadata={"description": "The organizer e-mail address"})
    image = f.Raw(metadata={"description": "The organizer featured image ID or URL"})
    i18n_language = f.Language(metadata={"description": "The language of the request"})


class OrganizerCreateArgs(OrganizerWriteArgs):
    organizer = f.String(required=True, metadata={"description": "The organizer name"})
