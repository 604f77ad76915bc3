"""The event representation (TEC's ``Post_Repository::get_event_data``), key for key."""

from __future__ import annotations

import dataclasses
import functools
import re
import typing as t

import orjson

from ..dates import date_details, format_datetime, iso8601, resolve_timezone, timezone_abbr
from ..models import Attachment, Event, Organizer, Term, Venue
from ..queries.loaded import Related
from ..wordpress.cost import FREE_LABEL, CostInfo, cost_representation
from ..wordpress.taxonomies import taxonomy_of
from ..wordpress.text import wpautop
from ..wordpress.urls import Urls
from .images import image_data
from .json_ld import event_json_ld, organizer_json_ld, venue_json_ld
from .kept import kept_event, row_of
from .languages import add_language
from .linked import linked_data
from .terms import embedded_term

#: a ``cost_details`` value that is a number (the others are labels such as "donation")
NUMERIC = re.compile(r"\d+(?:\.\d+)?")
EMPTY_COST_DETAILS = {
    "currency_symbol": "",
    "currency_position": "",
    "currency_code": "",
    "values": [],
}
#: what a caller without the password sees instead of protected content (TEC §3.8)
REDACTED: dict[str, t.Any] = {
    "description": "",
    "excerpt": "",
    "image": False,
    "all_day": None,
    "cost": "",
    "cost_details": EMPTY_COST_DETAILS,
    "website": "",
    "show_map": None,
    "show_map_link": None,
    "hide_from_listings": None,
    "sticky": None,
    "featured": None,
    "categories": [],
    "tags": [],
    "venue": [],
    "organizer": [],
}


@dataclasses.dataclass(frozen=True)
class EventView:
    """How to render: where links point, currency defaults, and whether this is a
    single read (which adds JSON-LD)."""

    urls: Urls
    default_currency_symbol: str = "$"
    default_currency_code: str = "USD"
    geolocation: bool = True
    single: bool = False
    #: "Free" in the request's language
    free_label: str = FREE_LABEL

    def __hash__(self) -> int:  # part of every kept event's key: hashed once
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash(dataclasses.astuple(self))


def _dates(prefix: str, value: t.Any) -> dict[str, t.Any]:
    return {prefix: format_datetime(value), f"{prefix}_details": date_details(value)}


def event_data(
    event: Event, related: Related, view: EventView, *, redact: bool = False
) -> dict[str, t.Any]:
    """One event as the wire shows it; ``redact`` hides password-protected content
    (not ``language``/``translations``, which say nothing of the content).

    Rendered once per content (``kept.py``): the representation is kept under
    :func:`_inputs`, every row and group it is made from, so an edit of the event or
    of anything it embeds makes a new key and shows at once. The value is shared
    between responses: nothing may change it.
    """
    return kept_event(
        _inputs(event, related, view, redact), lambda: _render(event, related, view, redact)
    )


def _inputs(event: Event, related: Related, view: EventView, redact: bool) -> tuple[t.Any, ...]:
    """Everything :func:`_render` reads of ``event`` and ``related``: the event's and
    its image's rows, its translation group and its series' lines; unless redacted,
    each embedded term, venue and organizer as its row, its image's row and its group
    (as ``related`` holds them: only what the reader may read, in the reply's
    language)."""
    images, translations = related.images, related.translations
    image = images.get(event.image_id) if event.image_id else None
    master_id = event.series_master_id or (event.id if event.recurrence else None)
    series = related.series.get(master_id) if master_id else None
    own = (
        "Event",
        view,
        redact,
        row_of(event),
        row_of(image),
        translations.group_key(event),
        tuple(series) if series else None,
    )
    if redact:
        return own

    def linked(record: Venue | Organizer | Term) -> tuple[t.Any, ...]:
        image_id = getattr(record, "image_id", None)
        shown = images.get(image_id) if image_id else None
        return (row_of(record), row_of(shown), translations.group_key(record))

    venue = related.venues.get(event.venue_id) if event.venue_id else None
    return (
        *own,
        tuple(linked(term) for term in related.terms.get(event.id, ())),
        linked(venue) if venue is not None else None,
        tuple(linked(organizer) for organizer in related.organizers.get(event.id, ())),
    )


def _render(event: Event, related: Related, view: EventView, redact: bool) -> dict[str, t.Any]:
    image = related.images.get(event.image_id) if event.image_id else None
    data = _own_fields(event, image, view, redact=redact)
    if not redact:
        _add_links(data, event, related, view)
        if view.single:
            data["json_ld"] = _json_ld(event, related, view, image, data)
    _add_series(data, event, related)
    _add_status(data, event, redact)
    add_language(data, event, related.translations)
    return data


