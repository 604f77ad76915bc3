"""The list view (``site.md`` §2 "List"): upcoming events from a day (today unless
``?date=``), ``default_per_page`` a page, under month headings; ``?past=1`` lists the
events that ended before that day, newest first.

Upcoming means the API's ``ends_after`` the day's start (what is still running that
day is listed), past its ``ends_before``; both exact (``strict_dates``).
"""

from __future__ import annotations

import datetime as dt

from ..responders import Call
from ..settings import Settings
from ..wire.reply import Reply
from .archive import EventFilter, list_events
from .cards import by_month, card
from .frame import Frame, page_reply, site_title
from .links import Query, with_query
from .params import ViewQuery, view_query
from .scopes import Scope
from .texts import EVENTS_OF, PAST, UPCOMING


def today(call: Call, settings: Settings) -> dt.date:
    """The site's date now (the response cache is keyed by it too)."""
    return call.clock.now().astimezone(settings.site_zone).date()


def list_filter(scope: Scope, day: dt.date, wanted: ViewQuery) -> EventFilter:
    bound = "ends_before" if wanted.past else "ends_after"
    params: list[tuple[str, str]] = [*scope.params, (bound, f"{day.isoformat()} 00:00:00")]
    params.append(("strict_dates", "true"))
    if wanted.search:
        params.append(("search", wanted.search))
    return EventFilter(tuple(params), names_term=bool(scope.params))


def list_page(call: Call, settings: Settings, scope: Scope, page: int) -> Reply:
    """Page ``page`` of the list view of ``scope``."""
    wanted = view_query(call.params)
    day = wanted.date or today(call, settings)
    chosen = list_filter(scope, day, wanted)
    listing = list_events(
        call,
        settings,
        chosen,
        page=page,
        per_page=settings.default_per_page,
        newest_first=wanted.past,
    )
    query: Query = [*([("date", wanted.date.isoformat())] if wanted.date else []), *wanted.pairs()]
    translate = call.translate
    title = translate(PAST) if wanted.past else translate(UPCOMING)
    if scope.term:
        title = f"{title} · {scope.term}"
    frame = Frame(
        title=title,
        path=page_path(scope, page),
        query=query,
        view="list",
        api_query=chosen.query(),
        description=translate(EVENTS_OF) % site_title(call.urls, settings),
        date=day.isoformat(),
        search=wanted.search or "",
        prev=with_query(page_path(scope, page - 1), query) if page > 1 else None,
        next=with_query(page_path(scope, page + 1), query) if page < listing.pages else None,
        view_base=scope.base,
        form_path=scope.path("list/"),
        form_fields=[("past", "1")] if wanted.past else [],
    )
    context = {
        "groups": by_month([card(event) for event in listing.events]),
        "listing": listing,
        "past": wanted.past,
        "past_path": with_query(scope.path("list/"), [("past", "1")]),
    }
    return page_reply(call, settings, frame, "list.html", context)


def page_path(scope: Scope, page: int) -> str:
    return scope.path("list/") if page == 1 else scope.path(f"list/page/{page}/")
