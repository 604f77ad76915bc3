"""What our response bodies look like, as marshmallow schemas for the OpenAPI document.

These schemas document the wire format built by ``calendar_rest.wire``; nothing ever
serialises with them (the wire functions build the JSON by hand, key for key, because
TEC's quirks — ``image`` being ``false``, ``venue`` being ``[]``, keys dropped when
empty — are awkward to express as a dump). apispec turns them into
``components.schemas``: TEC's eight components (``ImageSize`` … ``Organizer``, in TEC's
order, with TEC's descriptions where TEC has one) followed by what our document also
needs (embedded terms, list wrappers, errors).

Fields are declared in the order the wire emits the keys; ``required`` marks keys that
are always present; every object refuses unknown keys (``additionalProperties:
false``) so that a response carrying an undocumented key fails the conformance check.
Components referenced before they are registered (an event's venue, organizers and
terms) are written as literal ``$ref``s, so registering ``COMPONENTS`` in order gives
TEC's component order. Only marshmallow and the standard library are imported here.
"""

from __future__ import annotations

import typing as t

from marshmallow import RAISE, Schema, fields

from .messages import N_

COMPONENTS_PATH = "#/components/schemas/"


def ref(name: str) -> dict[str, str]:
    """A reference to one of ``COMPONENTS``."""
    return {"$ref": COMPONENTS_PATH + name}


def empty_array() -> dict[str, t.Any]:
    """An array that is always empty: TEC's PHP ``[]`` standing in for a missing object
    (a fresh dict each time, so the document shares no objects)."""
    return {"type": "array", "items": {}, "maxItems": 0}


def _text(description: str, *, required: bool = False, **metadata: t.Any) -> fields.String:
    return fields.String(required=required, metadata={"description": description, **metadata})


def _integer(description: str, *, required: bool = False) -> fields.Integer:
    return fields.Integer(required=required, metadata={"description": description})


def _flag(description: str, *, required: bool = False, nullable: bool = False) -> fields.Boolean:
    return fields.Boolean(
        required=required, allow_none=nullable, metadata={"description": description}
    )


def _strings(description: str, *, required: bool = False) -> fields.List[str]:
    return fields.List(
        fields.String(), required=required, metadata={"description": description}
    )


def _documented(description: str, *, required: bool = False, **schema: t.Any) -> fields.Raw:
    """A key whose JSON Schema is written out by hand: unions and forward ``$ref``s."""
    return fields.Raw(required=required, metadata={"description": description, **schema})


def _json_ld(description: str) -> fields.Dict:
    return fields.Dict(metadata={"description": description})


def _language() -> fields.String:
    """The additive multilingual keys (``wire.translations``) every record ends with."""
    return _text(N_("The language code of the record, such as en"), required=True)


def _translations() -> fields.Dict:
    return fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": N_(
                "The IDs of the record's translation group, the record included, by "
                "language code"
            )
        },
    )


class Representation(Schema):
    """Base of every documented object: unknown keys are refused, so apispec emits
    ``additionalProperties: false``."""

    class Meta:
        unknown = RAISE


# -- TEC's components ----------------------------------------------------------------


class ImageSize(Representation):
    """One resized version of an image (TEC's ``sizes`` members; we never emit any)."""

    width = _integer(N_("The image width in pixels in the specified size"))
    height = _integer(N_("The image height in pixels in the specified size"))
    mime_type = fields.String(
        data_key="mime-type", metadata={"description": N_("The image mime-type")}
    )
    url = _text(N_("The link to the image in the specified size on the site"))


class CostDetails(Representation):
    """An event's ``cost_details``; ``values`` are strings, as TEC emits them."""

    currency_symbol = _text(N_("The cost currency symbol"), required=True)
    currency_code = _text(
        N_("The cost currency code (empty: the site default applies)"), required=True
    )
    currency_position = _text(
        N_("The position of the currency symbol in the cost string"),
        required=True,
        enum=["prefix", "postfix", ""],
    )
    values = _strings(N_("A sorted array of all the numeric values for the cost"), required=True)


def _term_urls() -> fields.Dict:
    """A term's REST links: always ``self`` and ``collection``, ``up`` under a parent."""
    return fields.Dict(
        required=True,
        metadata={
            "description": N_("The links to the term own, archive and parent REST URL"),
            "properties": {
                "self": {"type": "string", "description": N_("The term REST URL")},
                "collection": {
                    "type": "string",
                    "description": N_("The REST URL of the term archive"),
                },
                "up": {
                    "type": "string",
                    "description": N_("The parent term REST URL, when the term has a parent"),
                },
            },
            "required": ["self", "collection"],
            "additionalProperties": False,
        },
    )


