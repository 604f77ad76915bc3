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

from ..errors import InvalidParams, bad_param
from ..models import Organizer, PostModel, User, Venue
from ..queries.lists.linked import find_duplicates, linked_by_ids
from ..rules.markup import written_fields
from ..rules.permissions import can_read, may_act_for_others
from ..schemas import MissingParams, OrganizerCreateArgs, TooManyItems, VenueCreateArgs, validate
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


@dataclasses.dataclass(frozen=True)
class Named:
    """A record named by ID (``5``, ``"5"`` or ``{"id": 5}``); ``value`` is what was sent."""

    record_id: int
    value: t.Any


#: one item of a venue or organizer field, made without the database: an ID to look
#: up, data to create, or the refusal to raise when its turn comes (items are checked
#: in order, and the first failure is the one reported)
Prepared = Named | NewLinked | InvalidParams


def prepare_venue(value: t.Any, user: User | None) -> list[Prepared]:
    """The single venue of a venue field (none: ``0``, ``""`` or ``[]``), as
    :func:`check_venue` needs it."""
    items = [item for item in split_list(value) if item not in NOTHING]
    if len(items) > 1:
        return [bad_param("venue", "unknown_linked", value=value)]
    return [_prepare_one(Venue, "venue", item, user) for item in items]


def prepare_organizers(value: t.Any, user: User | None) -> list[Prepared]:
    """Organizers in order, from an ID, a CSV of IDs, an object or a list of either."""
    items = [value] if isinstance(value, dict) else split_list(value)
    return [
        _prepare_one(Organizer, "organizer", item, user) for item in items if item not in NOTHING
    ]


def _prepare_one(model: type[PostModel], param: str, item: t.Any, user: User | None) -> Prepared:
    if isinstance(item, dict) and "id" in item:
        item = item["id"]
    if isinstance(item, dict):
        if not may_act_for_others(user):
            item = {key: value for key, value in item.items() if key != "author"}
        schema = VenueCreateArgs() if model is Venue else OrganizerCreateArgs()
        try:
            return NewLinked(written_fields(validate(schema, item), user, MARKUP_FIELDS[model]))
        except (MissingParams, TooManyItems, ValidationError):
            return bad_param(param, "missing_name")
    record_id = to_int(item)
    if record_id is None:
        return bad_param(param, "unknown_linked", value=item)
    return Named(record_id, item)


def check_venue(
    value: t.Any, user: User | None, prepared: list[Prepared] | None = None
) -> Venue | NewLinked | None:
    """The single venue to link, or None to unlink (``0``, ``""`` or ``[]``)."""
    items = _resolve(Venue, "venue", prepared or prepare_venue(value, user), user)
    return items[0] if items else None


def check_organizers(
    value: t.Any, user: User | None, prepared: list[Prepared] | None = None
) -> list[Organizer | NewLinked]:
    """The organizers to link, in order (``prepared``: :func:`prepare_organizers`, made
    before the write lock)."""
    return _resolve(Organizer, "organizer", prepared or prepare_organizers(value, user), user)


def _resolve(
    model: type[M], param: str, prepared: list[Prepared], user: User | None
) -> list[M | NewLinked]:
    """Look the named records up (one statement) and check each item in order: a
    record the writer may not read is refused exactly like an unknown ID.

    :raises InvalidParams: the first item that fails.
    """
    found = linked_by_ids(model, (item.record_id for item in prepared if isinstance(item, Named)))
    resolved: list[M | NewLinked] = []
    for item in prepared:
        if isinstance(item, InvalidParams):
            raise item
        if isinstance(item, NewLinked):
            if "author" in item.args:
                check_author(item.args["author"])
            resolved.append(item)
            continue
        record = found.get(item.record_id)
        if record is None or record.status == "trash" or not can_read(user, record):
            raise bad_param(param, "unknown_linked", value=item.value)
        resolved.append(record)
    return resolved


def materialise(model: type[M], item: M | NewLinked, ctx: WriteContext) -> M:
    """The record for ``item`` given inside an event: existing, identical duplicate, or
    newly created (images and ``translation_of`` are only taken on the record's own
    routes)."""
    return materialise_all(model, [item], ctx)[0]


def materialise_all(model: type[M], items: t.Sequence[M | NewLinked], ctx: WriteContext) -> list[M]:
    """:func:`materialise` of each item, in order, with the identical records looked up
    in one statement; an item identical to one created before it in the same write
    reuses that one, as it would have if written on its own."""
    new = [
        {k: v for k, v in item.args.items() if k not in ("image", "translation_of")}
        for item in items
        if isinstance(item, NewLinked)
    ]
    name = NAME_FIELD[model]
    wanted = [(args[name], args.get("description")) for args in new]
    found = iter(zip(new, find_duplicates(model, wanted, ctx.user), strict=True))
    created: list[M] = []
    records: list[M] = []
    for item in items:
        if not isinstance(item, NewLinked):
            records.append(item)
            continue
        args, record = next(found)
        record = record or _same_as_created(created, args[name], args.get("description"))
        if record is None:
            author = check_author(args["author"]) if "author" in args else None
            record = create_linked(model, LinkedWrite(args, author), ctx)
            created.append(record)
        records.append(record)
    return records


def _same_as_created(created: list[M], name: str, description: str | None) -> M | None:
    return next(
        (
            record
            for record in created
            if record.title.lower() == name.lower() and description in (None, record.description)
        ),
        None,
    )
