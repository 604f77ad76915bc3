"""The HTML error pages: a page route's failure answered with the same status as
the API's (400 naming the bad parameter, 404 for anything unknown or not public),
never a JSON body; and the catch-all routes that make an unknown path under the
site's prefixes a 404 page."""

from __future__ import annotations

from ..errors import InvalidParams, RestError
from ..i18n.catalogs import translator
from ..media_types import HTML_CONTENT_TYPE
from ..responders import Call, Resource
from ..settings import Settings
from ..wire.reply import Reply
from ..wordpress.urls import Urls
from .frame import PAGE_HEADERS, Frame, frame_context
from .rendering import render
from .texts import BAD_REQUEST, FAILED, NOT_FOUND, TOO_MANY_REQUESTS


class Missing(Resource):
    """Every path under ``/events/``, ``/event/``, ``/venue/``, ``/organizer/`` and
    ``/tag/`` that no page serves."""

    cacheable = False

    def on_get_missing(self, call: Call, rest: str = "") -> Reply:
        raise RestError("rest_no_route", 404)


def error_page(error: RestError, settings: Settings, urls: Urls, language: str) -> Reply:
    """``error`` as a page, in ``language``: its status, what went wrong in words, and
    for a 400 the parameters at fault."""
    translate = translator(language)
    params = list(error.errors.messages) if isinstance(error, InvalidParams) else []
    if error.status == 404:
        title = translate(NOT_FOUND)
    elif error.status == 400:
        title = translate(BAD_REQUEST)
    elif error.status == 429:
        title = translate(TOO_MANY_REQUESTS)
    else:
        title = translate(FAILED)
    frame = Frame(title=title, path="/events/")
    context = {
        **frame_context(urls, language, settings, frame),
        "status": error.status,
        "params": params,
    }
    body = render(settings.site_templates_dir, "error.html", language, context)
    # the error's own headers go with it (a 429's ``Retry-After``)
    return Reply(body, error.status, [*PAGE_HEADERS, *error.headers.items()], HTML_CONTENT_TYPE)


def bare_error_page(status: int) -> Reply:
    """The status alone, as a minimal page: what answers when the error page's own
    template fails."""
    body = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{status}</title>'
        f"</head><body><main><h1>{status}</h1></main></body></html>"
    ).encode()
    return Reply(body, status, list(PAGE_HEADERS), HTML_CONTENT_TYPE)
