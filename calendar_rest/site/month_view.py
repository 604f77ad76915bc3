"""The month view (``site.md`` §2 "Month"): a 6-week grid starting on
``start_of_week``, each day listing the events that cover it (multi-day events on
every day, all-day first, then by start), at most ``site_month_events_per_day`` then
"+ N more" linking to the day.

The grid's events are one archive read: the API's ``ends_after`` the grid's first
day and ``starts_before`` the day after its last (``strict_dates``), i.e. every event
overlapping the grid.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from ..errors import RestError
from ..responders import Call
from ..settings import Settings
from ..wire.reply import Reply
from .archive import EventFilter, list_events
from .cards import Card, card
from .frame import Frame, page_reply, site_title
from .links import with_query
from .list_view import today
from .params import MONTH_RE, parse_month, view_query
from .rendering import Formats
from .scopes import Scope
from .texts import EVENTS_OF, MONTHS, NEXT_MONTH, PREVIOUS_MONTH

WEEKS = 6


@dataclasses.dataclass(frozen=True)
class GridDay:
    day: dt.date
    #: the events shown, and how many more cover the day
    shown: list[Card]
    more: int
    in_month: bool
    is_today: bool


def grid_start(month: dt.date, start_of_week: int) -> dt.date:
    """The first day of the grid: the week day ``start_of_week`` (0 Sunday, as
    WordPress counts) on or before the month's first day."""
    wordpress_weekday = (month.weekday() + 1) % 7
    return month - dt.timedelta(days=(wordpress_weekday - start_of_week) % 7)


def month_filter(scope: Scope, first: dt.date, last: dt.date, search: str | None) -> EventFilter:
    after = dt.timedelta(days=1)
    params = [
        *scope.params,
        ("ends_after", f"{first.isoformat()} 00:00:00"),
        ("starts_before", f"{(last + after).isoformat()} 00:00:00"),
        ("strict_dates", "true"),
    ]
    if search:
        params.append(("search", search))
    return EventFilter(tuple(params), names_term=bool(scope.params))


def month_of_path(text: str) -> dt.date:
    """``YYYY-MM`` of ``/events/month/{YYYY-MM}/``: 404 when not shaped as one, 400
    for a month out of range."""
    if not MONTH_RE.match(text):
        raise RestError("rest_no_route", 404)
    return parse_month("month", text)


def month_page(call: Call, settings: Settings, scope: Scope, month: dt.date | None) -> Reply:
    """The month grid of ``month`` (else ``?date=``'s month, else this month)."""
    wanted = view_query(call.params, month=True)
    now = today(call, settings)
    first = (month or wanted.date or now).replace(day=1)
    start = grid_start(first, settings.start_of_week)
    days = [start + dt.timedelta(days=n) for n in range(WEEKS * 7)]
    chosen = month_filter(scope, days[0], days[-1], wanted.search)
    cards = [card(event) for event in list_events(call, settings, chosen).events]
    limit = settings.site_month_events_per_day
    grid = []
    for day in days:
        covering = sorted((item for item in cards if item.covers(day)), key=Card.sort_key)
        more = len(covering) - limit
        grid.append(GridDay(day, covering[:limit], more, day.month == first.month, day == now))
    previous = (first - dt.timedelta(days=1)).replace(day=1)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    query = [("search", wanted.search)] if wanted.search else []
    frame = Frame(
        title=Formats(call.language).month(first),
        path=scope.path(f"month/{first:%Y-%m}/"),
        query=query,
        view="month",
        api_query=chosen.query(),
        description=call.translate(EVENTS_OF) % site_title(call.urls, settings),
        date=first.isoformat(),
        search=wanted.search or "",
        prev=with_query(scope.path(f"month/{previous:%Y-%m}/"), query),
        next=with_query(scope.path(f"month/{following:%Y-%m}/"), query),
        view_base=scope.base,
        form_path=scope.path("month/"),
        prev_label=PREVIOUS_MONTH,
        next_label=NEXT_MONTH,
        pager_label=MONTHS,
    )
    weekdays = days[:7]
    context = {
        "month": first,
        "weeks": [grid[n : n + 7] for n in range(0, len(grid), 7)],
        "weekdays": weekdays,
        "scope": scope,
        "query": query,
        "empty": not cards,
    }
    return page_reply(call, settings, frame, "month.html", context)
