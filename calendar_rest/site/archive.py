"""The events a page lists: ``GET /events``'s own archive query, run for the page.

A view names its filter as the API parameters that ask for the same records
(:class:`EventFilter`); they are validated by the API's argument set, resolved by
``queries.filters`` (visibility, terms with their sub-categories, word search) and
read a page at a time by ``queries.lists.archive`` with the API's totals, then
rendered by ``wire.events`` as the API renders them, for an anonymous reader. So a
page shows exactly what an anonymous ``GET /events`` with :meth:`EventFilter.query`
returns, in a handful of queries however many events it shows.
"""

from __future__ import annotations

import dataclasses
import math
import typing as t

from ..errors import InvalidParams, RestError
from ..queries.filters.event_filters import resolve_archive
from ..queries.lists.archive import archive_page, archive_total, walks
from ..queries.lookups.related import load_related
from ..responders import Arguments, Call
from ..rules.permissions import can_read_content
from ..schemas.events import EventArchiveArgs
from ..settings import Settings
from ..wire.events import EventView, event_data
from ..wordpress.cost import FREE_LABEL

#: the most events one grid (month) or day reads at once
MOST_SHOWN = 2000
_ARGUMENTS = EventArchiveArgs()
Event = dict[str, t.Any]


@dataclasses.dataclass(frozen=True)
class EventFilter:
    """A page's filter, as the API parameters that select the same events."""

    params: tuple[tuple[str, str], ...]
    #: a parameter naming a term: unknown, it makes the page a 404
    names_term: bool = False

    def query(self) -> list[tuple[str, str]]:
        return list(self.params)


@dataclasses.dataclass(frozen=True)
class Listing:
    """One page of events, in the API's shapes, and where it sits in the whole list."""

    events: list[Event]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return math.ceil(self.total / self.per_page) if self.total else 0


def list_events(
    call: Call,
    settings: Settings,
    wanted: EventFilter,
    *,
    page: int = 1,
    per_page: int | None = None,
    newest_first: bool = False,
    series: int | None = None,
) -> Listing:
    """Page ``page`` of the events ``wanted`` selects, ``per_page`` a page (all of
    them, up to :data:`MOST_SHOWN`, when None), in start order or ``newest_first``;
    ``series``: only the occurrences of the series of that master (the API's
    ``/events/{id}/occurrences``). Each event carries its JSON-LD (``json_ld``), as
    the API's single read renders it: every listed event has its own on the page.

    :raises RestError: 404 for a page past the last, or an unknown term.
    """
    arguments = Arguments.load(_ARGUMENTS, dict(wanted.params))
    arguments.refuse_invalid()
    try:
        archive = resolve_archive(
            arguments.valid, None, call.language, settings, call.now, call.generation
        )
    except InvalidParams:
        if wanted.names_term:
            raise RestError("rest_no_route", 404) from None
        raise
    filters = archive.filters
    if series is not None:
        filters.series = series
    total = call.total(*archive_total(filters, None))
    size = per_page or MOST_SHOWN
    offset, limit = (page - 1) * size, size
    if page > 1 and offset >= total:  # a page past the last
        raise RestError("rest_no_route", 404)
    if newest_first:  # the same ascending query, read from its end
        end = total - offset
        offset = max(end - size, 0)
        limit = end - offset
    walk = walks(filters, None, total, offset + limit, call.total)
    events, venues, linked = archive_page(filters, None, walk, max(limit, 0), offset)
    related = load_related(events, None, call.language, call.total, venues, linked)
    view = page_view(call, settings)
    shown = [
        event_data(event, related, view, redact=not can_read_content(None, event, None, None))
        for event in events
    ]
    if newest_first:
        shown.reverse()
    return Listing(shown, total, page, size)


def page_view(call: Call, settings: Settings) -> EventView:
    """How the pages render an event: as the API's single read does, with coordinates
    when the site has geolocation, in the page's language."""
    return EventView(
        call.urls,
        settings.default_currency_symbol,
        settings.default_currency_code,
        settings.geolocation,
        True,
        call.translate(FREE_LABEL),
    )
