"""The ordered links from an event to the records it names (organizers, terms): one
row per pair, keyed by the pair and indexed from the other side too."""

from __future__ import annotations

import typing as t

import peewee as pw

from .base import BaseModel
from .posts import Event, Organizer


def keyed_by_pair(target: str) -> t.Any:
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

    Meta = keyed_by_pair("organizer")
