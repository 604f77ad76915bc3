"""Venues and organizers written on their own routes (and created inline by event
writes, see ``inline_links``).

Checking (:func:`check_linked_write`) runs in the validation phase, before
permissions, and never writes; creating, updating and trashing run in the handler.
Every write keeps the record's search words (kind ``v``/``o``) in step with its text.
"""

from __future__ import annotations

import typing as t

from ..errors import ParamErrors
from ..models import Event, EventOrganizer, Organizer, PostModel, User, Venue
from ..queries.lists.linked import find_duplicate
from ..rules.geo import coordinate_errors
from ..rules.markup import ORGANIZER_FIELDS as ORGANIZER_MARKUP
from ..rules.markup import VENUE_FIELDS as VENUE_MARKUP
from ..rules.markup import written_fields
from . import changes, posts
from .posts import WriteContext
from .translations import attach
from .word_index import index_record, touches_words

NAME_FIELD = {Venue: "venue", Organizer: "organizer"}
MARKUP_FIELDS = {Venue: VENUE_MARKUP, Organizer: ORGANIZER_MARKUP}
VENUE_FIELDS = (
    "address",
    "city",
    "country",
    "province",
    "state",
    "zip",
    "phone",
    "stateprovince",
    "website",
    "show_map",
    "show_map_link",
    "geo_lat",
    "geo_lng",
)
ORGANIZER_FIELDS = ("phone", "website", "email")
#: what changes the venue's derived ``stateprovince`` when it is not sent
ADDRESS_FIELDS = ("state", "province", "country")
#: a venue or organizer model (``Venue`` or ``Organizer``)
M = t.TypeVar("M", bound=PostModel)


#: a validated venue or organizer write
LinkedWrite = posts.PostWrite


def check_linked_write(
    model: type[PostModel],
    args: dict[str, t.Any],
    user: User | None,
    language: str = "en",
    record: PostModel | None = None,
) -> LinkedWrite:
    """Resolve the author, image and translated record, check coordinates; never
    writes. ``language`` is the written record's, ``record`` the one updated (None on
    creates).

    :raises InvalidParams: every failing parameter, aggregated.
    """
    write = LinkedWrite(written_fields(args, user, MARKUP_FIELDS[model]))
    args = write.args
    errors = ParamErrors()
    write.check_owner_and_image(user, errors)
    write.check_translation(model, language, record, user, errors)
    if model is Venue:
        errors.update(coordinate_errors(args, "geo"))
    errors.raise_if_any()
    return write


def create_linked(model: type[M], write: LinkedWrite, ctx: WriteContext) -> M:
    """Insert a new venue/organizer in the request's language, with a unique slug."""
    args = write.args
    name = args[NAME_FIELD[model]]
    record = model(title=name, description=args.get("description", ""), language=ctx.language)
    record.author = write.author or ctx.user
    # ``slug`` comes from imports only (the routes do not accept one): kept, or ``-2``
    record.slug = posts.unique_slug(model, args.get("slug") or name, NAME_FIELD[model])
    posts.stamp_new(record, ctx, args)
    record.status = posts.written_status(record, args.get("status"), ctx)
    _apply_fields(record, write, ctx, creating=True)
    record.save(force_insert=True)
    index_record(record)
    changes.record_post_change(record, None)
    return record


def reusable_duplicate(model: type[M], write: LinkedWrite, user: User | None) -> M | None:
    """The existing record ``POST /venues|organizers`` reuses (TEC's duplicate rule, see
    ``queries.linked.find_duplicate``, among what ``user`` may read): none for a
    translation, which is always a new record even if named as the original."""
    if write.translation is not None:
        return None
    args = write.args
    return find_duplicate(model, args[NAME_FIELD[model]], args.get("description"), user)


def update_linked(record: PostModel, write: LinkedWrite, ctx: WriteContext) -> PostModel:
    """Partial update: only the sent fields change; no duplicate check (TEC)."""
    args = write.args
    before = changes.seen(record)
    name_field = NAME_FIELD[type(record)]
    if name_field in args:
        record.title = args[name_field]
    if args.get("slug"):  # imports only
        record.slug = posts.unique_slug(type(record), args["slug"], name_field, record.id)
    if "description" in args:
        record.description = args["description"]
    if write.author is not None:
        record.author = write.author
    posts.stamp_update(record, ctx, args)
    if "status" in args:
        record.status = posts.written_status(record, args["status"], ctx)
    else:  # a new publication date may schedule or publish it
        record.status = posts.scheduled(record.status, record, ctx)
    _apply_fields(record, write, ctx, creating=False)
    record.save()
    sent = set(args) | ({"title"} if name_field in args else set())
    if touches_words(type(record), sent):
        index_record(record)
    changes.record_post_change(record, before)
    return record


def merge_into_duplicate(record: PostModel, write: LinkedWrite, ctx: WriteContext) -> PostModel:
    """TEC's duplicate create: the sent fields are written onto the existing record, but
    not its name, description, status or author."""
    keep = ("title", "description", "status", "author", "date", "date_utc")
    args = {k: v for k, v in write.args.items() if k not in keep and k != NAME_FIELD[type(record)]}
    return update_linked(record, LinkedWrite(args, image=write.image), ctx)


def _apply_fields(
    record: PostModel, write: LinkedWrite, ctx: WriteContext, *, creating: bool
) -> None:
    args = write.args
    for field in VENUE_FIELDS if isinstance(record, Venue) else ORGANIZER_FIELDS:
        if field in args:
            setattr(record, field, args[field])
    if "image" in args:
        record.image = posts.attach_image(write.image, ctx)
    if write.translation is not None:
        attach(type(record), record, write.translation)
    if write.lineage is not None:
        record.global_id_lineage = write.lineage
    if (
        isinstance(record, Venue)
        and not args.get("stateprovince")
        and (creating or "stateprovince" in args or any(f in args for f in ADDRESS_FIELDS))
    ):
        record.stateprovince = derive_stateprovince(record)


def trash_linked(record: PostModel, ctx: WriteContext) -> PostModel:
    """Move to trash (status kept for ownership checks, slug freed) and unlink it from
    every event, as TEC removes the events' ``_EventVenueID``/``_EventOrganizerID``."""
    model = type(record)
    before = changes.seen(record)
    record.status_before_trash = record.status
    record.status = "trash"
    record.slug = posts.free_slug(model, f"{record.slug}__trashed", exclude_id=record.id)
    posts.stamp_update(record, ctx, {})
    record.save()
    if model is Venue:
        Event.update(venue=None).where(Event.venue == record.id).execute()
    else:
        EventOrganizer.delete().where(EventOrganizer.organizer == record.id).execute()
    changes.record_post_change(record, before)
    return record


def derive_stateprovince(venue: Venue) -> str:
    """TEC: the state for US (or unknown country) addresses, else the province."""
    if venue.state and venue.country in ("", "US", "United States"):
        return venue.state
    return venue.province or ""
