"""Request validators, usable as a library without the web layer or a database.

Every route's parameters are declared here once, as marshmallow argument sets named
after TEC's (``EventCreateArgs`` for ``Single_Event::CREATE_args``); the web layer
validates with them and the namespace index and ``/doc`` are generated from them.
They check shape only; whether a record exists is the web layer's business. Only
marshmallow and the standard library are imported here::

    from calendar_rest.schemas import EventCreateArgs, validate

    args = validate(EventCreateArgs(), {"title": "Jazz", "start_date": "tomorrow 8pm",
                                        "end_date": "tomorrow 11pm"})

- this module — ``validate`` (required parameters first, then every value), its errors
  ``MissingParams`` and ``TooManyItems``, and the public names of the modules below
- ``fields/`` — the fields that read parameters as WordPress does, by kind (numbers,
  text, dates, lists)
- ``messages`` — ``ParamMessage``: validation messages that stay translatable
- ``shared`` — what the argument sets share: their base, paging, translation link,
  event password
- ``events`` — the event routes' argument sets (create, edit, read, archive, delete)
- ``event_status`` — an event's status and attendance mode: their values, and the rule
  that an online event names where to join
- ``linked`` — the venue and organizer argument sets (also inline in an event write)
- ``terms`` — the category and tag argument sets, built by one factory
- ``changes`` — ``GET /changes``: the change feed's arguments
- ``webhooks`` — the webhook subscription routes' argument sets
- ``descriptions`` — the arguments of ``/`` and ``/doc``
- ``batch`` — ``POST /batch/v1``: the batch's requests, validation mode and ``atomic``
- ``representations/`` — the response bodies as schemas, for the OpenAPI document only
"""

from __future__ import annotations

import typing as t
import weakref

from marshmallow import Schema

from .events import (
    EventArchiveArgs,
    EventCreateArgs,
    EventDeleteArgs,
    EventReadArgs,
    EventSlugReadArgs,
    EventSlugWriteArgs,
    EventWriteArgs,
)
from .fields import WPField, split_list
from .linked import OrganizerCreateArgs, OrganizerWriteArgs, VenueCreateArgs, VenueWriteArgs
from .messages import ParamMessage
from .terms import (
    CategoryArchiveArgs,
    CategoryCreateArgs,
    CategoryWriteArgs,
    TagArchiveArgs,
    TagCreateArgs,
    TagWriteArgs,
    TermReadArgs,
)

__all__ = [
    "CategoryArchiveArgs",
    "CategoryCreateArgs",
    "CategoryWriteArgs",
    "EventArchiveArgs",
    "EventCreateArgs",
    "EventDeleteArgs",
    "EventReadArgs",
    "EventSlugReadArgs",
    "EventSlugWriteArgs",
    "EventWriteArgs",
    "TagArchiveArgs",
    "TagCreateArgs",
    "TagWriteArgs",
    "TermReadArgs",
    "OrganizerCreateArgs",
    "OrganizerWriteArgs",
    "VenueCreateArgs",
    "VenueWriteArgs",
    "MissingParams",
    "ParamMessage",
    "TooManyItems",
    "missing_required",
    "validate",
]


class TooManyItems(ValueError):
    """A list parameter holds more items than its field's ``max_items``."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__(f"{name} holds more than {limit} items")
        self.name = name
        self.limit = limit


class MissingParams(ValueError):
    """Required parameters are absent; ``names`` lists them in declaration order."""

    def __init__(self, names: list[str]) -> None:
        super().__init__("Missing parameter(s): " + ", ".join(names))
        self.names = names


def missing_required(schema: Schema, params: t.Mapping[str, t.Any]) -> list[str]:
    """Names of required fields that are absent or null, in declaration order."""
    return [
        field.data_key or name
        for name, field in schema.load_fields.items()
        if field.required and params.get(field.data_key or name) is None
    ]


def validate(schema: Schema, params: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """WordPress's two validation steps: required parameters first, then every value.

    Null values count as absent, as ``isset()`` does in WordPress, except for fields
    whose null has a meaning of its own (``keeps_null``: ``recurrence: null``).

    :raises MissingParams: when a required parameter is absent.
    :raises TooManyItems: when a list holds more items than its field allows (before
        any value is read).
    :raises marshmallow.ValidationError: with ``{param: [ParamMessage]}`` messages.
    """
    present = {
        key: value
        for key, value in params.items()
        if value is not None or getattr(schema.fields.get(key), "keeps_null", False)
    }
    missing = missing_required(schema, present)
    if missing:
        raise MissingParams(missing)
    for name, limit in _item_bounds(schema):
        if name in present and len(split_list(present[name])) > limit:
            raise TooManyItems(name, limit)
    return t.cast(dict[str, t.Any], schema.load(present))


def _item_bounds(schema: Schema) -> tuple[tuple[str, int], ...]:
    """The parameters of ``schema`` whose items are bounded, with their bound (found
    once per schema object: argument sets are built once and validate every request)."""
    bounds = _ITEM_BOUNDS.get(schema)
    if bounds is None:
        bounds = tuple(
            (field.data_key or name, field.max_items)
            for name, field in schema.load_fields.items()
            if isinstance(field, WPField) and field.max_items is not None
        )
        _ITEM_BOUNDS[schema] = bounds
    return bounds


_ITEM_BOUNDS: weakref.WeakKeyDictionary[Schema, tuple[tuple[str, int], ...]] = (
    weakref.WeakKeyDictionary()
)
