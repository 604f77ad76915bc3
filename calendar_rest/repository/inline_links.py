"""Venues and organizers named inside an event write: by ID, as ``{"id": N}``, or as
new data to create (or to reuse when an identical record exists).

Checking (``check_*``) runs in the validation phase and never writes; the records
given as data are created by :func:`materialise` while the event is saved. The writer
may only link records it may read (a hidden one is refused exactly like an unknown
ID), only reuses records it may read, and creates records in its own name unless it
may act for others (an inline ``author`` is otherwise ignored).
"""

from __future__ import annotations

import dataclasses
import typing as t

from marshmallow import ValidationError

from ..errors import bad_param
from ..markup import written_fields
from ..models import Organizer, PostModel, User, Venue
from ..permissions import can_read, may_act_for_others
from ..queries.linked import find_duplicate, linked_by_id
from ..schemas import MissingParams, OrganizerCreateArgs, VenueCreateArgs, validate
from ..schemas.fields import split_list, to_int
from .linked import MARKUP_FIELDS, NAME_FIELD, LinkedWrite, create_linked
from .posts import WriteContext, check_author

#: a venue or organizer model (``Venue`` or ``Organizer``)
M = t.TypeVar("M", bound=PostModel)
#: what stands for "no record" in a venue or organizer field
NOTHING = ("", 0, "0", None)


@dataclasses.dataclass
class NewLinked:
    """Validated data for a venue or organizer to create (or reuse if identical)."""

    args: dict[str, t.Any]


def _check_one(model: type[M], param: str, item: t.Any, user: User | None) -> M | NewLinked:
    if isinstance(item, dict) and "id" in item:
        item = item["id"]
    if isinstance(item, dict):
        if not may_act_for_others(user):
            item = {key: value for key, value in item.items() if key != "author"}
        schema = VenueCreateArgs() if model is Venue else OrganizerCreateArgs()
        try:
            args = written_fields(validate(schema, item), user, MARKUP_FIELDS[model])
        except (MissingParams, ValidationError):
            raise bad_param(param, "missing_name") from None
        if "author" in args:
            check_author(args["author"])
        return NewLinked(args)
    record_id = to_int(item)
    record = linked_by_id(model, record_id) if record_id is not None else None
    if record is None or record.status == "trash" or not can_read(user, record):
        raise bad_param(param, "unknown_linked", value=item)
    return record


def check_venue(value: t.Any, user: User | None) -> Venue | NewLinked | None:
    """The single venue to link, or None to unlink (``0``, ``""`` or ``[]``)."""
    items = [item for item in split_list(value) if item not in NOTHING]
    if not items:
        return None
    if len(items) > 1:
        raise bad_param("venue", "unknown_linked", value=value)
    return _check_one(Venue, "venue", items[0], user)


def check_organizers(value: t.Any, user: User | None) -> list[Organizer | NewLinked]:
    """Organizers in order, from an ID, a CSV of IDs, an object or a list of either."""
    items = [value] if isinstance(value, dict) else split_list(value)
    return [_check_one(Organizer, "organizer", item, user) for item in items if item not in NOTHING]


def materialise(model: type[M], item: M | NewLinked, ctx: WriteContext) -> M:
    """The record for ``item`` given inside an event: existing, identical duplicate, or
    newly created (images and ``translation_of`` are only taken on the record's own
    routes)."""
    if not isinstance(item, NewLinked):
        return item
    args = {k: v for k, v in item.args.items() if k not in ("image", "translation_of")}
    duplicate = find_duplicate(model, args[NAME_FIELD[model]], args.get("description"), ctx.user)
    if duplicate is not None:
        return duplicate
    author = check_author(args["author"]) if "author" in args else None
    return create_linked(model, LinkedWrite(args, author), ctx)