class Term(Representation):
    """A category or tag as the category and tag routes return it."""

    id = _integer(N_("The WordPress term ID"), required=True)
    count = _integer(N_("The number of posts associated with the term"), required=True)
    description = _text(N_("The term description"), required=True)
    name = _text(N_("The term name"), required=True)
    slug = _text(N_("The term slug"), required=True)
    taxonomy = _text(N_("The taxonomy the term belongs to"), required=True)
    parent = _integer(N_("The term parent term if any (categories only; 0: top level)"))
    meta = fields.List(
        fields.Raw(),
        required=True,
        metadata={"description": N_("The term meta (always empty)"), "maxItems": 0},
    )
    url = _text(N_("The URL to the term archive page"), required=True)
    urls = _term_urls()
    links = fields.Dict(
        data_key="_links",
        keys=fields.String(),
        values=fields.List(fields.Dict()),
        metadata={
            "description": N_(
                "WordPress hypermedia links to the term's core REST routes, by relation "
                "(single reads, creations and updates only)"
            )
        },
    )
    language = _language()
    translations = _translations()


class Image(Representation):
    """A featured image; width and height only when known."""

    url = _text(N_("The URL to the full size version of the image"), required=True)
    id = _integer(N_("The image WordPress post ID"), required=True)
    extension = _text(N_("The image file extension"))
    width = _integer(N_("The image natural width in pixels"))
    height = _integer(N_("The image natural height in pixels"))
    sizes = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(ImageSize),
        metadata={
            "description": N_(
                "The details about each size available for the image, by size name; "
                "absent when no resized versions are known"
            )
        },
    )


def _date_part(description: str, digits: int) -> fields.String:
    return _text(description, required=True, pattern=f"^[0-9]{{{digits}}}$")


class DateDetails(Representation):
    """The components of a date, as zero-padded strings (TEC documents integers)."""

    year = _date_part(N_("The date year"), 4)
    month = _date_part(N_("The date month"), 2)
    day = _date_part(N_("The date day"), 2)
    hour = _date_part(N_("The date hour"), 2)
    minutes = _date_part(N_("The date minutes"), 2)
    seconds = _date_part(N_("The date seconds"), 2)


def _date_details(description: str) -> fields.Nested:
    return fields.Nested(DateDetails, required=True, metadata={"description": description})


