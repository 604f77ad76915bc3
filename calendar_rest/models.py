"""Peewee models for every stored record, declared without a database.

``bind_models`` attaches them to an app's database for the calling thread; each app
rebinds at the start of every request it serves. Post-like records (events, venues,
organizers) share ``PostModel``: status, author, slug (unique per type), language,
password and the WordPress pair of local/UTC publication and modification times.
Event start/end are kept both as the event's local wall time (what the wire shows)
and as UTC (what filters and ordering use).
"""

from __future__ import annotations

import typing as t

import peewee as pw
from playhouse.shortcuts import ThreadSafeDatabaseMetadata

POST_STATUSES = ("publish", "future", "draft", "pending", "private", "trash")
PUBLISHED_STATUSES = ("publish", "future")
ROLES = ("administrator", "editor", "author", "contributor", "subscriber")
#: largest ID a 32-bit INTEGER primary key holds (the same on every backend)
MAX_ID = 2**31 - 1


def could_exist(record_id: int) -> bool:
    """Whether ``record_id`` fits a primary key: larger path or body IDs name no record,
    and passing them to a driver could overflow it."""
    return 0 < record_id <= MAX_ID


def model_of(record: t.Any) -> type[pw.Model]:
    """The model ``record`` belongs to: its class, or for a read-only row
    (``queries.rows``) the model it is a row of."""
    cls = type(record)
    found = _MODELS.get(cls)
    if found is None:
        found = _MODELS[cls] = getattr(cls, "row_model", None) or cls
    return found


#: ``model_of`` by class: a handful of models and their row classes
_MODELS: dict[type[t.Any], type[pw.Model]] = {}


class BaseModel(pw.Model):
    # Peewee adds attributes at run time that the type checker cannot see: the implicit
    # ``id`` primary key and, for each foreign key ``x``, the raw-id accessor ``x_id``.
    # Models declare them as bare annotations, which Peewee ignores (no value, no field):
    # read on the class they are the field, read on a record the stored value.

    class Meta:
        legacy_table_names = False
        #: each thread binds the models to the database of the app it is serving, so
        #: several apps (different databases) can live in one process
        model_metadata_class = ThreadSafeDatabaseMetadata


class User(BaseModel):
    id: pw.AutoField[int]
    login = pw.CharField(max_length=60, unique=True)
    email = pw.CharField(max_length=100, default="", index=True)
    display_name = pw.CharField(max_length=250, default="")
    role = pw.CharField(max_length=20)
    registered = pw.DateTimeField()


class ApplicationPassword(BaseModel):
    """A generated API secret; only its salted hash is stored."""

    id: pw.AutoField[int]
    user_id: pw.ForeignKeyField[int]
    user = pw.ForeignKeyField(User, backref="application_passwords", on_delete="CASCADE")
    name = pw.CharField(max_length=100, default="")
    salt = pw.CharField(max_length=64)
    password_hash = pw.CharField(max_length=128)
    created = pw.DateTimeField()


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


def _keyed_by_pair(target: str) -> t.Any:
    """The ``Meta`` of a link table: the (event, ``target``) pair is the primary key,
    and an index serves the look-ups from the other side. (Peewee consumes a model's
    ``Meta`` and inherits the base's options, so this is a plain class.)"""
    options = {
        "primary_key": pw.CompositeKey("event", target),
        "indexes": (((target, "event"), False),),
    }
    return type("Meta", (), options)


class EventLink(BaseModel):
    """An ordered link from an event to a linked record: one row per pair, keyed by the
    pair and indexed from the other side too (filters and embeds read both ways).
    Never a table itself: each subclass adds the other side's ``target``."""

    event_id: pw.ForeignKeyField[int]
    # no index of their own: the key (event first) and the other side's index (target
    # first) serve both columns, and each index more slows every link written
    event = pw.ForeignKeyField(Event, on_delete="CASCADE", index=False)
    position = pw.IntegerField(default=0)


class EventOrganizer(EventLink):
    """Ordered many-to-many link between events and organizers."""

    organizer_id: pw.ForeignKeyField[int]
    organizer = pw.ForeignKeyField(Organizer, on_delete="CASCADE", index=False)

    Meta = _keyed_by_pair("organizer")


