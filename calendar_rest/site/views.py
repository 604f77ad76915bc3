"""The calendar's views as a resource of the route table: ``/events/`` and its list,
month and day views, whole or narrowed to a category or a tag.

Each ``on_get_<shape>`` serves the page route of that shape (``site/routes.py``);
the views themselves are modules of their own (``list_view``, ``month_view``,
``day_view``).
"""

from __future__ import annotations

from ..errors import RestError
from ..responders import Call, Resource
from ..wire.reply import Reply
from .list_view import list_page
from .params import page_number
from .scopes import WHOLE_CALENDAR, Scope


class EventViews(Resource):
    """``/events/…``: the views of the whole calendar."""

    def on_get_events(self, call: Call) -> Reply:
        """``/events/`` (and ``/`` to a browser): the default view."""
        return self.default_view(call, WHOLE_CALENDAR)

    def on_get_list(self, call: Call) -> Reply:
        return list_page(call, self.settings, WHOLE_CALENDAR, 1)

    def on_get_list_page(self, call: Call, page: int) -> Reply:
        return list_page(call, self.settings, WHOLE_CALENDAR, page_number(page))

    def default_view(self, call: Call, scope: Scope) -> Reply:
        view = self.settings.site_default_view
        if view == "list":
            return list_page(call, self.settings, scope, 1)
        raise RestError("rest_no_route", 404)  # month and day: see month_view, day_view
