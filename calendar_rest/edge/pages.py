"""What the pipeline does differently for the public pages (``site/``, ``site.md``).

A page route goes down the API's pipeline, with three differences kept here: the
site root ``/`` shows the default view to a client whose ``Accept`` prefers HTML
(and varies on ``Accept`` for everyone); a page never authenticates (an
``Authorization`` header changes nothing, so every page is cacheable); and a
page's failure is an HTML page with the same status, never a JSON body.

TEC's iCalendar aliases are the API's feeds, served by the API's own routes (the
same bytes): ``/events/?ical=1`` is ``/events.ics`` with the rest of the query, and
``/event/{slug}/ical/`` is ``/events/{id}.ics``. WordPress's ``/?post_type=…&p=ID``
permalinks (of unpublished records) go to the site's permalink page. A page's
``POST`` (the password form) holds the caller's address under the login throttle.
"""

from __future__ import annotations

import logging
import typing as t
from urllib.parse import urlencode

import peewee
from werkzeug.datastructures import ImmutableMultiDict

from ..db import connected
from ..errors import RestError
from ..media_types import HTML, prefers_html
from ..queries.lookups.events import event_by_slug
from ..routes import Route, route_table
from ..settings import Settings
from ..site import (
    EVENT_ICAL_KEY,
    HOME_KEY,
    ICAL_VIEW_KEYS,
    PAGE_CLASSES,
    PAGE_ROUTES,
    PERMALINK_KEY,
    PERMALINK_TYPES,
    bare_error_page,
    error_page,
)
from .answer import Answer
from .auth import Authenticator
from .http import Request, reply_response, urls_for

log = logging.getLogger("calendar_rest")
#: the resource classes of the page routes (bound beside the API's)
PAGE_RESOURCE_CLASSES = PAGE_CLASSES
#: the API's feed routes TEC's iCalendar aliases answer with
ARCHIVE_FEED_KEY, EVENT_FEED_KEY = "events.ics", "events.item_ics"
Values = t.Mapping[str, t.Any]


def page_routes(settings: Settings) -> tuple[Route, ...]:
    """The pages' routes, matched after the API's; none while ``site_pages`` is off
    (their paths are 404s, as before the site existed)."""
    return route_table(PAGE_CLASSES, PAGE_ROUTES) if settings.site_pages else ()


def is_page(route: Route) -> bool:
    return route.spec.site and HTML in route.spec.media_types


def is_permalink(request: Request) -> bool:
    """WordPress's plain permalink of a record: ``/?post_type=<type>&p=<ID>``."""
    args = request.args
    return args.get("post_type") in PERMALINK_TYPES and str(args.get("p", "")).isdigit()


def drop_query(request: Request, name: str) -> None:
    """The request without the query parameter ``name`` (what the feed it is an alias
    of sees, and names in its ``SOURCE``)."""
    kept = [(key, value) for key, value in request.args.items(multi=True) if key != name]
    request.args = ImmutableMultiDict(kept)
    request.environ["QUERY_STRING"] = urlencode(kept)


class PageThrottle:
    """The login throttle's counter of one address, for a page's password form."""

    def __init__(self, authenticator: Authenticator, address: str) -> None:
        self.authenticator = authenticator
        self.address = address

    def locked_for(self) -> int:
        return self.authenticator.address_locked_for(self.address)

    def failed(self) -> None:
        self.authenticator.address_failed(self.address)


class Pages:
    """The pipeline's page-specific steps, bound to one app's route table."""

    def __init__(
        self,
        settings: Settings,
        routes_by_key: t.Mapping[str, Route],
        database: peewee.Database | None = None,
    ) -> None:
        self.settings = settings
        self.routes_by_key = routes_by_key
        self.database = database
        self.home = routes_by_key.get(HOME_KEY) if settings.site_pages else None

    def route_for(self, route: Route, request: Request, values: Values) -> tuple[Route, Values]:
        """The route that serves the request, and its path values: ``/`` is the default
        view to a client preferring HTML (or the permalink page of ``?post_type=…&p=``),
        TEC's iCalendar aliases are the API's feeds. Marks the request a page's (and
        ``/``'s as negotiated)."""
        if self.home is not None and route.spec.site and route.spec.path == "/":
            if is_permalink(request):
                route = self.routes_by_key[PERMALINK_KEY]
            else:
                request.negotiated = True  # ``Vary: Accept`` on both answers
                if prefers_html(request.environ.get("HTTP_ACCEPT")):
                    route = self.home
        if self.home is not None and route.key in ICAL_VIEW_KEYS and "ical" in request.args:
            drop_query(request, "ical")
            route, values = self.routes_by_key[ARCHIVE_FEED_KEY], {}
            request.media_type = route.spec.media_types[0]
        elif self.home is not None and route.key == EVENT_ICAL_KEY:
            route, values = self.routes_by_key[EVENT_FEED_KEY], {"id": self.event_id(values)}
            request.media_type = route.spec.media_types[0]
        request.page = is_page(route)
        if request.page:
            request.media_type = HTML
        return route, values

    def shows_page(self, route: Route, request: Request) -> bool:
        """Whether ``route`` answers ``request`` with a page, decided without a query
        (for a refusal before routing, such as a rate limit's 429)."""
        if self.home is not None and route.spec.site and route.spec.path == "/":
            return prefers_html(request.environ.get("HTTP_ACCEPT"))
        return is_page(route)

    def event_id(self, values: Values) -> int:
        """The ID of the event ``/event/{slug}/ical/`` names (0, which no event has,
        for an unknown slug: the feed's 404)."""
        assert self.database is not None
        with connected(self.database):
            event = event_by_slug(str(values.get("slug", "")))
        return event.id if event is not None else 0

    def error_response(self, error: RestError, request: Request) -> Answer:
        """``error`` as an HTML page in the request's language, same status; a bare
        page when its template fails (a broken override must not become a crash)."""
        urls = urls_for(request, self.settings.site_url)
        try:
            reply = error_page(error, self.settings, urls, request.language)
        except Exception:  # noqa: BLE001 - the error path must always answer
            log.exception("the error page failed on %s %s", request.method, request.path)
            reply = bare_error_page(error.status)
        return reply_response(reply)
