"""Post-like records and their pictures: events, venues and organizers share
``PostModel`` (status, author, slug unique per type, language, password, and the
WordPress pair of local/UTC publication and modification times).

Event start/end are kept both as the event's local wall time (what the wire shows)
and as UTC (what filters and ordering use).
"""

from __future__ import annotations

import peewee as pw

from .base import BaseModel
from .people import User


class Attachment(BaseModel):
    """A featured image: an uploaded or referenced picture with its metadata."""

    id: pw.AutoField[int]
    author_id: pw.ForeignKeyField[int | None]
    url = pw.CharField(max_length=700, index=True)
    extension = pw.CharField(max_length=10, default="")
    width = pw.IntegerField(null=True)
    height = pw.IntegerField(null=True)
    author = pw.ForeignKeyField(User, null=True, on_delete="SET NULL")
    created = pw.DateTimeField()


class PostModel(BaseModel):
    """Columns every post-like record has (WordPress's posts table, typed)."""

    id: pw.AutoField[int]
    author_id: pw.ForeignKeyField[int | None]
    image_id: pw.ForeignKeyField[int | None]
    author = pw.ForeignKeyField(User, null=True, on_delete="SET NULL")
    status = pw.CharField(max_length=20, default="publish")
    #: status before trashing, which decides who may still edit the trashed record
    status_before_trash = pw.CharField(max_length=20, null=True)
    slug = pw.CharField(max_length=200, unique=True)
    title = pw.TextField()
    description = pw.TextField(default="")
    excerpt = pw.TextField(default="")
    password = pw.CharField(max_length=255, default="")
    language = pw.CharField(max_length=5, default="en")
    #: id of the record this one translates (WPML's translation group), if any
    translation_of = pw.IntegerField(null=True, index=True)
    image = pw.ForeignKeyField(Attachment, null=True, on_delete="SET NULL")
    date = pw.DateTimeField()
    date_utc = pw.DateTimeField()
    modified = pw.DateTimeField()
    modified_utc = pw.DateTimeField()
    #: where an imported record came from: the source's ``global_id`` lineage followed
    #: by this copy's own (TEC's ``global_id_lineage``), space-separated
    global_id_lineage = pw.TextField(default="")


class Venue(PostModel):
    address = pw.CharField(max_length=255, default="")
    city = pw.CharField(max_length=255, default="")
    country = pw.CharField(max_length=255, default="")
    province = pw.CharField(max_length=255, default="")
    state = pw.CharField(max_length=255, default="")
    zip = pw.CharField(max_length=64, default="")
    phone = pw.CharField(max_length=64, default="")
    website = pw.CharField(max_length=700, default="")
    stateprovince = pw.CharField(max_length=255, default="")
    show_map = pw.BooleanField(default=True)
    show_map_link = pw.BooleanField(default=True)
    geo_lat = pw.DoubleField(null=True)
    geo_lng = pw.DoubleField(null=True)

    class Meta:
        indexes = (
            # the venue list: language and status, newest first
            (("language", "status", "date_utc", "id"), False),
            (("geo_lat", "geo_lng"), False),
            (("status", "date_utc"), False),  # the next scheduled publication
            # ``modified_after``/``modified_before`` and ``orderby=modified``
            (("language", "status", "modified_utc", "id"), False),
        )


class Organizer(PostModel):
    phone = pw.CharField(max_length=64, default="")
    website = pw.CharField(max_length=700, default="")
    email = pw.CharField(max_length=255, default="")

    class Meta:
        indexes = (
            (("language", "status", "date_utc", "id"), False),
            (("status", "date_utc"), False),  # the next scheduled publication
            (("language", "status", "modified_utc", "id"), False),
        )


