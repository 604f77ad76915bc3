"""Batched loading of what a page of events links to: one query per kind, never per event.

The queries are prepared (``prepared.py``): their SQL is built once per backend and
number of IDs, because building it costs more than running it. What they load is only
read, so it comes as read-only rows (``rows.py``).
"""

from __future__ import annotations

import typing as t
from collections import defaultdict

import peewee as pw

from ...models import (
    Attachment,
    Event,
    EventOrganizer,
    EventTerm,
    Organizer,
    Term,
    User,
    Venue,
    model_of,
)
from ...rules.permissions import can_read
from ..loaded import Related
from ..sql.linked_json import Linked
from ..sql.rows import fetch_rows
from .series import series_lines
from .translations import Total, load_translations


def _by_ids(model: type[t.Any], ids: list[int]) -> list[t.Any]:
    return [
        record
        for record, _ in fetch_rows(
            model,
            ("by_ids", model.__name__, len(ids)),
            lambda: model.select().where(model.id.in_(ids)),
            ids,
        )
    ]


L = t.TypeVar("L", Organizer, Term)


def _linked_by_event(
    model: type[L], target: pw.ForeignKeyField, order: pw.Field, event_ids: list[int]
) -> dict[int, list[L]]:
    """The records of ``model`` linked to each event through the link table whose
    ``target`` points at them, in ``order`` (then by ID)."""
    link = target.model
    grouped: dict[int, list[L]] = defaultdict(list)
    for record, (event_id,) in fetch_rows(
        model,
        ("linked_by_event", model.__name__, len(event_ids)),
        lambda: (
            model.select(model, link.event)
            .join(link, on=(target == model.id))
            .where(link.event.in_(event_ids))
            .order_by(link.event, order, model.id)
        ),
        event_ids,
    ):
        grouped[event_id].append(record)
    return dict(grouped)


def load_related(
    events: t.Sequence[Event],
    user: User | None,
    language: str | None = None,
    total: Total | None = None,
    venues: t.Sequence[Venue] | None = None,
    linked: t.Mapping[int, Linked] | None = None,
) -> Related:
    """Venues, organizers, terms, images and every translation group of ``events`` in
    at most five queries, and at most two more when venues or organizers are shown in
    their ``language`` translation (see ``_in_language``). Only the venues and
    organizers ``user`` may read are embedded. With ``total``, no translation group is
    read while none of the page's tables holds a translation (``load_translations``).
    ``venues``, when given, are the events' venues, already read with them, and
    ``linked`` their organizers and terms (``linked_json.py``)."""
    related = Related()
    if not events:
        return related
    event_ids = [event.id for event in events]
    if venues is None:
        venue_ids = sorted({event.venue_id for event in events if event.venue_id})
        venues = _by_ids(Venue, venue_ids) if venue_ids else []
    related.venues = {venue.id: venue for venue in venues if can_read(user, venue)}
    # organizers in the order the event lists them, terms by name (WordPress)
    if linked is None:
        all_organizers = _linked_by_event(
            Organizer, EventOrganizer.organizer, EventOrganizer.position, event_ids
        )
        terms = _linked_by_event(Term, EventTerm.term, Term.name, event_ids)
    else:
        all_organizers = {i: group.organizers for i, group in linked.items() if group.organizers}
        terms = {i: group.terms for i, group in linked.items() if group.terms}
    organizers = {
        event_id: [organizer for organizer in group if can_read(user, organizer)]
        for event_id, group in all_organizers.items()
    }
    related.organizers, related.terms = organizers, terms
    related.translations = load_translations(
        events,
        related.venues.values(),
        (organizer for group in organizers.values() for organizer in group),
        (term for group in terms.values() for term in group),
        user=user,
        total=total,
    )
    related.series = series_lines(events)
    if language is not None:
        _in_language(related, language)
    image_ids = {event.image_id for event in events if event.image_id}
    image_ids |= {v.image_id for v in related.venues.values() if v.image_id}
    image_ids |= {o.image_id for group in related.organizers.values() for o in group if o.image_id}
    if image_ids:
        related.images = {a.id: a for a in _by_ids(Attachment, sorted(image_ids))}
    return related


def _in_language(related: Related, language: str) -> None:
    """WPML's embedding rule: an event shows the published ``language`` translation of
    its venue and organizers when one exists, else the linked record itself."""
    if not related.translations.groups:  # nothing on the page is translated
        return
    wanted: dict[type[t.Any], set[int]] = defaultdict(set)
    linked = [*related.venues.values(), *(o for g in related.organizers.values() for o in g)]
    for record in linked:
        target = related.translations.of(record).get(language)
        if target is not None and target != record.id:
            wanted[model_of(record)].add(target)
    if not wanted:
        return
    found = {
        (model, record.id): record
        for model, ids in wanted.items()
        for record in _by_ids(model, sorted(ids))
        if record.status == "publish"
    }

    def shown(record: t.Any) -> t.Any:
        target = related.translations.of(record).get(language)
        replacement = found.get((model_of(record), target or 0))
        if replacement is None:
            return record
        related.translations.groups[(model_of(record), replacement.id)] = related.translations.of(
            record
        )
        return replacement

    related.venues = {key: shown(venue) for key, venue in related.venues.items()}
    related.organizers = {
        event_id: [shown(organizer) for organizer in group]
        for event_id, group in related.organizers.items()
    }
