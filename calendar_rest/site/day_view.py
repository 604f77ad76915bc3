"""The day view (``site.md`` §2 "Day"): the events of one day in start order,
grouped by start time (what began before the day, and all-day events, first);
previous and next day links.

The day's events are one archive read: the API's ``ends_after`` the day's start and
``starts_before`` the next day's (``strict_dates``).
"""

from __future__ import annotations

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
from .params import DAY_RE, parse_day, view_query
from .rendering import Formats
from .scopes import Scope
from .texts import ALL_DAY, DAYS, EVENTS_OF, NEXT_DAY, PREVIOUS_DAY


def day_filter(scope: Scope, day: dt.date, search: str | None) -> EventFilter:
    params = [
        *scope.params,
        ("ends_after", f"{day.isoformat()} 00:00:00"),
        ("starts_before", f"{(day + dt.timedelta(days=1)).isoformat()} 00:00:00"),
        ("strict_dates", "true"),
    ]
    if search:
        params.append(("search", search))
    return EventFilter(tuple(params), names_term=bool(scope.params))


def day_of_path(text: str) -> dt.date:
    """``YYYY-MM-DD`` of ``/events/{YYYY-MM-DD}/``: 404 when not shaped as a date (an
    unknown path), 400 for a date that does not exist."""
    if not DAY_RE.match(text):
        raise RestError("rest_no_route", 404)
    return parse_day("date", text)


def time_groups(
    cards: list[Card], day: dt.date, formats: Formats, all_day: str
) -> list[tuple[str, list[Card]]]:
    """The day's events under their start time: ``all_day`` (all-day events, and what
    began before the day) first, then each start time in order."""

    def whole_day(item: Card) -> bool:
        return item.all_day or item.first_day < day

    groups: list[tuple[str, list[Card]]] = []
    for item in sorted(cards, key=lambda c: (not whole_day(c), c.start, c.id)):
        heading = all_day if whole_day(item) else formats.time(item.start)
        if not groups or groups[-1][0] != heading:
            groups.append((heading, []))
        groups[-1][1].append(item)
    return groups


def day_page(call: Call, settings: Settings, scope: Scope, day: dt.date | None) -> Reply:
    """The events of ``day`` (else ``?date=``, else today)."""
    wanted = view_query(call.params)
    now = today(call, settings)
    shown = day or wanted.date or now
    chosen = day_filter(scope, shown, wanted.search)
    cards = [card(event) for event in list_events(call, settings, chosen).events]
    query = [("search", wanted.search)] if wanted.search else []
    one = dt.timedelta(days=1)
    formats = Formats(call.language)
    frame = Frame(
        title=formats.date(shown),
        path=scope.path(f"{shown.isoformat()}/"),
        query=query,
        view="day",
        api_query=chosen.query(),
        description=call.translate(EVENTS_OF) % site_title(call.urls, settings),
        date=shown.isoformat(),
        search=wanted.search or "",
        prev=with_query(scope.path(f"{(shown - one).isoformat()}/"), query),
        next=with_query(scope.path(f"{(shown + one).isoformat()}/"), query),
        view_base=scope.base,
        form_path=scope.path("today/"),
        prev_label=PREVIOUS_DAY,
        next_label=NEXT_DAY,
        pager_label=DAYS,
    )
    groups = time_groups(cards, shown, formats, call.translate(ALL_DAY))
    context = {"groups": groups, "day": shown}
    return page_reply(call, settings, frame, "day.html", context)
