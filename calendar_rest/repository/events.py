"""Creating, updating and trashing events (TEC's ``Tribe__Events__API``), partially.

``check_event_write`` is the validation phase: it only reads, and raises 400s before
any permission check, in WordPress's order. ``save_event`` then writes inside the
request's transaction. Updates touch only the fields that were sent.
"""

from __future__ import annotations

import dataclasses
import typing as t
import uuid

import orjson

from ..dates import end_of_day, resolve_timezone, start_of_day, to_utc
from ..errors import ParamErrors, bad_param
from ..models import Event, EventOrganizer, Organizer, Term, User, Venue
from ..queries.lookups.events import readable_event
from ..queries.lookups.terms import event_term_ids
from ..rules.markup import EVENT_FIELDS, written_fields
from ..rules.permissions import scale_status
from ..schemas.event_status import needs_online_url
from ..wordpress.cost import infer_currency, normalise_cost_input
from ..wordpress.taxonomies import CATEGORIES, TAGS, Taxonomy
from . import changes, posts, terms
from .inline_links import (
    NewLinked,
    Prepared,
    check_organizers,
    check_venue,
    materialise,
    materialise_all,
    prepare_organizers,
    prepare_venue,
)
from .posts import WriteContext
from .series import check_series_write
from .site_state import note_event_seconds
from .translations import attach
from .word_index import index_record, touches_words

CURRENCY_SYMBOL_MAX = 16
TEXT_FIELDS = ("title", "description", "excerpt")
FLAG_FIELDS = (
    "all_day",
    "show_map",
    "show_map_link",
    "hide_from_listings",
    "sticky",
    "featured",
    "ticketed",
)
#: status and attendance (anchors.md §1), stored as sent
STATUS_FIELDS = ("event_status", "event_status_reason", "attendance_mode", "online_url")


@dataclasses.dataclass
class EventWrite(posts.PostWrite):
    """A validated event write: a post's references plus the event's own."""

    cost: tuple[str, ...] | None = None
    venue: Venue | NewLinked | None = None
    organizers: list[Organizer | NewLinked] | None = None
    #: per taxonomy, the terms to set: existing ones, or names to create
    terms: dict[Taxonomy, list[Term | str]] = dataclasses.field(default_factory=dict)
    parent: Event | None = None
    #: imports only: the source's UID, kept (``calendar.md`` §5); None: a new one
    uid: str | None = None


@dataclasses.dataclass(frozen=True)
class PreparedEvent:
    """What an event write's input becomes without the database: its text as the
    writer may store it, its inline venue and organizers validated. Made once, before
    the write lock (``Call.prepared``); the references are resolved under it."""

    args: dict[str, t.Any]
    venue: list[Prepared] | None
    organizers: list[Prepared] | None


def prepare_event_write(args: dict[str, t.Any], user: User | None) -> PreparedEvent:
    written = written_fields(args, user, EVENT_FIELDS)
    return PreparedEvent(
        written,
        prepare_venue(written["venue"], user) if "venue" in written else None,
        prepare_organizers(written["organizer"], user) if "organizer" in written else None,
    )


def check_event_write(
    args: dict[str, t.Any],
    user: User | None,
    language: str = "en",
    event: Event | None = None,
    prepared: PreparedEvent | None = None,
) -> EventWrite:
    """Resolve references (author, image, venue, organizers, terms, parent, the record
    translated); ``language`` is the language of the event written, ``event`` the event
    updated (None on creates), ``prepared`` what :func:`prepare_event_write` made of
    ``args`` (made here when not given).

    :raises InvalidParams: for every reference that does not resolve, aggregated.
    """
    prepared = prepared or prepare_event_write(args, user)
    write = EventWrite(dict(prepared.args))
    args = write.args
    errors = ParamErrors()
    write.check_owner_and_image(user, errors)
    if "cost" in args:
        write.cost = errors.check(_check_cost, args["cost"])
    for taxonomy in (CATEGORIES, TAGS):
        wanted = args.get(taxonomy.collection)
        if wanted is not None:
            resolved = errors.check(terms.check_terms, taxonomy, wanted, user)
            if resolved is not None:
                write.terms[taxonomy] = resolved
    if "venue" in args:
        write.venue = errors.check(check_venue, args["venue"], user, prepared.venue)
    if "organizer" in args:
        write.organizers = errors.check(
            check_organizers, args["organizer"], user, prepared.organizers
        )
    if "post_parent" in args:
        write.parent = errors.check(_check_parent, args["post_parent"], user)
    write.check_translation(Event, language, event, user, errors)
    if _lacks_online_url(args, event):
        errors.add("online_url", "online_url_required")
    with errors.collecting():
        check_series_write(args, event)
    errors.raise_if_any()
    return write


def _lacks_online_url(args: dict[str, t.Any], event: Event | None) -> bool:
    """Whether the event, as the write leaves it, is online without a URL to join."""

    def after(field: str, default: str) -> str:
        return str(args[field] if field in args else getattr(event, field, default))

    return needs_online_url(
        after("event_status", "scheduled"), after("attendance_mode", "offline")
    ) and not after("online_url", "")


def _check_cost(raw: t.Any) -> tuple[str, ...]:
    try:
        return normalise_cost_input(raw)
    except (TypeError, ValueError):
        raise bad_param("cost") from None


def _check_parent(parent_id: int, user: User | None) -> Event:
    """The parent event, which the writer must be able to read (like any record it
    links: a hidden one is an unknown one)."""
    parent = readable_event(parent_id, user)
    if parent is None:
        raise bad_param("post_parent", "unknown_event")
    return parent


