"""Batched loading of what a page of events links to: one query per kind, never per event."""

from __future__ import annotations

import typing as t
from collections import defaultdict

from ..models import Attachment, Event, EventOrganizer, EventTerm, Organizer, Term, Venue
from ..wire.events import Related


def load_related(events: t.Sequence[Event]) -> Related:
    """Venues, organizers, terms and images of ``events`` in at most five queries."""
    related = Related()
    if not events:
        return related
    event_ids = [event.id for event in events]
    venue_ids = {event.venue_id for event in events if event.venue_id}
    if venue_ids:
        related.venues = {v.id: v for v in Venue.select().where(Venue.id.in_(venue_ids))}
    organizers: dict[int, list[Organizer]] = defaultdict(list)
    links = (
        Organizer.select(Organizer, EventOrganizer.event.alias("linked_event"))
        .join(EventOrganizer, on=(EventOrganizer.organizer == Organizer.id))
        .where(EventOrganizer.event.in_(event_ids))
        .order_by(EventOrganizer.event, EventOrganizer.position)
        .objects()
    )
    for organizer in links:
        organizers[organizer.linked_event].append(organizer)
    related.organizers = dict(organizers)
    terms: dict[int, list[Term]] = defaultdict(list)
    term_links = (
        Term.select(Term, EventTerm.event.alias("linked_event"))
        .join(EventTerm, on=(EventTerm.term == Term.id))
        .where(EventTerm.event.in_(event_ids))
        .order_by(Term.name, Term.id)
        .objects()
    )
    for term in term_links:
        terms[term.linked_event].append(term)
    related.terms = dict(terms)
    image_ids = {event.image_id for event in events if event.image_id}
    image_ids |= {v.image_id for v in related.venues.values() if v.image_id}
    image_ids |= {o.image_id for group in organizers.values() for o in group if o.image_id}
    if image_ids:
        related.images = {a.id: a for a in Attachment.select().where(Attachment.id.in_(image_ids))}
    return related
