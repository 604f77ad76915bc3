"""Argument sets of the event routes (TEC's ``Single_Event`` create/edit args).

Field declaration order is the order parameters are documented and reported in.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema

from . import fields as f
from .messages import N_


class EventWriteArgs(Schema):
    """Every writable event field; nothing required (the edit routes)."""

    class Meta:
        unknown = EXCLUDE

    author = f.Integer(metadata={"description": N_("The event author ID")})
    date = f.LooseDate(metadata={"description": N_("The event publication date")})
    date_utc = f.LooseDate(
        metadata={"description": N_("The event publication date (UTC time zone)")}
    )
    title = f.String(metadata={"description": N_("The event title")})
    description = f.String(metadata={"description": N_("The event description")})
    slug = f.String(metadata={"description": N_("The event slug")})
    excerpt = f.String(metadata={"description": N_("The event excerpt")})
    status = f.Status(metadata={"description": N_("The event post status")})
    timezone = f.Timezone(metadata={"description": N_("The event time zone")})
    all_day = f.Boolean(
        metadata={"description": N_("Whether the event lasts the whole day or not")}
    )
    start_date = f.LooseDate(metadata={"description": N_("The event start date and time")})
    end_date = f.LooseDate(metadata={"description": N_("The event end date and time")})
    image = f.Raw(metadata={"description": N_("The event featured image ID or URL")})
    cost = f.Raw(metadata={"description": N_("The event cost")})
    website = f.Url(metadata={"description": N_("The event website URL")})
    show_map = f.Boolean(metadata={"description": N_("Whether the event should show a map")})
    show_map_link = f.Boolean(
        metadata={"description": N_("Whether the event should show a map link")}
    )
    hide_from_listings = f.Boolean(
        metadata={"description": N_("Whether events should be hidden in the calendar view")}
    )
    sticky = f.Boolean(metadata={"description": N_("Whether the event should be sticky")})
    featured = f.Boolean(metadata={"description": N_("Whether the event should be featured")})
    categories = f.TermList(metadata={"description": N_("The event category ID or name")})
    tags = f.TermList(metadata={"description": N_("The event tag ID or name")})
    venue = f.Raw(metadata={"description": N_("The event venue ID or data")})
    organizer = f.Raw(metadata={"description": N_("The event organizer IDs or data")})
    ticketed = f.Boolean(metadata={"description": N_("Whether the event has tickets")})
    post_parent = f.Integer(positive=True, metadata={"description": N_("The parent event ID")})
    password = f.String(
        allow_empty=True, max_length=255, metadata={"description": N_("The event password")}
    )
    translation_of = f.Integer(
        positive=True,
        metadata={"description": N_("The ID of the record this one translates")},
    )
    i18n_language = f.Language()


class EventCreateArgs(EventWriteArgs):
    """Create: ``title``, ``start_date`` and ``end_date`` are required."""

    title = f.String(required=True, metadata={"description": N_("The event title")})
    start_date = f.LooseDate(
        required=True, metadata={"description": N_("The event start date and time")}
    )
    end_date = f.LooseDate(
        required=True, metadata={"description": N_("The event end date and time")}
    )


class EventReadArgs(Schema):
    """Single event reads (by ID; by slug has no ``password``)."""

    class Meta:
        unknown = EXCLUDE

    password = f.String(metadata={"description": N_("The event password")})
    context = f.Choice(("view", "edit"), metadata={"description": N_("The request context")})
    i18n_language = f.Language()


class EventSlugReadArgs(EventReadArgs):
    """Reads by slug take no ``password`` (TEC's slug routes declare none)."""

    class Meta:
        unknown = EXCLUDE
        exclude = ("password",)


class EventSlugWriteArgs(EventWriteArgs):
    """Updates by slug ignore ``password`` too: a protected event is reached by ID."""

    class Meta:
        unknown = EXCLUDE
        exclude = ("password",)


class EventDeleteArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    password = f.String(
        allow_empty=True, max_length=255, metadata={"description": N_("The event password")}
    )
    i18n_language = f.Language()


class EventArchiveArgs(Schema):
    """``GET /events`` (TEC's ``Archive_Event::READ_args``), in SPEC order."""

    class Meta:
        unknown = EXCLUDE

    page = f.Integer(
        positive=True, load_default=1, metadata={"description": N_("The archive page to return")}
    )
    per_page = f.Integer(
        positive=True,
        metadata={
            "description": N_("The number of events to return on each page"),
            "default_setting": "default_per_page",
        },
    )
    start_date = f.LooseDate(
        metadata={"description": N_("Limit events to ones starting on or after the date")}
    )
    end_date = f.LooseDate(
        metadata={"description": N_("Limit events to ones ending on or before the date")}
    )
    starts_before = f.LooseDate(
        metadata={"description": N_("Limit events to ones starting before the date")}
    )
    starts_after = f.LooseDate(
        metadata={"description": N_("Limit events to ones starting after the date")}
    )
    ends_before = f.LooseDate(
        metadata={"description": N_("Limit events to ones ending before the date")}
    )
    ends_after = f.LooseDate(
        metadata={"description": N_("Limit events to ones ending after the date")}
    )
    strict_dates = f.Boolean(
        words=True,
        metadata={
            "default": False,
            "description": N_(
                "Whether the dates are taken at the exact times given (true) or"
                " as whole days (false)"
            )
        },
    )
    search = f.String(
        metadata={"description": N_("Events should contain every word of the string")}
    )
    categories = f.TermList(
        metadata={"description": N_("Events should have one of the categories (slugs or IDs)")}
    )
    tags = f.TermList(
        metadata={"description": N_("Events should be assigned one of the tags (slugs or IDs)")}
    )
    venue = f.IdList(metadata={"description": N_("Events should be assigned one of the venue IDs")})
    organizer = f.IdList(
        metadata={"description": N_("Events should be assigned one of the organizer IDs")}
    )
    featured = f.Boolean(metadata={"description": N_("Events should be featured, or not")})
    status = f.StringList(metadata={"description": N_("Events should have one of these statuses")})
    geoloc = f.Boolean(
        metadata={"description": N_("Events should have a venue with geolocation data")}
    )
    geoloc_lat = f.Number(
        metadata={"description": N_("Latitude of the point events' venues should be near")}
    )
    geoloc_lng = f.Number(
        metadata={"description": N_("Longitude of the point events' venues should be near")}
    )
    include = f.IdList(
        metadata={"description": N_("Only these event IDs (array or CSV); no date filter applies")}
    )
    post_parent = f.Integer(
        positive=True, metadata={"description": N_("Events should be children of this event ID")}
    )
    ticketed = f.Boolean(metadata={"description": N_("Events should have tickets, or not")})
    password = f.String(metadata={"description": N_("Password unlocking protected events")})
    context = f.Choice(
        ("view", "edit"),
        metadata={"description": N_("edit: show protected events in full to who may edit them")},
    )
    i18n_language = f.Language()
