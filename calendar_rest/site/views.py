"""The calendar's views as resources of the route table: ``/events/`` and its list,
month and day views, whole (:class:`EventViews`) or narrowed to a category or a tag
(:class:`TermViews`).

Each ``on_get_<shape>`` serves the page route of that shape (``site/routes.py``);
the views themselves are modules of their own (``list_view``, ``month_view``,
``day_view``), each taking the :class:`~.scopes.Scope` it shows.
"""

from __future__ import annotations

from ..errors import RestError
from ..responders import Call, Resource
from ..settings import Settings
from ..wire.reply import Reply
from .day_view import day_of_path, day_page
from .list_view import list_page
from .month_view import month_of_path, month_page
from .params import DAY_RE, page_number
from .scopes import WHOLE_CALENDAR, Scope, category, tag

#: TEC's ``eventDisplay`` values a migrated link may carry, and the view each names
EVENT_DISPLAYS = {"list": "list", "past": "list", "month": "month", "day": "day"}


def default_view(call: Call, settings: Settings, scope: Scope) -> Reply:
    """The view TEC's ``eventDisplay`` names, else ``site_default_view``, of ``scope``."""
    display = call.params.get("eventDisplay")
    view = settings.site_default_view
    if isinstance(display, str) and display in EVENT_DISPLAYS:
        view = EVENT_DISPLAYS[display]
    if view == "month":
        return month_page(call, settings, scope, None)
    if view == "day":
        return day_page(call, settings, scope, None)
    return list_page(call, settings, scope, 1)


def view_of_tail(call: Call, settings: Settings, scope: Scope, tail: list[str]) -> Reply:
    """The view a path's last segments name under ``scope``: none (the default view),
    ``list``, ``list/page/{n}``, ``month``, ``month/{YYYY-MM}``, ``today`` or
    ``{YYYY-MM-DD}``; anything else is a 404."""
    match tail:
        case []:
            return default_view(call, settings, scope)
        case ["list"]:
            return list_page(call, settings, scope, 1)
        case ["list", "page", number] if number.isdigit():
            return list_page(call, settings, scope, page_number(number))
        case ["month"]:
            return month_page(call, settings, scope, None)
        case ["month", month]:
            return month_page(call, settings, scope, month_of_path(month))
        case ["today"]:
            return day_page(call, settings, scope, None)
        case [day]:
            return day_page(call, settings, scope, day_of_path(day))
    raise RestError("rest_no_route", 404)


#: the one-segment view names that may end a term archive's path
VIEW_WORDS = frozenset({"list", "month", "today"})


def split_tail(segments: list[str]) -> tuple[list[str], list[str]]:
    """``[parent, child, month, 2026-11]`` → the term's path and the view's segments,
    read from the end (a nested slug that looks like a date elsewhere stays a slug)."""
    if segments[-3:-1] == ["list", "page"]:
        return segments[:-3], segments[-3:]
    if len(segments) >= 2 and segments[-2] == "month":
        return segments[:-2], segments[-2:]
    if segments and (segments[-1] in VIEW_WORDS or DAY_RE.match(segments[-1])):
        return segments[:-1], segments[-1:]
    return segments, []


class EventViews(Resource):
    """``/events/…``: the views of the whole calendar."""

    def on_get_events(self, call: Call) -> Reply:
        """``/events/`` (and ``/`` to a browser): the default view."""
        return default_view(call, self.settings, WHOLE_CALENDAR)

    def on_get_list(self, call: Call) -> Reply:
        return list_page(call, self.settings, WHOLE_CALENDAR, 1)

    def on_get_list_page(self, call: Call, page: int) -> Reply:
        return list_page(call, self.settings, WHOLE_CALENDAR, page_number(page))

    def on_get_month(self, call: Call) -> Reply:
        return month_page(call, self.settings, WHOLE_CALENDAR, None)

    def on_get_month_of(self, call: Call, month: str) -> Reply:
        return month_page(call, self.settings, WHOLE_CALENDAR, month_of_path(month))

    def on_get_today(self, call: Call) -> Reply:
        return day_page(call, self.settings, WHOLE_CALENDAR, None)

    def on_get_day(self, call: Call, day: str) -> Reply:
        return day_page(call, self.settings, WHOLE_CALENDAR, day_of_path(day))


class TermViews(Resource):
    """``/events/category/{slug}/…`` (nested under its parents' slugs, as the API's
    permalinks nest it), ``/tag/{slug}/…`` and TEC's ``/events/tag/{slug}/…``: the
    views narrowed to a term; an unknown term is a 404."""

    def on_get_category(self, call: Call, terms: str) -> Reply:
        slugs, tail = split_tail([part for part in terms.split("/") if part])
        if not slugs:
            raise RestError("rest_no_route", 404)
        scope = category(slugs[-1], "/".join(slugs))
        return view_of_tail(call, self.settings, scope, tail)

    def on_get_tag(self, call: Call, terms: str) -> Reply:
        return self.tag_views(call, terms, "/tag")

    def on_get_events_tag(self, call: Call, terms: str) -> Reply:
        return self.tag_views(call, terms, "/events/tag")

    def tag_views(self, call: Call, terms: str, base: str) -> Reply:
        slugs, tail = split_tail([part for part in terms.split("/") if part])
        if len(slugs) != 1:
            raise RestError("rest_no_route", 404)
        return view_of_tail(call, self.settings, tag(slugs[0], base), tail)


__all__ = ["EventViews", "TermViews"]
