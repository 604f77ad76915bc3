"""How many records of each kind the database holds (the CLI reports them)."""

from __future__ import annotations

from ...models import Event, Organizer, Term, User, Venue
from ...wordpress.taxonomies import CATEGORIES, TAGS


def record_counts() -> dict[str, int]:
    return {
        "events": Event.select().count(),
        "venues": Venue.select().count(),
        "organizers": Organizer.select().count(),
        "categories": Term.select().where(Term.taxonomy == CATEGORIES.name).count(),
        "tags": Term.select().where(Term.taxonomy == TAGS.name).count(),
        "users": User.select().count(),
    }