class Event(Representation):
    """An event. ``json_ld`` only on single reads; password-protected events seen
    without the password carry empty or null content fields."""

    id = _integer(N_("The event WordPress post ID"), required=True)
    global_id = _text(
        N_("The event ID used to globally identify in Event Aggregator"), required=True
    )
    global_id_lineage = _strings(
        N_(
            "An Array containing the lineage of where this event comes from, this should not "
            "change after the event is created."
        ),
        required=True,
    )
    author = _text(
        N_("The event author user ID, as a string (empty when the author no longer exists)"),
        required=True,
    )
    status = _text(N_("The event status"), required=True)
    date = _text(N_("The event creation date in the site time zone"), required=True)
    date_utc = _text(N_("The event creation date in UTC time"), required=True)
    modified = _text(N_("The event last modification date in the site time zone"), required=True)
    modified_utc = _text(N_("The event last modification date in UTC time"), required=True)
    url = _text(N_("The URL to the event page"), required=True)
    rest_url = _text(N_("The REST API link to fetch this event"), required=True)
    title = _text(N_("The event name"), required=True)
    description = _text(N_("The event long description"), required=True)
    excerpt = _text(N_("The event short description"), required=True)
    slug = _text(N_("The event slug"), required=True)
    image = _documented(
        N_("The event featured image details if set, false otherwise"),
        required=True,
        oneOf=[ref("Image"), {"type": "boolean", "enum": [False]}],
    )
    all_day = _flag(
        N_("Whether or not this event is an all day Event; null when the event is password "
           "protected"),
        required=True,
        nullable=True,
    )
    start_date = _text(N_("The event start date in the event or site time zone"), required=True)
    start_date_details = _date_details(N_("Each component of the event start date"))
    end_date = _text(N_("The event end date in the event or site time zone"), required=True)
    end_date_details = _date_details(N_("Each component of the event end date"))
    utc_start_date = _text(N_("The event start date in UTC time"), required=True)
    utc_start_date_details = _date_details(
        N_("Each component of the event start date in UTC time")
    )
    utc_end_date = _text(N_("The event end date in UTC time"), required=True)
    utc_end_date_details = _date_details(N_("Each component of the event end date in UTC time"))
    timezone = _text(N_("The event time zone string"), required=True)
    timezone_abbr = _text(N_("The abbreviated event time zone string"), required=True)
    cost = _text(N_("The event cost including the currency symbol"), required=True)
    cost_details = fields.Nested(
        CostDetails, required=True, metadata={"description": N_("The event cost details")}
    )
    website = _text(N_("The event website URL"), required=True)
    show_map = _flag(
        N_("Whether the map should be shown for the event or not; null when the event is "
           "password protected"),
        required=True,
        nullable=True,
    )
    show_map_link = _flag(
        N_("Whether the map link should be shown for the event or not; null when the event "
           "is password protected"),
        required=True,
        nullable=True,
    )
    hide_from_listings = _flag(
        N_("Whether an event should be hidden from the calendar view or not; null when the "
           "event is password protected"),
        required=True,
        nullable=True,
    )
    sticky = _flag(
        N_("Whether an event is sticky in the calendar view or not; null when the event is "
           "password protected"),
        required=True,
        nullable=True,
    )
    featured = _flag(
        N_("Whether the event is featured in the calendar or not; null when the event is "
           "password protected"),
        required=True,
        nullable=True,
    )
    categories = _documented(
        N_("The event categories"), required=True, type="array", items=ref("EventTerm")
    )
    tags = _documented(N_("The event tags"), required=True, type="array", items=ref("EventTerm"))
    venue = _documented(
        N_("The event venue, an empty array when the event has none"),
        required=True,
        oneOf=[ref("Venue"), empty_array()],
    )
    organizer = _documented(
        N_("The event organizers"), required=True, type="array", items=ref("Organizer")
    )
    json_ld = _json_ld(N_("The event as schema.org JSON-LD (single event reads only)"))
    language = _language()
    translations = _translations()


class Venue(Representation):
    """A venue, standalone or embedded in an event. Empty values are left out, so most
    keys are optional; the map flags and global IDs are always there."""

    id = _integer(N_("The venue WordPress post ID"), required=True)
    author = _text(N_("The venue author user ID, as a string"))
    status = _text(N_("The venue status"), required=True)
    date = _text(N_("The venue creation date in the site time zone"), required=True)
    date_utc = _text(N_("The venue creation date in UTC time"), required=True)
    modified = _text(N_("The venue last modification date in the site time zone"), required=True)
    modified_utc = _text(N_("The venue last modification date in UTC time"), required=True)
    url = _text(N_("The URL to the venue page"), required=True)
    venue = _text(N_("The venue name"))
    description = _text(N_("The venue long description"))
    excerpt = _text(N_("The venue short description"))
    slug = _text(N_("The venue slug"))
    image = fields.Nested(
        Image, metadata={"description": N_("The venue featured image details if set")}
    )
    address = _text(N_("The venue address"))
    city = _text(N_("The venue city"))
    country = _text(N_("The venue country"))
    province = _text(N_("The venue province"))
    state = _text(N_("The venue state"))
    zip = _text(N_("The venue ZIP code"))
    phone = _text(N_("The venue phone number"))
    website = _text(N_("The venue website URL"))
    stateprovince = _text(N_("The venue state or province"))
    geo_lat = fields.Float(
        metadata={"description": N_("The venue geo latitude"), "format": "double"}
    )
    geo_lng = fields.Float(
        metadata={"description": N_("The venue geo longitude"), "format": "double"}
    )
    json_ld = _json_ld(N_("The venue as schema.org JSON-LD (single reads only)"))
    show_map = _flag(N_("Whether the map should be shown for the venue or not"), required=True)
    show_map_link = _flag(
        N_("Whether the map link should be shown for the venue or not"), required=True
    )
    global_id = _text(
        N_("The venue ID used to globally identify in Event Aggregator"), required=True
    )
    global_id_lineage = _strings(
        N_(
            "An Array containing the lineage of where this venue comes from, this should not "
            "change after the venue is created."
        ),
        required=True,
    )
    language = _language()
    translations = _translations()


