"""Venues and organizers, standalone or embedded in events (TEC's ``Venue`` and
``Organizer`` components).

Both are built by one factory, in the order ``wire.linked`` emits their keys: the post
head, the name block, the record's own fields, JSON-LD, the keys always present, the
global IDs and the language. Empty values are left out of the wire, so most keys are
optional.
"""

from __future__ import annotations

import typing as t

from marshmallow import Schema, fields

from ..messages import N_
from .base import Representation, flag, integer, json_ld, language, strings, text, translations
from .events import Image


def _linked_post(
    name: str,
    noun: str,
    texts: t.Mapping[str, str],
    own: dict[str, fields.Field[t.Any]],
    always: dict[str, fields.Field[t.Any]],
) -> type[Schema]:
    """A linked post's representation, its key ``noun`` holding its name; ``texts``
    describe the shared keys in the post type's words."""
    declared: dict[str, fields.Field[t.Any]] = {
        "id": integer(texts["id"], required=True),
        "author": text(texts["author"]),
        "status": text(texts["status"], required=True),
        "date": text(texts["date"], required=True),
        "date_utc": text(texts["date_utc"], required=True),
        "modified": text(texts["modified"], required=True),
        "modified_utc": text(texts["modified_utc"], required=True),
        "url": text(texts["url"], required=True),
        noun: text(texts["name"]),
        "description": text(texts["description"]),
        "excerpt": text(texts["excerpt"]),
        "slug": text(texts["slug"]),
        "image": fields.Nested(Image, metadata={"description": texts["image"]}),
        **own,
        "json_ld": json_ld(texts["json_ld"]),
        **always,
        "global_id": text(texts["global_id"], required=True),
        "global_id_lineage": strings(texts["global_id_lineage"], required=True),
        "language": language(),
        "translations": translations(),
    }
    return Representation.from_dict(declared, name=name)


def _coordinate(help: str) -> fields.Float:
    return fields.Float(metadata={"description": help, "format": "double"})


#: what each shared key means, in a venue's words and in an organizer's
TEXTS: dict[str, tuple[str, str]] = {
    "id": (N_("The venue WordPress post ID"), N_("The organizer WordPress post ID")),
    "author": (
        N_("The venue author user ID, as a string"),
        N_("The organizer author user ID, as a string"),
    ),
    "status": (N_("The venue status"), N_("The organizer status")),
    "date": (
        N_("The venue creation date in the site time zone"),
        N_("The organizer creation date in the site time zone"),
    ),
    "date_utc": (
        N_("The venue creation date in UTC time"),
        N_("The organizer creation date in UTC time"),
    ),
    "modified": (
        N_("The venue last modification date in the site time zone"),
        N_("The organizer last modification date in the site time zone"),
    ),
    "modified_utc": (
        N_("The venue last modification date in UTC time"),
        N_("The organizer last modification date in UTC time"),
    ),
    "url": (N_("The URL to the venue page"), N_("The URL to the organizer page")),
    "name": (N_("The venue name"), N_("The organizer name")),
    "description": (N_("The venue long description"), N_("The organizer long description")),
    "excerpt": (N_("The venue short description"), N_("The organizer short description")),
    "slug": (N_("The venue slug"), N_("The organizer slug")),
    "image": (
        N_("The venue featured image details if set"),
        N_("The organizer featured image details if set"),
    ),
    "json_ld": (
        N_("The venue as schema.org JSON-LD (single reads only)"),
        N_("The organizer as schema.org JSON-LD (single reads only)"),
    ),
    "global_id": (
        N_("The venue ID used to globally identify in Event Aggregator"),
        N_("The organizer ID used to globally identify in Event Aggregator"),
    ),
    "global_id_lineage": (
        N_(
            "An Array containing the lineage of where this venue comes from, this should not "
            "change after the venue is created."
        ),
        N_(
            "An Array containing the lineage of where this organizer comes from, this should "
            "not change after the organizer is created."
        ),
    ),
}

Venue = _linked_post(
    "Venue",
    "venue",
    {key: venue for key, (venue, _) in TEXTS.items()},
    own={
        "address": text(N_("The venue address")),
        "city": text(N_("The venue city")),
        "country": text(N_("The venue country")),
        "province": text(N_("The venue province")),
        "state": text(N_("The venue state")),
        "zip": text(N_("The venue ZIP code")),
        "phone": text(N_("The venue phone number")),
        "website": text(N_("The venue website URL")),
        "stateprovince": text(N_("The venue state or province")),
        "geo_lat": _coordinate(N_("The venue geo latitude")),
        "geo_lng": _coordinate(N_("The venue geo longitude")),
    },
    always={
        "show_map": flag(N_("Whether the map should be shown for the venue or not"), required=True),
        "show_map_link": flag(
            N_("Whether the map link should be shown for the venue or not"), required=True
        ),
    },
)
Organizer = _linked_post(
    "Organizer",
    "organizer",
    {key: organizer for key, (_, organizer) in TEXTS.items()},
    own={
        "phone": text(N_("The organizer phone number")),
        "website": text(N_("The organizer website")),
        "email": text(N_("The organizer email address")),
    },
    always={},
)
