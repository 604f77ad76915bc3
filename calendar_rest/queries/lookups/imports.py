"""The look-ups imports match records with (``calendar.md`` §5, §6).

An ``.ics`` import matches events by UID and venues, organizers and categories by
name or e-mail; a TEC import matches records by the source ``global_id`` recorded in
their ``global_id_lineage``. Trashed records never match: the import creates anew, as
an API client would.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import peewee as pw

from ...models import (
    Attachment,
    Event,
    EventOrganizer,
    EventTerm,
    Organizer,
    PostModel,
    Term,
    Venue,
)
from ...wordpress.taxonomies import Taxonomy

M = t.TypeVar("M", bound=PostModel)


def event_by_uid(uid: str) -> Event | None:
    """The stand-alone event or series master with this UID (not an occurrence)."""
    found: Event | None = (
        Event.select()
        .where((Event.uid == uid) & (Event.series_master.is_null()) & (Event.status != "trash"))
        .order_by(Event.id)
        .first()
    )
    return found


def occurrence_at(master_id: int, original: dt.datetime) -> Event | None:
    """The row of series ``master_id`` whose original start is ``original`` (local,
    in the series zone): a live one first, else a trashed one (a deleted date)."""
    rows = (
        Event.select()
        .where(
            ((Event.id == master_id) | (Event.series_master == master_id))
            & (Event.original_start == original)
        )
        .order_by(Event.id)
    )
    found = sorted(rows, key=lambda row: (row.status == "trash", row.id))
    return found[0] if found else None


def venue_named(name: str) -> Venue | None:
    """A non-trashed venue whose name equals ``name`` in any case."""
    found: Venue | None = (
        Venue.select()
        .where((pw.fn.LOWER(Venue.title) == name.lower()) & (Venue.status != "trash"))
        .order_by(Venue.id)
        .first()
    )
    return found


def organizer_matching(email: str, name: str) -> Organizer | None:
    """A non-trashed organizer with this e-mail (any case), else with this name."""
    alive = Organizer.status != "trash"
    if email:
        by_email: Organizer | None = (
            Organizer.select()
            .where((pw.fn.LOWER(Organizer.email) == email.lower()) & alive)
            .order_by(Organizer.id)
            .first()
        )
        if by_email is not None:
            return by_email
    if not name:
        return None
    by_name: Organizer | None = (
        Organizer.select()
        .where((pw.fn.LOWER(Organizer.title) == name.lower()) & alive)
        .order_by(Organizer.id)
        .first()
    )
    return by_name


def term_named(taxonomy: Taxonomy, name: str) -> Term | None:
    """A term of ``taxonomy`` whose name equals ``name`` in any case."""
    found: Term | None = (
        Term.select()
        .where((Term.taxonomy == taxonomy.name) & (pw.fn.LOWER(Term.name) == name.lower()))
        .order_by(Term.id)
        .first()
    )
    return found


def term_by_slug(taxonomy: Taxonomy, slug: str) -> Term | None:
    found: Term | None = (
        Term.select()
        .where((Term.taxonomy == taxonomy.name) & (Term.slug == slug))
        .order_by(Term.id)
        .first()
    )
    return found


def by_source_id(model: type[M], source_id: str) -> M | None:
    """The copy of a source record: ``source_id`` among the space-separated ids of its
    ``global_id_lineage`` (never its own ``global_id``, which is not stored)."""
    query = model.select().where(
        model.global_id_lineage.contains(source_id) & (model.status != "trash")
    )
    for record in query.order_by(model.id):
        if source_id in record.global_id_lineage.split():
            return record
    return None


def organizer_ids(event_id: int) -> list[int]:
    """The event's organizer ids in their order."""
    query = (
        EventOrganizer.select(EventOrganizer.organizer)
        .where(EventOrganizer.event == event_id)
        .order_by(EventOrganizer.position)
    )
    return [row.organizer_id for row in query]


def term_ids_in_order(event_id: int, taxonomy: Taxonomy) -> list[int]:
    """The event's terms of one taxonomy in their order."""
    query = (
        EventTerm.select(EventTerm.term)
        .join(Term, on=(EventTerm.term == Term.id))
        .where((EventTerm.event == event_id) & (Term.taxonomy == taxonomy.name))
        .order_by(EventTerm.position)
    )
    return [row.term_id for row in query]


def image_url(record: PostModel) -> str:
    """The URL of the record's featured image, "" without one."""
    if record.image_id is None:
        return ""
    attachment = Attachment.get_or_none(Attachment.id == record.image_id)
    return str(attachment.url) if attachment is not None else ""