class Term(BaseModel):
    """A category (hierarchical) or tag; WordPress's terms + term_taxonomy merged."""

    id: pw.AutoField[int]
    parent_id: pw.ForeignKeyField[int | None]
    taxonomy = pw.CharField(max_length=32)
    name = pw.CharField(max_length=200)
    slug = pw.CharField(max_length=200)
    description = pw.TextField(default="")
    parent = pw.ForeignKeyField("self", null=True, on_delete="SET NULL", backref="children")
    #: published events carrying the term, maintained by every write that can change it
    count = pw.IntegerField(default=0)
    language = pw.CharField(max_length=5, default="en")
    translation_of = pw.IntegerField(null=True, index=True)

    class Meta:
        indexes = (
            (("taxonomy", "slug"), True),
            (("taxonomy", "name"), False),
            (("taxonomy", "parent"), False),
        )


class EventTerm(EventLink):
    """Ordered link between events and terms."""

    term_id: pw.ForeignKeyField[int]
    term = pw.ForeignKeyField(Term, on_delete="CASCADE", index=False)

    Meta = _keyed_by_pair("term")


class SearchWord(BaseModel):
    """One folded word of a searchable record (see ``search.py``): ``kind`` is
    ``e``vent, ``v``enue, ``o``rganizer, or the ``s``eries text that the rows of a
    recurring series share (``repository.series_words``); ``part`` is ``t``itle,
    ``c``ontent or ``p``rotected content. ``word`` compares by code point on every
    backend (``repository.schema`` sets the column's collation)."""

    kind = pw.CharField(max_length=1)
    word = pw.CharField(max_length=40)
    #: the record's ID, or for ``s``eries words the ``Event.words_from`` sharing them
    record_id = pw.BigIntegerField()
    part = pw.CharField(max_length=1, default="c")

    class Meta:
        primary_key = pw.CompositeKey("kind", "word", "record_id")
        #: a record's words in order: deletes by record, and a page that walks the
        #: archive in order checks each event's words with one seek (``word_search``)
        indexes = ((("kind", "record_id", "word", "part"), False),)


#: ``SearchWord.kind`` of each searchable model
SEARCH_KIND: dict[type[PostModel], str] = {Event: "e", Venue: "v", Organizer: "o"}
#: ``SearchWord.kind`` of the words a series' rows share (``Event.words_from``)
SHARED_KIND = "s"


class SiteState(BaseModel):
    """Counters shared by every process on the database.

    ``generation`` is bumped inside every write transaction, so any process can tell
    in one indexed read whether what it cached is still current;
    ``max_event_seconds`` bounds event durations, which turns "ends after X" into an
    index range on the start date.
    """

    key = pw.CharField(max_length=32, primary_key=True)
    value = pw.BigIntegerField(default=0)


class ChangeEntry(BaseModel):
    """One change of one record, appended by the write that made it (``sync.md`` §3.9).

    ``position`` is the write generation the write took (``SiteState``), so entries
    commit in position order on every backend; ``id`` orders the entries of one write.
    The visibility attributes before and after the change (``None`` status: the
    record did not exist) let the change feed judge each entry for each caller.
    """

    id: pw.AutoField[int]
    position = pw.BigIntegerField()
    record_type = pw.CharField(max_length=10)
    record_id = pw.IntegerField()
    #: ``created``, ``updated`` or ``deleted``
    kind = pw.CharField(max_length=8)
    changed_utc = pw.DateTimeField()
    before_status = pw.CharField(max_length=20, null=True)
    before_author = pw.IntegerField(null=True)
    after_status = pw.CharField(max_length=20, null=True)
    after_author = pw.IntegerField(null=True)

    class Meta:
        indexes = (
            (("position", "id"), False),
            (("record_type", "record_id", "position"), False),
        )


class PayloadField(pw.BlobField):
    """Bytes of any size: MariaDB's ``BLOB`` stops at 64 KiB, so it gets ``LONGBLOB``."""

    def ddl_datatype(self, ctx: t.Any) -> t.Any:
        if isinstance(self.model._meta.database, pw.MySQLDatabase):
            return pw.SQL("LONGBLOB")
        return super().ddl_datatype(ctx)

    def python_value(self, value: t.Any) -> bytes | None:
        """``bytes`` on every backend (PostgreSQL's driver returns a ``memoryview``)."""
        return None if value is None else bytes(value)


