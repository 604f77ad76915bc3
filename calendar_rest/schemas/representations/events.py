"""The event representation and the objects it is made of: cost details, images and
date details (TEC's ``ImageSize``, ``CostDetails``, ``Image``, ``DateDetails``,
``Event`` components). An event's venue, organizers and terms are referenced by
``$ref``, so that registering the components in order keeps TEC's order."""

from __future__ import annotations

from marshmallow import fields

from ..event_status import ATTENDANCE_MODES, EVENT_STATUSES
from ..messages import N_
from .base import (
    Representation,
    documented,
    empty_array,
    flag,
    integer,
    json_ld,
    language,
    ref,
    strings,
    text,
    translations,
)


class ImageSize(Representation):
    """One resized version of an image (TEC's ``sizes`` members; we never emit any)."""

    width = integer(N_("The image width in pixels in the specified size"))
    height = integer(N_("The image height in pixels in the specified size"))
    mime_type = fields.String(
        data_key="mime-type", metadata={"description": N_("The image mime-type")}
    )
    url = text(N_("The link to the image in the specified size on the site"))


class CostDetails(Representation):
    """An event's ``cost_details``; ``values`` are strings, as TEC emits them."""

    currency_symbol = text(N_("The cost currency symbol"), required=True)
    currency_code = text(
        N_("The cost currency code (empty: the site default applies)"), required=True
    )
    currency_position = text(
        N_("The position of the currency symbol in the cost string"),
        required=True,
        enum=["prefix", "postfix", ""],
    )
    values = strings(N_("A sorted array of all the numeric values for the cost"), required=True)


class Image(Representation):
    """A featured image; width and height only when known."""

    url = text(N_("The URL to the full size version of the image"), required=True)
    id = integer(N_("The image WordPress post ID"), required=True)
    extension = text(N_("The image file extension"))
    width = integer(N_("The image natural width in pixels"))
    height = integer(N_("The image natural height in pixels"))
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
    return text(description, required=True, pattern=f"^[0-9]{{{digits}}}$")


class DateDetails(Representation):
    """The components of a date, as zero-padded strings (TEC documents integers)."""

    year = _date_part(N_("The date year"), 4)
    month = _date_part(N_("The date month"), 2)
    day = _date_part(N_("The date day"), 2)
    hour = _date_part(N_("The date hour"), 2)
    minutes = _date_part(N_("The date minutes"), 2)
    seconds = _date_part(N_("The date seconds"), 2)


def date_details(description: str) -> fields.Nested:
    return fields.Nested(DateDetails, required=True, metadata={"description": description})


