"""Which of a TEC record's copied values differ from its stored copy (``calendar.md``
§6): a re-run writes only those, so a second run over an unchanged source writes
nothing.

Each write field is compared with what the copy stores for it, in the form the write
takes (local dates as sent, cost as normalised, linked records and terms by id).
"""

from __future__ import annotations

import typing as t

import orjson

from ..models import Event, Organizer, PostModel, Venue
from ..queries.lookups import imports as match
from ..wordpress.cost import normalise_cost_input
from ..wordpress.taxonomies import CATEGORIES, TAGS
from .tec_mapping import NAME

FORMAT = "%Y-%m-%d %H:%M:%S"


def changed_fields(record: PostModel, args: dict[str, t.Any], lineage: str) -> dict[str, t.Any]:
    """The subset of ``args`` that differs from the stored record (a slug stored with a
    ``-N`` suffix because the wanted one was taken counts as the same)."""
    changed = {key: value for key, value in args.items() if not _same(record, key, value)}
    if record.global_id_lineage != lineage and not changed:
        changed = {"status": record.status}  # records the lineage with a no-op write
    return changed


def _same(record: PostModel, key: str, value: t.Any) -> bool:
    """Whether the stored record already holds ``value`` for the write field ``key``."""
    if isinstance(record, Event) and key in EVENT_COMPARED:
        return EVENT_COMPARED[key](record, value)
    if key == "slug":
        stored = record.slug
        return (
            not value
            or stored == value
            or stored.startswith(f"{value}-")
            and stored[len(value) + 1 :].isdigit()
        )
    if (
        key in ("venue", "organizer")
        and isinstance(record, (Venue, Organizer))
        and key == NAME[type(record)]
    ):
        return bool(record.title == value)
    if key == "title":
        return bool(record.title == value)
    if key == "date_utc":
        return bool(record.date_utc.strftime(FORMAT) == value)
    if key == "image":
        return bool(match.image_url(record) == value)
    if key == "status" and value == "future":
        return record.status in ("future", "publish")
    stored_value = getattr(record, key, None)
    if isinstance(stored_value, float) or isinstance(value, float):
        return stored_value is not None and abs(float(stored_value) - float(value)) < 1e-9
    return bool((stored_value if stored_value is not None else "") == value)


#: event write fields compared with something other than the same-named column
EVENT_COMPARED: dict[str, t.Callable[[Event, t.Any], bool]] = {
    "start_date": lambda event, value: event.start_local.strftime(FORMAT) == value,
    "end_date": lambda event, value: event.end_local.strftime(FORMAT) == value,
    "cost": lambda event, value: bool(
        orjson.loads(event.cost or "[]") == list(normalise_cost_input(value))
    ),
    "venue": lambda event, value: (event.venue_id or 0) == value,
    "organizer": lambda event, value: match.organizer_ids(event.id) == value,
    "categories": lambda event, value: match.term_ids_in_order(event.id, CATEGORIES) == value,
    "tags": lambda event, value: match.term_ids_in_order(event.id, TAGS) == value,
}
