"""A TEC record → the arguments of the API write that copies it (``calendar.md`` §6).

Pure reading of the source's JSON: markup filtered as the ``--author`` may write it,
``--status`` over the source's, linked records and terms by the ids of their copies
(``ids``: per kind, source id → copy id). Nothing here reads or writes the database.
"""

from __future__ import annotations

import typing as t

from ..i18n.messages import N_
from ..models import Organizer, Venue
from ..rules.markup import Markup
from ..wordpress.taxonomies import CATEGORIES, TAGS, Taxonomy
from .common import ImportOptions, filtered
from .tec_client import Namespace, as_int
from .tec_status import status_args

VENUE_TEXT = ("address", "city", "country", "province", "state", "zip", "phone", "website")
ORGANIZER_TEXT = ("email", "phone", "website")
EVENT_FLAGS = ("all_day", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured")
STATUSES = ("publish", "draft", "pending", "private", "future")
#: the write field that holds a linked record's name
NAME = {Venue: "venue", Organizer: "organizer"}

#: per kind (a collection: ``venues``, ``categories``...), source id → copy id
Ids = dict[str, dict[int, int]]


class Failed(Exception):
    """One source record that could not be copied, and why (marked with ``N_``)."""


def term_args(
    options: ImportOptions, taxonomy: Taxonomy, record: dict[str, t.Any], known: dict[int, int]
) -> dict[str, t.Any]:
    """A term's name, description and (categories) parent's copy."""
    args: dict[str, t.Any] = {
        "name": filtered(options, str(record.get("name") or ""), Markup.INLINE),
        "description": filtered(options, str(record.get("description") or ""), Markup.POST),
    }
    if not args["name"]:
        raise Failed(N_("no name"))
    if taxonomy is CATEGORIES:
        parent = as_int(record.get("parent"))
        args["parent"] = known.get(parent) if parent else None
    return args


def linked_args(
    options: ImportOptions, model: type[Venue] | type[Organizer], record: dict[str, t.Any]
) -> dict[str, t.Any]:
    """A venue's or an organizer's name, description, texts (and a venue's map)."""
    name_field = NAME[model]
    args: dict[str, t.Any] = {
        name_field: filtered(options, str(record.get(name_field) or ""), Markup.INLINE),
    }
    description = filtered(options, str(record.get("description") or ""), Markup.POST)
    if description:
        args["description"] = description
    for field in VENUE_TEXT if model is Venue else ORGANIZER_TEXT:
        if isinstance(record.get(field), str) and record[field]:
            args[field] = record[field]
    if model is Venue:
        for field in ("geo_lat", "geo_lng"):
            if isinstance(record.get(field), (int, float)) and not isinstance(record[field], bool):
                args[field] = record[field]
        for field in ("show_map", "show_map_link"):
            if isinstance(record.get(field), bool):
                args[field] = record[field]
    add_post_fields(options, args, record)
    return args


def event_args(options: ImportOptions, ids: Ids, record: dict[str, t.Any]) -> dict[str, t.Any]:
    """§6's copied event fields, linked records by their copies' ids."""
    args: dict[str, t.Any] = {
        "title": filtered(options, str(record.get("title") or ""), Markup.INLINE),
        "start_date": record.get("start_date"),
        "end_date": record.get("end_date"),
    }
    for field in ("description", "excerpt"):
        text = filtered(options, str(record.get(field) or ""), Markup.POST)
        if text:
            args[field] = text
    if isinstance(record.get("timezone"), str) and record["timezone"]:
        args["timezone"] = record["timezone"]
    for flag in EVENT_FLAGS:
        if isinstance(record.get(flag), bool):
            args[flag] = record[flag]
    website = record.get("website")
    if isinstance(website, str) and website and website != record.get("url"):
        args["website"] = website  # TEC falls back to the permalink: not a website
    if isinstance(record.get("date_utc"), str) and record["date_utc"]:
        args["date_utc"] = record["date_utc"]
    cost = cost_values(record)
    if cost:
        args["cost"] = cost
    args.update(status_args(options, record))
    add_post_fields(options, args, record)
    venue = record.get("venue")
    venue_id = as_int(venue.get("id")) if isinstance(venue, dict) else None
    args["venue"] = ids.get("venues", {}).get(venue_id or 0, 0)
    args["organizer"] = _copies(ids.get("organizers", {}), record.get("organizer"))
    for taxonomy in (CATEGORIES, TAGS):
        known = ids.get(taxonomy.collection, {})
        args[taxonomy.collection] = _copies(known, record.get(taxonomy.collection))
    return args


def add_post_fields(
    options: ImportOptions, args: dict[str, t.Any], record: dict[str, t.Any]
) -> None:
    """Status (``--status`` wins) and image URL."""
    status = options.status or record.get("status")
    if isinstance(status, str) and status in STATUSES:
        args["status"] = status
    image = record.get("image")
    if isinstance(image, dict) and isinstance(image.get("url"), str):
        args["image"] = image["url"]


def _copies(known: dict[int, int], items: t.Any) -> list[int]:
    """The copies' ids of the listed records that were copied, in the source's order."""
    return [
        known[as_int(item.get("id")) or 0]
        for item in items or []
        if isinstance(item, dict) and (as_int(item.get("id")) or 0) in known
    ]


def cost_values(record: dict[str, t.Any]) -> list[str]:
    """The cost values with their symbol where it goes (``cost_details``)."""
    details = record.get("cost_details")
    values = details.get("values") if isinstance(details, dict) else None
    if not isinstance(values, list) or not values:
        cost = record.get("cost")
        return [cost] if isinstance(cost, str) and cost else []
    symbol = str(details.get("currency_symbol") or "") if isinstance(details, dict) else ""
    postfix = isinstance(details, dict) and details.get("currency_position") == "postfix"
    return [f"{value}{symbol}" if postfix else f"{symbol}{value}" for value in map(str, values)]


def series_lines(record: dict[str, t.Any]) -> list[str]:
    """A calendar_rest source's series lines (TEC Pro exposes none)."""
    lines = record.get("recurrence")
    if not isinstance(lines, list) or record.get("recurring_event_id"):
        return []
    return [line for line in lines if isinstance(line, str)]


def source_identity(record: dict[str, t.Any], namespace: Namespace) -> tuple[str, str]:
    """The source ``global_id`` (TEC's form when missing) and the lineage to store."""
    source_id = record.get("global_id")
    if not isinstance(source_id, str) or not source_id:
        source_id = f"{namespace.site_id}?id={record.get('id')}"
    lineage = [item for item in record.get("global_id_lineage") or [] if isinstance(item, str)]
    if source_id not in lineage:
        lineage.append(source_id)
    return source_id, " ".join(lineage)


def add_embedded(
    events: list[dict[str, t.Any]], field: str, records: list[dict[str, t.Any]]
) -> None:
    """Linked records that appear only inside events (TEC writes ``[]`` for none)."""
    seen = {as_int(record.get("id")) for record in records}
    for event in events:
        value = event.get(field)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and as_int(item.get("id")) not in seen:
                records.append(item)
                seen.add(as_int(item.get("id")))


def parents_first(terms: list[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    """Categories ordered so that every parent comes before its children."""
    by_id = {as_int(term.get("id")): term for term in terms}
    ordered: list[dict[str, t.Any]] = []
    placed: set[int | None] = set()

    def place(term: dict[str, t.Any], depth: int = 0) -> None:
        term_id = as_int(term.get("id"))
        if term_id in placed or depth > len(terms):
            return
        parent = as_int(term.get("parent"))
        if parent and parent in by_id:
            place(by_id[parent], depth + 1)
        placed.add(term_id)
        ordered.append(term)

    for term in terms:
        place(term)
    return ordered