class Event(Representation):
    """An event. ``json_ld`` only on single reads; password-protected events seen
    without the password carry empty or null content fields."""

    id = integer(N_("The event WordPress post ID"), required=True)
    global_id = text(
        N_("The event ID used to globally identify in Event Aggregator"), required=True
    )
    global_id_lineage = strings(
        N_(
            "An Array containing the lineage of where this event comes from, this should not "
            "change after the event is created."
        ),
        required=True,
    )
    author = text(
        N_("The event author user ID, as a string (empty when the author no longer exists)"),
        required=True,
    )
    status = text(N_("The event status"), required=True)
    date = text(N_("The event creation date in the site time zone"), required=True)
    date_utc = text(N_("The event creation date in UTC time"), required=True)
    modified = text(N_("The event last modification date in the site time zone"), required=True)
    modified_utc = text(N_("The event last modification date in UTC time"), required=True)
    url = text(N_("The URL to the event page"), required=True)
    rest_url = text(N_("The REST API link to fetch this event"), required=True)
    title = text(N_("The event name"), required=True)
    description = text(N_("The event long description"), required=True)
    excerpt = text(N_("The event short description"), required=True)
    slug = text(N_("The event slug"), required=True)
    image = documented(
        N_("The event featured image details if set, false otherwise"),
        required=True,
        oneOf=[ref("Image"), {"type": "boolean", "enum": [False]}],
    )
    all_day = flag(
        N_(
            "Whether or not this event is an all day Event; null when the event is password "
            "protected"
        ),
        required=True,
        nullable=True,
    )
    start_date = text(N_("The event start date in the event or site time zone"), required=True)
    start_date_details = date_details(N_("Each component of the event start date"))
    end_date = text(N_("The event end date in the event or site time zone"), required=True)
    end_date_details = date_details(N_("Each component of the event end date"))
    utc_start_date = text(N_("The event start date in UTC time"), required=True)
    utc_start_date_details = date_details(N_("Each component of the event start date in UTC time"))
    utc_end_date = text(N_("The event end date in UTC time"), required=True)
    utc_end_date_details = date_details(N_("Each component of the event end date in UTC time"))
    timezone = text(N_("The event time zone string"), required=True)
    timezone_abbr = text(N_("The abbreviated event time zone string"), required=True)
    cost = text(N_("The event cost including the currency symbol"), required=True)
    cost_details = fields.Nested(
        CostDetails, required=True, metadata={"description": N_("The event cost details")}
    )
    website = text(N_("The event website URL"), required=True)
    show_map = flag(
        N_(
            "Whether the map should be shown for the event or not; null when the event is "
            "password protected"
        ),
        required=True,
        nullable=True,
    )
    show_map_link = flag(
        N_(
            "Whether the map link should be shown for the event or not; null when the event "
            "is password protected"
        ),
        required=True,
        nullable=True,
    )
    hide_from_listings = flag(
        N_(
            "Whether an event should be hidden from the calendar view or not; null when the "
            "event is password protected"
        ),
        required=True,
        nullable=True,
    )
    sticky = flag(
        N_(
            "Whether an event is sticky in the calendar view or not; null when the event is "
            "password protected"
        ),
        required=True,
        nullable=True,
    )
    featured = flag(
        N_(
            "Whether the event is featured in the calendar or not; null when the event is "
            "password protected"
        ),
        required=True,
        nullable=True,
    )
    categories = documented(
        N_("The event categories"), required=True, type="array", items=ref("EventTerm")
    )
    tags = documented(N_("The event tags"), required=True, type="array", items=ref("EventTerm"))
    venue = documented(
        N_("The event venue, an empty array when the event has none"),
        required=True,
        oneOf=[ref("Venue"), empty_array()],
    )
    organizer = documented(
        N_("The event organizers"), required=True, type="array", items=ref("Organizer")
    )
    json_ld = json_ld(N_("The event as schema.org JSON-LD (single event reads only)"))
    recurrence = strings(
        N_("The RFC 5545 lines of the event's recurring series; empty when it does not repeat"),
        required=True,
    )
    recurring_event_id = documented(
        N_("The ID of the series master, for an occurrence other than the master; null otherwise"),
        required=True,
        type="integer",
        nullable=True,
    )
    original_start_date = documented(
        N_(
            "The occurrence's original start in the series time zone (YYYY-MM-DD HH:MM:SS); "
            "null for an event that does not repeat"
        ),
        required=True,
        type="string",
        nullable=True,
    )
    event_status = documented(
        N_("Whether the event still happens"),
        required=True,
        type="string",
        enum=list(EVENT_STATUSES),
    )
    event_status_reason = text(
        N_("The text shown with the event status; empty when the event is password protected"),
        required=True,
    )
    attendance_mode = documented(
        N_("Where attendees take part"), required=True, type="string", enum=list(ATTENDANCE_MODES)
    )
    online_url = text(
        N_("The URL attendees join, empty when none; empty when the event is password protected"),
        required=True,
    )
    previous_start_date = documented(
        N_(
            "The start (YYYY-MM-DD HH:MM:SS, event time zone) a rescheduling moved the event "
            "from; null when it was never rescheduled"
        ),
        required=True,
        type="string",
        nullable=True,
    )
    language = language()
    translations = translations()
