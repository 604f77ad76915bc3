"""What the pipeline does differently for the public pages (``site/``, ``site.md``).

A page route goes down the API's pipeline, with three differences kept here: the
site root ``/`` shows the default view to a client whose ``Accept`` prefers HTML
(and varies on ``Accept`` for everyone); a page never authenticates (an
``Authorization`` header changes nothing, so every page is cacheable); and a
page's failure is an HTML page with the same status, never a JSON body.
"""

from __future__ import annotations

import logging
import typing as t

from ..errors import RestError
from ..media_types import HTML, prefers_html
from ..routes import Route, route_table
from ..settings import Settings
from ..site import HOME_KEY, PAGE_CLASSES, PAGE_ROUTES, bare_error_page, error_page
from .answer import Answer
from .http import Request, reply_response, urls_for

log = logging.getLogger("calendar_rest")
#: the resource classes of the page routes (bound beside the API's)
PAGE_RESOURCE_CLASSES = PAGE_CLASSES


def page_routes(settings: Settings) -> tuple[Route, ...]:
    """The pages' routes, matched after the API's; none while ``site_pages`` is off
    (their paths are 404s, as before the site existed)."""
    return route_table(PAGE_CLASSES, PAGE_ROUTES) if settings.site_pages else ()


def is_page(route: Route) -> bool:
    return route.spec.site and HTML in route.spec.media_types


class Pages:
    """The pipeline's page-specific steps, bound to one app's route table."""

    def __init__(self, settings: Settings, routes_by_key: t.Mapping[str, Route]) -> None:
        self.settings = settings
        self.home = routes_by_key.get(HOME_KEY) if settings.site_pages else None

    def route_for(self, route: Route, request: Request) -> Route:
        """The route that serves the request: ``/`` is the default view to a client
        preferring HTML. Marks the request a page's (and ``/``'s as negotiated)."""
        if self.home is not None and route.spec.site and route.spec.path == "/":
            request.negotiated = True  # ``Vary: Accept`` on both answers
            if prefers_html(request.environ.get("HTTP_ACCEPT")):
                route = self.home
        request.page = is_page(route)
        if request.page:
            request.media_type = HTML
        return route

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
