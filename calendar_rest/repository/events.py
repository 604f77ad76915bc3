"""Creating, updating and trashing events (TEC's ``Tribe__Events__API``), partially.

``check_event_write`` is the validation phase: it only reads, and raises 400s before
any permission check, in WordPress's order. ``save_event`` then writes inside the
request's transaction. Updates touch only the fields that were sent.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

import orjson

from .. import state
from ..cost import infer_currency, normalise_cost_input
from ..dates import end_of_day, parse_datetime, resolve_timezone, start_of_day, to_utc
from ..errors import InvalidParams, invalid_param
from ..models import (
    TAXONOMY_CATEGORY,
    Attachment,
    Event,
    EventOrganizer,
    Organizer,
    SearchWord,
    Venue,
)
from ..permissions import scale_status
from ..schemas.messages import ParamMessage
from ..search import record_words, replace_words
from . import linked, terms
from .posts import (
    WriteContext,
    attach_image,
    check_author,
    check_image,
    free_slug,
    stamp_new,
    stamp_update,
    unique_slug,
)
from .translations import translation_root

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


@dataclasses.dataclass
class EventWrite:
    """A validated write: the loaded args plus everything resolved against the database."""

    args: dict[str, t.Any]
    author: t.Any = None
    image: Attachment | str | None = None
    cost: tuple[str, ...] | None = None
    venue: Venue | linked.NewLinked | None = None
    organizers: list[Organizer | linked.NewLinked] | None = None
    categories: list[t.Any] | None = None
    tags: list[t.Any] | None = None
    parent: Event | None = None
    #: the translation group's root to store in ``translation_of``
    translation_root: int | None = None


def check_event_write(
    args: dict[str, t.Any], user: t.Any, language: str = "en", event: Event | None = None
) -> EventWrite:
    """Resolve references (author, image, venue, organizers, terms, parent, the record
    translated); ``language`` is the language of the event written, ``event`` the event
    updated (None on creates).

    :raises InvalidParams: for every reference that does not resolve, aggregated.
    """
    write = EventWrite(args)
    checks: list[tuple[str, t.Callable[[], None]]] = [
        ("author", lambda: setattr(write, "author", check_author(args["author"]))),
        ("image", lambda: setattr(write, "image", check_image(args["image"], user))),
        ("cost", lambda: setattr(write, "cost", _check_cost(args["cost"]))),
        (
            "categories",
            lambda: setattr(
                write,
                "categories",
                terms.check_terms("categories", TAXONOMY_CATEGORY, args["categories"], user),
            ),
        ),
        (
            "tags",
            lambda: setattr(
                write, "tags", terms.check_terms("tags", "post_tag", args["tags"], user)
            ),
        ),
        ("venue", lambda: setattr(write, "venue", linked.check_venue(args["venue"]))),
        (
            "organizer",
            lambda: setattr(write, "organizers", linked.check_organizers(args["organizer"])),
        ),
        ("post_parent", lambda: setattr(write, "parent", _check_parent(args["post_parent"]))),
        (
            "translation_of",
            lambda: setattr(
                write,
                "translation_root",
                translation_root(Event, args["translation_of"], language, event),
            ),
        ),
    ]
    errors: dict[str, ParamMessage] = {}
    for name, check in checks:
        if name not in args:
            continue
        try:
            check()
        except InvalidParams as exc:
            errors.update(exc.errors)
    if errors:
        raise InvalidParams(errors)
    return write


def _check_cost(raw: t.Any) -> tuple[str, ...]:
    try:
        return normalise_cost_input(raw)
    except (TypeError, ValueError):
        raise invalid_param("cost") from None


def _check_parent(parent_id: int) -> Event:
    parent = Event.get_or_none(Event.id == parent_id) if parent_id < 2**31 else None
    if parent is None:
        raise invalid_param("post_parent", "unknown_event")
    return parent


def save_event(write: EventWrite, ctx: WriteContext, event: Event | None = None) -> Event:
    """Create (``event`` None) or partially update an event; returns the saved row."""
    args = write.args
    creating = event is None
    if event is None:
        event = Event(language=ctx.language, author=write.author or ctx.user)
        stamp_new(event, ctx, args)
    else:
        stamp_update(event, ctx, args)
        if write.author is not None:
            event.author = write.author
    old_status = event.status if not creating else None
    for field in (*TEXT_FIELDS, *FLAG_FIELDS):
        if field in args:
            setattr(event, field, args[field])
    if "website" in args:
        event.website = args["website"]
    if "password" in args:
        event.password = args["password"]
    _apply_status(event, args, ctx, creating)
    _apply_dates(event, args, ctx, creating)
    _apply_cost(event, write)
    if "image" in args:
        event.image = attach_image(write.image, ctx.user)
    _apply_family(event, write)
    if "venue" in args:
        venue = write.venue
        event.venue = linked.materialise(Venue, venue, ctx) if venue is not None else None
    if creating or "slug" in args or ("title" in args and not event.slug):
        wanted = args.get("slug") or event.title
        event.slug = unique_slug(Event, wanted, "event", exclude_id=event.id)
    event.save(force_insert=creating)
    _index_event(event, args, creating)
    touched = _apply_links(event, write, ctx)
    if creating or old_status != event.status or touched:
        affected = terms.event_term_ids(event.id) | touched
        terms.refresh_term_counts(affected)
    return event


def _apply_family(event: Event, write: EventWrite) -> None:
    """The parent event and the translation group, where the write sets them."""
    if "post_parent" in write.args:
        event.post_parent = write.parent
    if write.translation_root is not None:
        event.translation_of = write.translation_root


def _index_event(event: Event, args: dict[str, t.Any], creating: bool) -> None:
    """Keep the search words and the longest-duration bound in step with the row."""
    state.note_event_seconds(int((event.end_utc - event.start_utc).total_seconds()))
    if creating or any(field in args for field in TEXT_FIELDS):
        words = record_words(event.title, event.excerpt, event.description)
        replace_words(SearchWord, "e", event.id, words)


def _apply_status(event: Event, args: dict[str, t.Any], ctx: WriteContext, creating: bool) -> None:
    if creating or "status" in args:
        event.status = scale_status(ctx.user, args.get("status"), "publish")
    if event.status == "publish" and event.date_utc > _now_utc():
        event.status = "future"  # WordPress schedules posts dated in the future


def _now_utc() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def _apply_dates(event: Event, args: dict[str, t.Any], ctx: WriteContext, creating: bool) -> None:
    """Read dates in the event's zone; keep wall times when only the zone changes."""
    if "timezone" in args or creating:
        event.timezone = args.get("timezone") or ctx.site_timezone
    zone = resolve_timezone(event.timezone)
    if "start_date" in args:
        event.start_local = parse_datetime(args["start_date"], zone)
    if "end_date" in args:
        event.end_local = parse_datetime(args["end_date"], zone)
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
        for item in write.organizers:
            record = linked.materialise(Organizer, item, ctx)
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
    for taxonomy, wanted in ((TAXONOMY_CATEGORY, write.categories), ("post_tag", write.tags)):
        if wanted is not None:
            chosen = terms.materialise_terms(taxonomy, wanted, event.language)
            touched |= terms.set_event_terms(event, taxonomy, chosen)
    return touched


def trash_event(event: Event, ctx: WriteContext) -> Event:
    """Move to trash: remember the status, free the slug, recount the terms."""
    event.status_before_trash = event.status
    event.status = "trash"
    event.slug = free_slug(Event, f"{event.slug}__trashed", exclude_id=event.id)
    stamp_update(event, ctx, {})
    event.save()
    terms.refresh_term_counts(terms.event_term_ids(event.id))
    return event