class Event(PostModel):
    post_parent_id: pw.ForeignKeyField[int | None]
    series_master_id: pw.ForeignKeyField[int | None]
    venue_id: pw.ForeignKeyField[int | None]
    start_local = pw.DateTimeField()
    end_local = pw.DateTimeField()
    start_utc = pw.DateTimeField()
    end_utc = pw.DateTimeField()
    timezone = pw.CharField(max_length=64)
    all_day = pw.BooleanField(default=False)
    #: raw cost strings as sent, JSON-encoded list; display form is derived on output
    cost = pw.TextField(default="[]")
    currency_symbol = pw.CharField(max_length=16, default="")
    currency_position = pw.CharField(max_length=8, default="")
    #: None means "never set": the wire then falls back to the permalink (TEC rule)
    website = pw.CharField(max_length=700, null=True)
    show_map = pw.BooleanField(default=False)
    show_map_link = pw.BooleanField(default=False)
    hide_from_listings = pw.BooleanField(default=False)
    sticky = pw.BooleanField(default=False)
    featured = pw.BooleanField(default=False)
    ticketed = pw.BooleanField(default=False)
    post_parent = pw.ForeignKeyField("self", null=True, on_delete="SET NULL", backref="children")
    venue = pw.ForeignKeyField(Venue, null=True, on_delete="SET NULL", backref="events")
    # -- iCalendar and recurring series (calendar.md §3, §4) --------------------------
    #: RFC 5545 UID: a random UUID at creation (an import keeps the source's), shared by
    #: every occurrence of a series, never changed
    uid = pw.CharField(max_length=255, default="", index=True)
    #: RFC 5545 SEQUENCE: 0 at creation, +1 in every update that touches the event
    sequence = pw.IntegerField(default=0)
    #: a master's ``recurrence`` lines (JSON list); "" for other events
    recurrence = pw.TextField(default="")
    #: an occurrence's master (None for a master and for a stand-alone event)
    series_master = pw.ForeignKeyField(
        "self", null=True, on_delete="CASCADE", backref="occurrences"
    )
    #: the original start (local wall clock in the series zone) of a master or occurrence
    original_start = pw.DateTimeField(null=True)
    #: the fields changed on this occurrence alone (JSON list): an exception's own fields
    exception_fields = pw.TextField(default="")
    #: a master's base values, what series-wide edits last set (JSON object)
    series_base = pw.TextField(default="")
    #: how far a master's occurrences exist as rows (UTC)
    materialised_until = pw.DateTimeField(null=True)
    #: a series row's words of the series' text, shared with the rows that keep the
    #: same text fields (``repository.series_words``); None: its words are its own
    words_from = pw.BigIntegerField(null=True, index=True)
    # -- status and attendance (anchors.md §1; schema.org eventStatus) ---------------
    #: whether the event still happens: scheduled, canceled, postponed, rescheduled,
    #: moved_online
    event_status = pw.CharField(max_length=16, default="scheduled")
    #: the text shown with the status (markup filtered as the excerpt's)
    event_status_reason = pw.TextField(default="")
    #: offline, online or mixed (schema.org eventAttendanceMode)
    attendance_mode = pw.CharField(max_length=8, default="offline")
    #: where attendees join an online or mixed event ("" for none)
    online_url = pw.CharField(max_length=700, default="")
    #: the start (local wall time) a rescheduling moved the event from
    previous_start = pw.DateTimeField(null=True)

    class Meta:
        indexes = (
            # The archive: equality columns first, then the order (start, id); the
            # trailing columns let counts and filters run on the index alone (a search
            # too: the words an event shares with its series, ``words_from``).
            (
                (
                    "language",
                    "hide_from_listings",
                    "status",
                    "start_utc",
                    "id",
                    "end_utc",
                    "featured",
                    "ticketed",
                    "venue",
                    "words_from",
                    "event_status",
                ),
                False,
            ),
            (("start_utc", "id"), False),
            (("venue", "start_utc"), False),
            (("featured", "start_utc"), False),
            (("post_parent", "start_utc"), False),
            (("author", "status"), False),
            # the next scheduled publication (repository.publishing)
            (("status", "date_utc"), False),
            # ``modified_after``/``modified_before`` and ``orderby=modified`` (sync)
            (("modified_utc", "id"), False),
            # a series' occurrences in date order (``/events/{id}/occurrences``)
            (("series_master", "start_utc"), False),
        )