def _own_fields(
    event: Event, image: Attachment | None, view: EventView, *, redact: bool
) -> dict[str, t.Any]:
    """The fields made from the event's row and image alone, in TEC's order, with
    empty places for what it embeds."""
    urls = view.urls
    permalink = urls.permalink("event", event.id, event.slug, event.status, event.language)
    stored = CostInfo(
        tuple(orjson.loads(event.cost)), event.currency_symbol, event.currency_position
    )
    cost, cost_details = cost_representation(stored, view.default_currency_symbol, view.free_label)
    global_id = urls.global_id(event.id)
    data: dict[str, t.Any] = {
        "id": event.id,
        "global_id": global_id,
        "global_id_lineage": [*event.global_id_lineage.split(), global_id],
        "author": str(event.author_id or ""),
        "status": event.status,
        "date": format_datetime(event.date),
        "date_utc": format_datetime(event.date_utc),
        "modified": format_datetime(event.modified),
        "modified_utc": format_datetime(event.modified_utc),
        "url": permalink,
        "rest_url": urls.rest(f"events/{event.id}"),
        "title": event.title,
        "description": wpautop(event.description),
        "excerpt": wpautop(event.excerpt),
        "slug": event.slug,
        "image": image_data(image),
        "all_day": bool(event.all_day),
        **_dates("start_date", event.start_local),
        **_dates("end_date", event.end_local),
        **_dates("utc_start_date", event.start_utc),
        **_dates("utc_end_date", event.end_utc),
        "timezone": event.timezone,
        "timezone_abbr": timezone_abbr(event.timezone, event.start_local),
        "cost": cost,
        "cost_details": cost_details,
        "website": permalink if event.website is None else event.website,
        "show_map": bool(event.show_map),
        "show_map_link": bool(event.show_map_link),
        "hide_from_listings": bool(event.hide_from_listings),
        "sticky": bool(event.sticky),
        "featured": bool(event.featured),
        "categories": [],
        "tags": [],
        "venue": [],
        "organizer": [],
    }
    if redact:
        data.update(REDACTED)
    return data


def _add_series(data: dict[str, t.Any], event: Event, related: Related) -> None:
    """calendar.md §4.3: the series' lines, the master's ID (occurrences only) and the
    original local start (masters and occurrences)."""
    master_id = event.series_master_id or (event.id if event.recurrence else None)
    data["recurrence"] = related.series.get(master_id, []) if master_id else []
    data["recurring_event_id"] = event.series_master_id
    original = event.original_start if master_id else None
    data["original_start_date"] = format_datetime(original) if original else None


def _add_status(data: dict[str, t.Any], event: Event, redact: bool) -> None:
    """anchors.md §1: whether the event still happens and where attendees join; the
    reason and the URL are content a password hides, the status is not."""
    previous = event.previous_start
    data["event_status"] = event.event_status
    data["event_status_reason"] = "" if redact else event.event_status_reason
    data["attendance_mode"] = event.attendance_mode
    data["online_url"] = "" if redact else event.online_url
    data["previous_start_date"] = format_datetime(previous) if previous else None


def _add_links(data: dict[str, t.Any], event: Event, related: Related, view: EventView) -> None:
    """Terms, venue and organizers as the event embeds them; each is rendered once per
    content (``kept.py``), as its own routes show it."""
    urls, translations = view.urls, related.translations

    def shown(record: Venue | Organizer) -> dict[str, t.Any]:
        image = related.images.get(record.image_id) if record.image_id else None
        return linked_data(
            record,
            urls,
            image,
            translations,
            single=view.single,
            geolocation=view.geolocation,
        )

    terms: dict[str, list[dict[str, t.Any]]] = {"categories": [], "tags": []}
    for term in related.terms.get(event.id, ()):
        embedded = embedded_term(term, urls, translations)
        terms[taxonomy_of(term.taxonomy).collection].append(embedded)
    data.update(terms)
    venue = related.venues.get(event.venue_id) if event.venue_id else None
    if venue is not None:
        data["venue"] = shown(venue)
    data["organizer"] = [shown(organizer) for organizer in related.organizers.get(event.id, ())]


def _json_ld(
    event: Event, related: Related, view: EventView, image: Attachment | None, own: dict[str, t.Any]
) -> dict[str, t.Any]:
    """The single read's JSON-LD (kept with the whole event, see :func:`event_data`)."""
    venue = related.venues.get(event.venue_id) if event.venue_id else None
    organizers = related.organizers.get(event.id, ())
    return _render_json_ld(event, venue, organizers, view, image, own)


def _render_json_ld(
    event: Event,
    venue: Venue | None,
    organizers: t.Iterable[Organizer],
    view: EventView,
    image: Attachment | None,
    own: dict[str, t.Any],
) -> dict[str, t.Any]:
    zone = resolve_timezone(event.timezone)
    values = [value for value in own["cost_details"]["values"] if NUMERIC.fullmatch(value)]
    return event_json_ld(
        event,
        url=own["url"],
        start=iso8601(event.start_local, zone),
        end=iso8601(event.end_local, zone),
        image=image,
        venue=venue_json_ld(venue, None, geolocation=view.geolocation) if venue else None,
        organizers=[organizer_json_ld(organizer, None) for organizer in organizers],
        price=values[0] if values else None,
        currency_code=view.default_currency_code,
        previous_start=iso8601(event.previous_start, zone) if event.previous_start else None,
    )
