"""Argument sets of the event routes (TEC's ``Single_Event`` create/edit args and
``Archive_Event::READ_args``).

Field declaration order is the order parameters are documented and reported in.
"""

from __future__ import annotations

import typing as t

from marshmallow import validates_schema

from . import fields as f
from . import shared
from .event_status import ATTENDANCE_MODES, EVENT_STATUSES, check_sent
from .messages import N_
from .shared import Args

#: what a series write or delete applies to (calendar.md §4.4, §4.5)
SCOPES = ("this", "following", "all")
#: the most organizers, categories or tags (each kind apart) one event write may link,
#: existing or created inline: each costs statements inside the write's lock, and no
#: event needs more (past it: 400 ``rest_too_many_items``, before any lock is taken)
MAX_LINKED = 100
#: the most links one series write may give its occurrences: occurrences × (organizers
#: + categories + tags), counted where a write creates occurrences (a new series, a new
#: rule, start, end, zone or all-day) or sends links series-wide. Every occurrence is an
#: event of its own (calendar.md §4.1), each of its links a row written while every
#: other writer waits, about 3 µs each on SQLite (written, or deleted by a later write):
#: 50,000 keep the heaviest series write under a second. A daily series over two years
#: (730 occurrences) may have 68 links, the largest series (2,000 occurrences,
#: ``recurrence_max_occurrences``) 25. Past it: 400 ``rest_too_many_items`` naming
#: ``recurrence``, before any lock is taken.
MAX_SERIES_LINKS = 50_000
#: the most characters of text (title, description and excerpt) one series write may
#: copy into its occurrences: occurrences × the length of that text, counted as the
#: links are. Each occurrence stores the series' text (8 MB of it took 70 ms to write on
#: SQLite); a daily series over two years may have 10,900 characters of text, a weekly
#: one 76,000, a series of 2,000 occurrences 4,000. Past it: the same 400.
MAX_SERIES_TEXT = 8_000_000


class EventWriteArgs(Args):
    """Every writable event field; nothing required (the edit routes)."""

    author = f.Integer(help=N_("The event author ID"))
    date = f.LooseDate(help=N_("The event publication date"))
    date_utc = f.LooseDate(help=N_("The event publication date (UTC time zone)"))
    title = f.String(help=N_("The event title"))
    description = f.String(help=N_("The event description"))
    slug = f.String(help=N_("The event slug"))
    excerpt = f.String(help=N_("The event excerpt"))
    status = f.Status(help=N_("The event post status"))
    timezone = f.Timezone(help=N_("The event time zone"))
    all_day = f.Boolean(help=N_("Whether the event lasts the whole day or not"))
    start_date = f.LooseDate(help=N_("The event start date and time"))
    end_date = f.LooseDate(help=N_("The event end date and time"))
    image = f.Raw(help=N_("The event featured image ID or URL"))
    cost = f.Raw(help=N_("The event cost"))
    website = f.Url(help=N_("The event website URL"))
    show_map = f.Boolean(help=N_("Whether the event should show a map"))
    show_map_link = f.Boolean(help=N_("Whether the event should show a map link"))
    hide_from_listings = f.Boolean(help=N_("Whether events should be hidden in the calendar view"))
    sticky = f.Boolean(help=N_("Whether the event should be sticky"))
    featured = f.Boolean(help=N_("Whether the event should be featured"))
    categories = f.TermList(max_items=MAX_LINKED, help=N_("The event category ID or name"))
    tags = f.TermList(max_items=MAX_LINKED, help=N_("The event tag ID or name"))
    venue = f.Raw(help=N_("The event venue ID or data"))
    organizer = f.RawList(max_items=MAX_LINKED, help=N_("The event organizer IDs or data"))
    ticketed = f.Boolean(help=N_("Whether the event has tickets"))
    post_parent = f.Integer(positive=True, help=N_("The parent event ID"))
    event_status = f.Choice(
        EVENT_STATUSES, help=N_("Whether the event still happens (default: scheduled)")
    )
    event_status_reason = f.String(
        allow_empty=True, help=N_("The text shown with the event status, such as why it changed")
    )
    attendance_mode = f.Choice(
        ATTENDANCE_MODES, help=N_("Where attendees take part: offline (default), online or mixed")
    )
    online_url = f.Url(
        help=N_(
            "The http or https URL attendees join; required for online and mixed events and "
            "for events moved online"
        )
    )
    password = shared.password()
    translation_of = shared.translation_of()
    recurrence = f.Recurrence(
        help=N_(
            "The series' RFC 5545 lines: at most one RRULE, plus RDATE and EXDATE lines; "
            "[] or null: not recurring"
        )
    )
    scope = f.Choice(
        SCOPES,
        help=N_(
            "Which occurrences of a series an update changes: this one, this and the "
            "following ones, or all"
        ),
    )
    i18n_language = f.Language()

    @validates_schema
    def _online_url_sent(self, data: dict[str, t.Any], **kwargs: t.Any) -> None:
        """An update that makes an event online may rely on its stored URL (the
        repository checks that); it may not clear it."""
        check_sent(data, creating=False)