class WebhookSubscription(BaseModel):
    """An administrator's webhook endpoint (``sync.md`` §4). ``signing_key`` holds the
    standard base64 of the 32-byte key the worker signs with; the ``whsec_`` secret
    built from it is shown once, in the create response."""

    id: pw.AutoField[int]
    #: exactly as submitted (at most 2048 characters)
    url = pw.TextField()
    #: the event type names as a JSON array, in the submitted order
    events = pw.TextField()
    active = pw.BooleanField(default=True)
    disabled_reason = pw.CharField(max_length=100, null=True)
    created_at = pw.DateTimeField()
    signing_key = pw.CharField(max_length=64)


class WebhookMessage(BaseModel):
    """One outbox message: one change for one subscription, its payload rendered once
    when the write that made the change enqueued it (``sync.md`` §5.1, §5.7).

    ``state`` is ``pending`` (due at ``next_attempt_at``), ``done``, ``failed`` or
    ``dropped``; a worker holds a message while ``locked_until`` is in the future and
    ``claim`` is its token, so only the holder of the lease records the attempt.
    """

    id: pw.AutoField[int]
    subscription_id: pw.ForeignKeyField[int]
    #: the ``webhook-id`` header: ``msg_`` and a random URL-safe string
    message_id = pw.CharField(max_length=40, unique=True)
    subscription = pw.ForeignKeyField(WebhookSubscription, on_delete="CASCADE")
    type = pw.CharField(max_length=24)
    payload = PayloadField()
    state = pw.CharField(max_length=8, default="pending")
    attempts = pw.IntegerField(default=0)
    next_attempt_at = pw.DateTimeField()
    locked_until = pw.DateTimeField(null=True)
    claim = pw.CharField(max_length=32, null=True)
    created_at = pw.DateTimeField()

    class Meta:
        indexes = (
            # the worker's claim: pending messages due first, an index range
            (("state", "next_attempt_at"), False),
            # a subscription's pending and failed counts, and dropping its pending ones
            (("subscription", "state"), False),
            (("created_at",), False),  # pruning
        )


class WebhookAttempt(BaseModel):
    """One delivery attempt of a message (one item of ``webhooks/{id}/deliveries``)."""

    id: pw.AutoField[int]
    subscription_id: pw.ForeignKeyField[int]
    message_id: pw.ForeignKeyField[int]
    subscription = pw.ForeignKeyField(WebhookSubscription, on_delete="CASCADE")
    message = pw.ForeignKeyField(WebhookMessage, on_delete="CASCADE")
    attempt = pw.IntegerField()
    attempted_at = pw.DateTimeField()
    status_code = pw.IntegerField(null=True)
    error = pw.CharField(max_length=100, null=True)
    duration_ms = pw.IntegerField()
    next_attempt_at = pw.DateTimeField(null=True)

    class Meta:
        indexes = (
            (("subscription", "id"), False),  # the deliveries list, newest first
            (("attempted_at",), False),  # pruning
        )


class LoginThrottle(BaseModel):
    """Failed logins of a key (a login or a client address) and the lock they led to
    (``auth.py``); a ``success`` key remembers when an address last authenticated as a
    login. Shared by every process; rows expire."""

    key = pw.CharField(max_length=300, primary_key=True)
    #: the times (Unix seconds, space-separated) of the failures within the window
    failures = pw.TextField(default="")
    locked_until = pw.DateTimeField(null=True)
    #: locks of this key within a day, which double the next lock
    locks = pw.IntegerField(default=0)
    last_lock = pw.DateTimeField(null=True)
    last_success = pw.DateTimeField(null=True)
    expires = pw.DateTimeField(index=True)

    def failure_times(self) -> list[int]:
        return [int(stamp) for stamp in self.failures.split()]


#: a record that can join a translation group (WPML's): it has ``language`` and
#: ``translation_of``
Translatable = PostModel | Term

MODELS: tuple[type[BaseModel], ...] = (
    User,
    ApplicationPassword,
    Attachment,
    Venue,
    Organizer,
    Event,
    EventOrganizer,
    Term,
    EventTerm,
    SearchWord,
    SiteState,
    ChangeEntry,
    WebhookSubscription,
    WebhookMessage,
    WebhookAttempt,
    LoginThrottle,
)


def bind_models(database: pw.Database, login_store: pw.Database) -> None:
    """Attach every model to ``database`` but the failed-login counters, attached to
    ``login_store`` (``db.login_store(database)``); cheap when already so."""
    if User._meta.database is not database or LoginThrottle._meta.database is not login_store:
        records = [model for model in MODELS if model is not LoginThrottle]
        database.bind(records, bind_refs=False, bind_backrefs=False)
        login_store.bind([LoginThrottle], bind_refs=False, bind_backrefs=False)
