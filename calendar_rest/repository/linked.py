"""Venues and organizers given inside an event write: IDs, ``{"id": N}`` or new data.

Checking (``check_*``) runs in the validation phase, before permissions, and never
writes; creating (``materialise_*``) runs in the handler.
"""

from __future__ import annotations

import dataclasses
import typing as t

import peewee as pw
from marshmallow import ValidationError

from ..errors import InvalidParams
from ..models import Organizer, PostModel, Venue
from ..permissions import scale_status
from ..schemas import MissingParams, OrganizerCreateArgs, VenueCreateArgs, validate
from ..schemas.fields import split_list, to_int
from ..schemas.messages import ParamMessage
from .posts import WriteContext, check_author, stamp_new, unique_slug

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


@dataclasses.dataclass
class NewLinked:
    """Validated data for a venue or organizer to create (or reuse if identical)."""

    args: dict[str, t.Any]


Linked = PostModel | NewLinked


def _invalid(param: str, value: t.Any) -> InvalidParams:
    return InvalidParams({param: ParamMessage("unknown_linked", param=param, value=value)})


def _check_one(model: type[PostModel], param: str, item: t.Any) -> Linked:
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


def check_venue(value: t.Any) -> Linked | None:
    """The single venue to link, or None to unlink (``0``, ``""`` or ``[]``)."""
    items = [item for item in split_list(value) if item not in ("", 0, "0", None)]
    if not items:
        return None
    if len(items) > 1:
        raise _invalid("venue", value)
    return _check_one(Venue, "venue", items[0])


def check_organizers(value: t.Any) -> list[Linked]:
    """Organizers in order, from an ID, a CSV of IDs, an object or a list of either."""
    items = [value] if isinstance(value, dict) else split_list(value)
    return [
        _check_one(Organizer, "organizer", item) for item in items if item not in ("", 0, "0", None)
    ]


def materialise(model: type[PostModel], item: Linked, ctx: WriteContext) -> PostModel:
    """The record for ``item``: existing, identical duplicate, or newly created."""
    if not isinstance(item, NewLinked):
        return item
    args = item.args
    name = args[NAME_FIELD[model]]
    duplicate = find_duplicate(model, name, args.get("description"))
    if duplicate is not None:
        return duplicate
    record = model(title=name, description=args.get("description", ""), language=ctx.language)
    fields = VENUE_FIELDS if model is Venue else ORGANIZER_FIELDS
    for field in fields:
        if field in args:
            setattr(record, field, args[field])
    if model is Venue and not args.get("stateprovince"):
        record.stateprovince = derive_stateprovince(record)
    record.author = check_author(args["author"]) if "author" in args else ctx.user
    record.status = scale_status(ctx.user, args.get("status"), "publish")
    record.slug = unique_slug(model, name, NAME_FIELD[model])
    stamp_new(record, ctx, args)
    record.save(force_insert=True)
    return record


def find_duplicate(model: type[PostModel], name: str, description: str | None) -> PostModel | None:
    """TEC's duplicate rule: same title (any case) and, if given, same description."""
    query = model.select().where(
        (pw.fn.LOWER(model.title) == name.lower()) & (model.status != "trash")
    )
    if description is not None:
        query = query.where(model.description == description)
    return query.order_by(model.id).first()


def derive_stateprovince(venue: Venue) -> str:
    """TEC: the state for US (or unknown country) addresses, else the province."""
    if venue.state and venue.country in ("", "US", "United States"):
        return venue.state
    return venue.province or ""