class EventCreateArgs(EventWriteArgs):
    """Create: ``title``, ``start_date`` and ``end_date`` are required (no ``scope``:
    a new event has no occurrences yet)."""

    class Meta(Args.Meta):
        exclude = ("scope",)

    @validates_schema
    def _online_url_sent(self, data: dict[str, t.Any], **kwargs: t.Any) -> None:
        check_sent(data, creating=True)

    title = f.String(required=True, help=N_("The event title"))
    start_date = f.LooseDate(required=True, help=N_("The event start date and time"))
    end_date = f.LooseDate(required=True, help=N_("The event end date and time"))


class EventReadArgs(Args):
    """Single event reads (by ID; by slug has no ``password``)."""

    password = f.String(help=N_("The event password"))
    context = f.Choice(("view", "edit"), help=N_("The request context"))
    i18n_language = f.Language()


class EventSlugReadArgs(EventReadArgs):
    """Reads by slug take no ``password`` (TEC's slug routes declare none)."""

    class Meta(Args.Meta):
        exclude = ("password",)


class EventSlugWriteArgs(EventWriteArgs):
    """Updates by slug ignore ``password`` too: a protected event is reached by ID."""

    class Meta(Args.Meta):
        exclude = ("password",)


class EventDeleteArgs(Args):
    password = shared.password()
    scope = f.Choice(
        SCOPES,
        help=N_(
            "Which occurrences of a series to delete: this one, this and the following ones, or all"
        ),
    )
    i18n_language = f.Language()


class EventArchiveArgs(Args):
    """``GET /events`` (TEC's ``Archive_Event::READ_args``), in SPEC order."""

    page = shared.page()
    per_page = shared.per_page(N_("The number of events to return on each page"))
    start_date = f.LooseDate(help=N_("Limit events to ones starting on or after the date"))
    end_date = f.LooseDate(help=N_("Limit events to ones ending on or before the date"))
    starts_before = f.LooseDate(help=N_("Limit events to ones starting before the date"))
    starts_after = f.LooseDate(help=N_("Limit events to ones starting after the date"))
    ends_before = f.LooseDate(help=N_("Limit events to ones ending before the date"))
    ends_after = f.LooseDate(help=N_("Limit events to ones ending after the date"))
    strict_dates = f.Boolean(
        words=True,
        metadata={"default": False},
        help=N_(
            "Whether the dates are taken at the exact times given (true) or as whole days (false)"
        ),
    )
    # "" is refused as TEC does; white space only is a search without words: no filter
    search = f.String(allow_blank=True, help=N_("Events should contain every word of the string"))
    categories = f.TermList(help=N_("Events should have one of the categories (slugs or IDs)"))
    tags = f.TermList(help=N_("Events should be assigned one of the tags (slugs or IDs)"))
    venue = f.IdList(help=N_("Events should be assigned one of the venue IDs"))
    organizer = f.IdList(help=N_("Events should be assigned one of the organizer IDs"))
    featured = f.Boolean(help=N_("Events should be featured, or not"))
    status = f.StringList(help=N_("Events should have one of these statuses"))
    event_status = f.StringList(
        choices=EVENT_STATUSES,
        help=N_("Events should have one of these event statuses (default: every status)"),
    )
    geoloc = f.Boolean(help=N_("Events should have a venue with geolocation data"))
    geoloc_lat = f.Number(help=N_("Latitude of the point events' venues should be near"))
    geoloc_lng = f.Number(help=N_("Longitude of the point events' venues should be near"))
    include = f.IdList(help=N_("Only these event IDs (array or CSV); no date filter applies"))
    post_parent = f.Integer(positive=True, help=N_("Events should be children of this event ID"))
    ticketed = f.Boolean(help=N_("Events should have tickets, or not"))
    hide_subsequent_recurrences = f.Boolean(
        help=N_("Only the next matching occurrence of each recurring series")
    )
    password = f.String(help=N_("Password unlocking protected events"))
    context = f.Choice(
        ("view", "edit"), help=N_("edit: show protected events in full to who may edit them")
    )
    modified_after = shared.modified_after()
    modified_before = shared.modified_before()
    orderby = shared.orderby()
    order = shared.order()
    i18n_language = f.Language()