class Organizer(Representation):
    """An organizer, standalone or embedded in an event; empty values are left out."""

    id = _integer(N_("The organizer WordPress post ID"), required=True)
    author = _text(N_("The organizer author user ID, as a string"))
    status = _text(N_("The organizer status"), required=True)
    date = _text(N_("The organizer creation date in the site time zone"), required=True)
    date_utc = _text(N_("The organizer creation date in UTC time"), required=True)
    modified = _text(
        N_("The organizer last modification date in the site time zone"), required=True
    )
    modified_utc = _text(N_("The organizer last modification date in UTC time"), required=True)
    url = _text(N_("The URL to the organizer page"), required=True)
    organizer = _text(N_("The organizer name"))
    description = _text(N_("The organizer long description"))
    excerpt = _text(N_("The organizer short description"))
    slug = _text(N_("The organizer slug"))
    image = fields.Nested(
        Image, metadata={"description": N_("The organizer featured image details if set")}
    )
    phone = _text(N_("The organizer phone number"))
    website = _text(N_("The organizer website"))
    email = _text(N_("The organizer email address"))
    json_ld = _json_ld(N_("The organizer as schema.org JSON-LD (single reads only)"))
    global_id = _text(
        N_("The organizer ID used to globally identify in Event Aggregator"), required=True
    )
    global_id_lineage = _strings(
        N_(
            "An Array containing the lineage of where this organizer comes from, this should "
            "not change after the organizer is created."
        ),
        required=True,
    )
    language = _language()
    translations = _translations()


# -- what our document needs besides TEC's components --------------------------------


class EventTerm(Representation):
    """A category or tag as events embed it: WordPress's raw term fields, unlike the
    term routes' shape."""

    name = _text(N_("The term name"), required=True)
    slug = _text(N_("The term slug"), required=True)
    term_group = _integer(N_("The term group (always 0)"), required=True)
    term_taxonomy_id = _integer(N_("The term taxonomy ID (the term ID)"), required=True)
    taxonomy = _text(N_("The taxonomy the term belongs to"), required=True)
    description = _text(N_("The term description"), required=True)
    parent = _integer(N_("The term parent term ID, 0 for none"), required=True)
    count = _integer(N_("The number of posts associated with the term"), required=True)
    filter = _text(N_("How the term fields were filtered (always raw)"), required=True)
    id = _integer(N_("The WordPress term ID"), required=True)
    urls = _term_urls()
    language = _language()
    translations = _translations()


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
    rest_url = {"rest_url": _text(N_("The REST URL of this page"), required=True)}
    links = {
        "next_rest_url": _text(N_("The REST URL of the next page, when there is one")),
        "previous_rest_url": _text(N_("The REST URL of the previous page, when there is one")),
    }
    totals = {
        "total": _integer(total_text, required=True),
        "total_pages": _integer(N_("The number of pages"), required=True),
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


#: ``data.details`` members of ``rest_invalid_param``: a WordPress error per parameter
PARAM_DETAIL: dict[str, t.Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "description": N_("The error code")},
        "message": {"type": "string", "description": N_("The error message")},
        "data": {"type": "object", "description": N_("The error data")},
    },
}


class Error(Representation):
    """WordPress's error body; the HTTP status is ``data.status``."""

    code = _text(N_("The error code"), required=True)
    message = _text(N_("The error message, in the language of the request"), required=True)
    data = fields.Dict(
        required=True,
        metadata={
            "description": N_("The error data"),
            "properties": {
                "status": {"type": "integer", "description": N_("The HTTP status")},
                "params": {
                    "description": N_(
                        "The failing parameters: their messages by name (invalid "
                        "parameters) or their names (missing parameters)"
                    ),
                    "oneOf": [
                        {"type": "object", "additionalProperties": {"type": "string"}},
                        {"type": "array", "items": {"type": "string"}},
                    ],
                },
                "details": {
                    "description": N_(
                        "The type errors by parameter name, an empty array when there is none"
                    ),
                    "oneOf": [
                        {"type": "object", "additionalProperties": PARAM_DETAIL},
                        empty_array(),
                    ],
                },
                "term_id": {
                    "type": "integer",
                    "description": N_("The ID of the term that already exists (term_exists)"),
                },
            },
            "required": ["status"],
        },
    )


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
    "Error": Error,
}
