"""Venues and organizers: written on their own routes, or given inside an event write
(IDs, ``{"id": N}`` or new data).

Checking (``check_*``) runs in the validation phase, before permissions, and never
writes; creating, updating and trashing run in the handler. Every write keeps the
record's search words (kind ``v``/``o``) in step with its text.
"""

from __future__ import annotations

import dataclasses
import typing as t

import peewee as pw
from marshmallow import ValidationError

from ..errors import InvalidParams
from ..models import (
    Attachment,
    Event,
    EventOrganizer,
    Organizer,
    PostModel,
    SearchWord,
    User,
    Venue,
)
from ..permissions import scale_status
from ..schemas import MissingParams, OrganizerCreateArgs, VenueCreateArgs, validate
from ..schemas.fields import split_list, to_int
from ..schemas.messages import ParamMessage
from ..search import record_words, replace_words
from .posts import (
    WriteContext,
    attach_image,
    check_author,
    check_image,
    free_slug,
    stamp_new,
    stamp_update,
    unique_slug,
    utc_now,
)
from .translations import translation_root

NAME_FIELD = {Venue: "venue", Organizer: "organizer"}
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
#: search word kinds, and the columns searched (TEC's duplicate-finder fields)
SEARCH_KIND = {Venue: "v", Organizer: "o"}
SEARCHED_FIELDS = {
    Venue: (
        "title",
        "description",
        "excerpt",
        "address",
        "city",
        "province",
        "state",
        "stateprovince",
        "zip",
        "phone",
    ),
    Organizer: ("title", "description", "excerpt", "phone", "email", "website"),
}
#: what changes the venue's derived ``stateprovince`` when it is not sent
ADDRESS_FIELDS = ("state", "province", "country")


@dataclasses.dataclass
class NewLinked:
    """Validated data for a venue or organizer to create (or reuse if identical)."""

    args: dict[str, t.Any]


#: a venue or organizer model (``Venue`` or ``Organizer``)
M = t.TypeVar("M", bound=PostModel)


def _invalid(param: str, value: t.Any) -> InvalidParams:
    return InvalidParams({param: ParamMessage("unknown_linked", param=param, value=value)})


def _check_one(model: type[M], param: str, item: t.Any) -> M | NewLinked:
    if isinstance(item, dict) and "id" in item:
        item = item["id"]
    if isinstance(item, dict):
        schema = VenueCreateArgs() if model is Venue else OrganizerCreateArgs()
        try:
            args = validate(schema, item)
        except (MissingParams, ValidationError):
            raise InvalidParams({param: ParamMessage("missing_name", param=param)}) from None
        if "author" in args:
            check_author(args["author"])
        return NewLinked(args)
    record_id = to_int(item)
    record = (
        model.get_or_none((model.id == record_id) & (model.status != "trash"))
        if record_id and 0 < record_id < 2**31
        else None
    )
    if record is None:
        raise _invalid(param, item)
    return record


def check_venue(value: t.Any) -> Venue | NewLinked | None:
    """The single venue to link, or None to unlink (``0``, ``""`` or ``[]``)."""
    items = [item for item in split_list(value) if item not in ("", 0, "0", None)]
    if not items:
        return None
    if len(items) > 1:
        raise _invalid("venue", value)
    return _check_one(Venue, "venue", items[0])


def check_organizers(value: t.Any) -> list[Organizer | NewLinked]:
    """Organizers in order, from an ID, a CSV of IDs, an object or a list of either."""
    items = [value] if isinstance(value, dict) else split_list(value)
    return [
        _check_one(Organizer, "organizer", item) for item in items if item not in ("", 0, "0", None)
    ]


def materialise(model: type[M], item: M | NewLinked, ctx: WriteContext) -> M:
    """The record for ``item`` given inside an event: existing, identical duplicate, or
    newly created (images and ``translation_of`` are only taken on the record's own
    routes)."""
    if not isinstance(item, NewLinked):
        return item
    args = {k: v for k, v in item.args.items() if k not in ("image", "translation_of")}
    duplicate = find_duplicate(model, args[NAME_FIELD[model]], args.get("description"))
    if duplicate is not None:
        return duplicate
    author = check_author(args["author"]) if "author" in args else None
    return create_linked(model, LinkedWrite(args, author), ctx)


@dataclasses.dataclass
class LinkedWrite:
    """A validated venue/organizer write: the args and their resolved references."""

    args: dict[str, t.Any]
    author: User | None = None
    image: Attachment | str | None = None
    #: the translation group's root to store in ``translation_of``
    translation_root: int | None = None


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
    write = LinkedWrite(args)
    errors: dict[str, ParamMessage] = {}
    checks: tuple[tuple[str, t.Callable[[], None]], ...] = (
        ("author", lambda: setattr(write, "author", check_author(args["author"]))),
        ("image", lambda: setattr(write, "image", check_image(args["image"], user))),
        (
            "translation_of",
            lambda: setattr(
                write,
                "translation_root",
                translation_root(model, args["translation_of"], language, record),
            ),
        ),
    )
    for name, check in checks:
        if name in args:
            try:
                check()
            except InvalidParams as exc:
                errors.update(exc.errors)
    if model is Venue:
        errors.update(_coordinate_errors(args))
    if errors:
        raise InvalidParams(errors)
    return write


