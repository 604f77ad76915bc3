"""The public pages' routes (``site.md`` §1): TEC's front-end URLs, as data.

They follow the API's ``routes.ROUTES`` in the one route table (``site=True``: matched
at the mount root as written, left out of the namespace index and ``/doc``), so a
page goes down the API's pipeline: one match, the response cache, ``ETag``, 304 and
HEAD. A route's shape names its responder: shape ``list_page`` of resource
``views`` is ``EventViews.on_get_list_page``. Trailing slashes are ignored when
matching, as for the API; static parts win over variables (Werkzeug's ordering), so
the catch-all ``<path:rest>`` routes only get what no page serves.
"""

from __future__ import annotations

from ..media_types import HTML
from ..routes import READ, RouteSpec


def page(path: str, resource: str, shape: str, **variables: str) -> RouteSpec:
    """A page route: ``GET`` (and HEAD) only, answered in HTML."""
    return RouteSpec(path, resource, shape, READ, variables, site=True, media_types=(HTML,))


#: path variables are described for the route table only (pages are never in /doc)
MISSING = "the rest of a path no page serves"
TERM_PATH = "the term's slug (a category's under its parents'), then the view's segments"
PAGE_ROUTES: tuple[RouteSpec, ...] = (
    page("/events", "views", "events"),
    page("/events/list", "views", "list"),
    page("/events/list/page/<int:page>", "views", "list_page", page="the page number"),
    page("/events/month", "views", "month"),
    page("/events/month/<slug:month>", "views", "month_of", month="a month, YYYY-MM"),
    page("/events/today", "views", "today"),
    page("/events/<slug:day>", "views", "day", day="a day, YYYY-MM-DD"),
    page("/events/category/<path:terms>", "terms", "category", terms=TERM_PATH),
    page("/events/tag/<path:terms>", "terms", "events_tag", terms=TERM_PATH),
    page("/tag/<path:terms>", "terms", "tag", terms=TERM_PATH),
    page("/static/<slug:name>", "static", "file", name="the file name, with its hash"),
    # last: what no page above serves, under the site's prefixes, is an HTML 404
    page("/events/<path:rest>", "missing", "missing", rest=MISSING),
    page("/event/<path:rest>", "missing", "missing", rest=MISSING),
    page("/venue/<path:rest>", "missing", "missing", rest=MISSING),
    page("/organizer/<path:rest>", "missing", "missing", rest=MISSING),
)
