"""What the read paths hand to the wire: loaded records, grouped for one response.

These containers hold data only; the functions that fill them run the queries
(``related.load_related``, ``translations.load_translations``). ``wire/`` may import
this module, and no other part of ``queries/`` (an import-linter contract says so):
representations are built from loaded data, never by querying.
"""

from __future__ import annotations

import dataclasses
import typing as t

import peewee as pw

from ..models import Attachment, Organizer, Term, Venue, model_of

#: a record's translation group, keyed by its model and ID
GroupKey = tuple[type[pw.Model], int]


@dataclasses.dataclass
class Translations:
    """The WPML translation groups of the records of one response."""

    groups: dict[GroupKey, dict[str, int]] = dataclasses.field(default_factory=dict)

    def of(self, record: t.Any) -> dict[str, int]:
        """``{language: id}`` of the record's group; a record whose group was not
        loaded (only possible if it was written after the load) stands alone."""
        found = self.groups.get((model_of(record), record.id))
        return found if found is not None else {record.language: record.id}

    def group_key(self, record: t.Any) -> tuple[tuple[str, int], ...] | None:
        """What a representation kept under ``record``'s row also depends on: its loaded
        group, or None when it stands alone (its group is then its row's language and
        ID, already in the key)."""
        if not self.groups:  # nothing on the page is translated: the usual case
            return None
        found = self.groups.get((model_of(record), record.id))
        return None if found is None else tuple(found.items())


@dataclasses.dataclass
class Related:
    """Everything events link to, fetched in batches for a whole page of events."""

    venues: dict[int, Venue] = dataclasses.field(default_factory=dict)
    organizers: dict[int, list[Organizer]] = dataclasses.field(default_factory=dict)
    terms: dict[int, list[Term]] = dataclasses.field(default_factory=dict)
    images: dict[int, Attachment] = dataclasses.field(default_factory=dict)
    #: translation groups of the events and of everything they embed
    translations: Translations = dataclasses.field(default_factory=Translations)
    #: the ``recurrence`` lines of the series the events belong to, by master ID
    series: dict[int, list[str]] = dataclasses.field(default_factory=dict)


#: the change feed's record types, in its order, each with its collection (route segment)
FEED_COLLECTIONS = {
    "event": "events",
    "venue": "venues",
    "organizer": "organizers",
    "category": "categories",
    "tag": "tags",
}


@dataclasses.dataclass(frozen=True)
class FeedEntry:
    """One change of the log as one caller sees it (``upsert`` or ``delete``)."""

    record_type: str
    record_id: int
    action: str
    changed_utc: t.Any