def _coordinate_errors(args: dict[str, t.Any]) -> dict[str, ParamMessage]:
    """Coordinates come in pairs, within the globe's ranges."""
    if ("geo_lat" in args) != ("geo_lng" in args):
        missing, other = ("geo_lng", "geo_lat") if "geo_lat" in args else ("geo_lat", "geo_lng")
        return {missing: ParamMessage("geoloc_pair", param=missing, other=other)}
    errors = {}
    if "geo_lat" in args and not -90 <= args["geo_lat"] <= 90:
        errors["geo_lat"] = ParamMessage("bad_latitude", param="geo_lat")
    if "geo_lng" in args and not -180 <= args["geo_lng"] <= 180:
        errors["geo_lng"] = ParamMessage("bad_longitude", param="geo_lng")
    return errors


def create_linked(model: type[M], write: LinkedWrite, ctx: WriteContext) -> M:
    """Insert a new venue/organizer in the request's language, with a unique slug."""
    args = write.args
    name = args[NAME_FIELD[model]]
    record = model(title=name, description=args.get("description", ""), language=ctx.language)
    record.author = write.author or ctx.user
    record.slug = unique_slug(model, name, NAME_FIELD[model])
    stamp_new(record, ctx, args)
    _apply_status(record, scale_status(ctx.user, args.get("status"), "publish"))
    _apply_fields(record, write, ctx, creating=True)
    record.save(force_insert=True)
    index_linked(record)
    return record


def update_linked(record: PostModel, write: LinkedWrite, ctx: WriteContext) -> PostModel:
    """Partial update: only the sent fields change; no duplicate check (TEC)."""
    args = write.args
    name_field = NAME_FIELD[type(record)]
    if name_field in args:
        record.title = args[name_field]
    if "description" in args:
        record.description = args["description"]
    if write.author is not None:
        record.author = write.author
    stamp_update(record, ctx, args)
    if "status" in args:
        _apply_status(record, scale_status(ctx.user, args["status"], "publish"))
    _apply_fields(record, write, ctx, creating=False)
    record.save()
    if _touches_text(type(record), args):
        index_linked(record)
    return record


def merge_into_duplicate(record: PostModel, write: LinkedWrite, ctx: WriteContext) -> PostModel:
    """TEC's duplicate create: the sent fields are written onto the existing record, but
    not its name, description, status or author."""
    keep = ("title", "description", "status", "author", "date", "date_utc")
    args = {k: v for k, v in write.args.items() if k not in keep and k != NAME_FIELD[type(record)]}
    return update_linked(record, LinkedWrite(args, image=write.image), ctx)


def _apply_status(record: PostModel, status: str) -> None:
    record.status = status
    if status == "publish" and record.date_utc > utc_now():
        record.status = "future"  # WordPress schedules posts dated in the future


def _apply_fields(
    record: PostModel, write: LinkedWrite, ctx: WriteContext, *, creating: bool
) -> None:
    args = write.args
    for field in VENUE_FIELDS if isinstance(record, Venue) else ORGANIZER_FIELDS:
        if field in args:
            setattr(record, field, args[field])
    if "image" in args:
        record.image = attach_image(write.image, ctx.user)
    if write.translation_root is not None:
        record.translation_of = write.translation_root
    if (
        isinstance(record, Venue)
        and not args.get("stateprovince")
        and (creating or "stateprovince" in args or any(f in args for f in ADDRESS_FIELDS))
    ):
        record.stateprovince = derive_stateprovince(record)


def _touches_text(model: type[PostModel], args: dict[str, t.Any]) -> bool:
    fields = {NAME_FIELD[model] if f == "title" else f for f in SEARCHED_FIELDS[model]}
    return any(field in args for field in fields)


def index_linked(record: PostModel) -> None:
    """Store the record's searchable words (index-served search, see ``search.py``)."""
    model = type(record)
    texts = [getattr(record, field) or "" for field in SEARCHED_FIELDS[model]]
    replace_words(SearchWord, SEARCH_KIND[model], record.id, record_words(*texts))


def trash_linked(record: PostModel, ctx: WriteContext) -> PostModel:
    """Move to trash (status kept for ownership checks, slug freed) and unlink it from
    every event, as TEC removes the events' ``_EventVenueID``/``_EventOrganizerID``."""
    model = type(record)
    record.status_before_trash = record.status
    record.status = "trash"
    record.slug = free_slug(model, f"{record.slug}__trashed", exclude_id=record.id)
    stamp_update(record, ctx, {})
    record.save()
    if model is Venue:
        Event.update(venue=None).where(Event.venue == record.id).execute()
    else:
        EventOrganizer.delete().where(EventOrganizer.organizer == record.id).execute()
    return record


def find_duplicate(model: type[M], name: str, description: str | None) -> M | None:
    """TEC's duplicate rule: same title (any case) and, if given, same description."""
    query = model.select().where(
        (pw.fn.LOWER(model.title) == name.lower()) & (model.status != "trash")
    )
    if description is not None:
        query = query.where(model.description == description)
    found: M | None = query.order_by(model.id).first()
    return found


def derive_stateprovince(venue: Venue) -> str:
    """TEC: the state for US (or unknown country) addresses, else the province."""
    if venue.state and venue.country in ("", "US", "United States"):
        return venue.state
    return venue.province or ""
