"""The row locks a write takes on PostgreSQL and MariaDB before it reads what it changes.

Writers no longer queue behind one shared row for their whole transaction (the
generation row is locked by their last step only, ``repository.changes``), so two
writes of the same record must queue on that record: without its lock, the second
would check ``If-Match`` against the state the first is replacing, and one of two
concurrent edits would silently undo the other. A series' occurrences change with their
master, so a write of an occurrence locks the master first, as a write of the master
does: writes of one series queue, in one lock order. Terms are locked before their
counts are taken (``repository.terms``), and writers that choose a slug from the same
base queue on the record that holds the base (:func:`lock_slug_base`). SQLite needs none
of this: its write transactions begin IMMEDIATE, one at a time.
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ..db import backend_name
from ..models import Event, Organizer, PostModel, Term, Venue, WebhookSubscription

#: a model whose rows writes lock
Locked = type[PostModel] | type[Term] | type[WebhookSubscription]

#: the model behind each resource's single-record routes
MODELS: dict[str, Locked] = {
    "events": Event,
    "venues": Venue,
    "organizers": Organizer,
    "categories": Term,
    "tags": Term,
    "webhooks": WebhookSubscription,
}


def locks_rows(model: Locked) -> bool:
    """Whether the model's database needs row locks (everything but SQLite)."""
    return backend_name(model._meta.database) != "sqlite"


def lock_written_record(resource: str, values: t.Mapping[str, t.Any]) -> None:
    """Lock the record a single-record write names (by ``id`` or ``slug``), and its
    series' master first; a record that does not exist locks nothing (the write's own
    look-up answers 404)."""
    model = MODELS.get(resource)
    if model is None or not locks_rows(model):
        return
    if "id" in values:
        _lock_with_master(model, model.id == values["id"])
    elif "slug" in values and issubclass(model, PostModel):
        _lock_with_master(model, model.slug == values["slug"])


R = t.TypeVar("R", bound="PostModel | Term")


def relocked(record: R) -> R | None:
    """``record`` as it is once locked (its series' master first), None if it is gone:
    where a write starts from a record it read before (the importers match records
    first), a concurrent write may have changed it since."""
    model = t.cast(Locked, type(record))
    if not locks_rows(model):
        return record
    _lock_with_master(model, model.id == record.id)
    return t.cast("R | None", model.get_or_none(model.id == record.id))


def _lock_with_master(model: Locked, where: pw.Expression) -> None:
    if model is Event:
        master_id = Event.select(Event.series_master).where(where).scalar()
        if master_id is not None:
            _lock(Event, Event.id == master_id)
    _lock(model, where)


def lock_ids(model: Locked, ids: t.Collection[int]) -> None:
    """Lock these rows, in ID order (one order for every writer: no deadlock)."""
    if ids and locks_rows(model):
        _lock(model, model.id.in_(sorted(ids)), model.id)


def lock_slug_base(model: type[PostModel] | type[Term], base: str, *scope: pw.Expression) -> None:
    """Queue the writers that choose a slug from ``base`` (``base``, ``base-2``...) in
    ``model`` (within ``scope``): they lock the record whose slug is ``base``, then read
    the slugs taken, committed ones included. Only the first two writers of a new base
    can still collide: the unique index refuses the later insert, and its replay finds
    the base taken and queues here."""
    if locks_rows(model):
        where = model.slug == base
        for condition in scope:
            where &= condition
        _lock(model, where)


def _lock(model: Locked, where: pw.Expression, *order: pw.Field) -> None:
    list(model.select(model.id).where(where).order_by(*order).for_update())