def save_event(write: EventWrite, ctx: WriteContext, event: Event | None = None) -> Event:
    """Create (``event`` None) or partially update an event; returns the saved row."""
    before = None if event is None else changes.seen(event)
    event = write_event(write, ctx, event)
    changes.record_post_change(event, before)
    return event


def write_event(write: EventWrite, ctx: WriteContext, event: Event | None = None) -> Event:
    """:func:`save_event` without its change-log entry: series writes (``series``)
    record one entry per row once the whole write is done."""
    args = write.args
    creating = event is None
    if event is None:
        event = Event(language=ctx.language, author=write.author or ctx.user)
        event.uid = write.uid or str(uuid.uuid4())  # RFC 7986 §5.3: random, non-numeric, global
        posts.stamp_new(event, ctx, args)
    else:
        posts.stamp_update(event, ctx, args)
        event.sequence += 1  # RFC 5545 SEQUENCE: every update, even within a second
        if write.author is not None:
            event.author = write.author
    old_status = event.status if not creating else None
    for field in (*TEXT_FIELDS, *FLAG_FIELDS, *STATUS_FIELDS):
        if field in args:
            setattr(event, field, args[field])
    if "website" in args:
        event.website = args["website"]
    if "password" in args:
        event.password = args["password"]
    _apply_status(event, args, ctx, creating)
    old_start = None if creating else event.start_local
    apply_dates(event, args, ctx, creating)
    if event.event_status == "rescheduled" and old_start not in (None, event.start_local):
        event.previous_start = old_start  # schema.org previousStartDate (anchors.md §1)
    _apply_cost(event, write)
    if "image" in args:
        event.image = posts.attach_image(write.image, ctx)
    _apply_family(event, write)
    if "venue" in args:
        venue = write.venue
        event.venue = materialise(Venue, venue, ctx) if venue is not None else None
    if creating or "slug" in args or ("title" in args and not event.slug):
        wanted = args.get("slug") or event.title
        event.slug = posts.unique_slug(Event, wanted, "event", exclude_id=event.id)
    event.save(force_insert=creating)
    _index_event(event, args, creating)
    touched = _apply_links(event, write, ctx)
    if creating or old_status != event.status or touched:
        terms.refresh_term_counts(event_term_ids(event.id) | touched)
    return event


def _apply_family(event: Event, write: EventWrite) -> None:
    """The parent event and the translation group, where the write sets them."""
    if "post_parent" in write.args:
        event.post_parent = write.parent
    if write.translation is not None:
        attach(Event, event, write.translation)
    if write.lineage is not None:
        event.global_id_lineage = write.lineage


def _index_event(event: Event, args: dict[str, t.Any], creating: bool) -> None:
    """Keep the search words and the longest-duration bound in step with the row."""
    note_event_seconds(int((event.end_utc - event.start_utc).total_seconds()))
    if creating or touches_words(Event, set(args)):
        index_record(event)


def _apply_status(event: Event, args: dict[str, t.Any], ctx: WriteContext, creating: bool) -> None:
    if creating or "status" in args:
        event.status = scale_status(ctx.user, args.get("status"), "publish")
    event.status = posts.scheduled(event.status, event, ctx)


def apply_dates(event: Event, args: dict[str, t.Any], ctx: WriteContext, creating: bool) -> None:
    """Read dates in the event's zone; keep wall times when only the zone changes."""
    if "timezone" in args or creating:
        event.timezone = args.get("timezone") or ctx.site_timezone
    zone = resolve_timezone(event.timezone)
    if "start_date" in args:
        event.start_local = ctx.parse_date(args["start_date"], zone)
    if "end_date" in args:
        event.end_local = ctx.parse_date(args["end_date"], zone)
    if event.all_day:
        event.start_local = start_of_day(event.start_local)
        event.end_local = end_of_day(event.end_local)
    if event.end_local < event.start_local:
        event.end_local = event.start_local  # TEC clamps instead of refusing
    event.start_utc = to_utc(event.start_local, zone)
    event.end_utc = to_utc(event.end_local, zone)


def _apply_cost(event: Event, write: EventWrite) -> None:
    if write.cost is None:
        return
    event.cost = orjson.dumps(list(write.cost)).decode()
    symbol, position = infer_currency(write.cost)
    if len(symbol) > CURRENCY_SYMBOL_MAX:
        symbol, position = "", ""  # a phrase, not a currency sign
    event.currency_symbol, event.currency_position = symbol, position


def _apply_links(event: Event, write: EventWrite, ctx: WriteContext) -> set[int]:
    """Replace organizer and term links that were sent; return affected term IDs."""
    if write.organizers is not None:
        organizers: list[Organizer] = []
        for record in materialise_all(Organizer, write.organizers, ctx):
            if record.id not in {o.id for o in organizers}:
                organizers.append(record)
        EventOrganizer.delete().where(EventOrganizer.event == event.id).execute()
        if organizers:
            EventOrganizer.insert_many(
                [
                    {"event": event.id, "organizer": o.id, "position": i}
                    for i, o in enumerate(organizers)
                ]
            ).execute()
    touched: set[int] = set()
    for taxonomy, wanted in write.terms.items():
        chosen = terms.materialise_terms(taxonomy, wanted, event.language, ctx.now)
        touched |= terms.set_event_terms(event, taxonomy, chosen)
    return touched


def trash_event(event: Event, ctx: WriteContext) -> Event:
    """Move to trash: remember the status, free the slug, recount the terms."""
    before = changes.seen(event)
    event.status_before_trash = event.status
    event.status = "trash"
    event.slug = posts.free_slug(Event, f"{event.slug}__trashed", exclude_id=event.id)
    posts.stamp_update(event, ctx, {})
    event.sequence += 1
    event.save()
    terms.refresh_term_counts(event_term_ids(event.id))
    changes.record_post_change(event, before)
    return event
