"""What every page shows around its events, and the reply that carries a page.

A view fills a :class:`Frame` (its title, canonical path, query, the API filter of
what it lists) and hands it to :func:`page_reply` with its template and context: the
frame adds the site title, the navigation between the views, the search and date
forms, the language switch, the subscribe menu and the ``<head>`` links (canonical,
hreflang, the iCalendar and JSON alternates, previous and next), and the reply gets
the headers of ``site.md`` §6.
"""

from __future__ import annotations

import dataclasses
import typing as t
from urllib.parse import urlsplit

from ..i18n.catalogs import translator
from ..media_types import HTML_CONTENT_TYPE
from ..responders import Call
from ..settings import Settings
from ..wire.reply import Reply
from ..wordpress.urls import Urls
from . import texts
from .assets import stylesheet_name
from .links import Query, SiteLinks, feed_of
from .rendering import render

#: ``site.md`` §6, exactly (no ``unsafe-inline``: no inline script or style)
CSP = (
    "default-src 'self'; img-src 'self' https: data:; object-src 'none'; "
    "base-uri 'self'; frame-ancestors 'self'"
)
PAGE_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "strict-origin-when-cross-origin"),
)
#: the views of the navigation, in its order: (name, label, path)
VIEWS = (
    ("list", texts.LIST, "/events/list/"),
    ("month", texts.MONTH, "/events/month/"),
    ("day", texts.DAY, "/events/today/"),
)
LANGUAGE_NAMES = {"en": "English", "fr": "Français"}


@dataclasses.dataclass
class Frame:
    """One page as the frame sees it; the view fills it."""

    #: the page's own title (the site title follows it in ``<title>``)
    title: str
    #: the canonical path from the site root (``/events/list/``), its query after it
    path: str
    query: Query = ()
    #: the view the navigation marks current (``list``, ``month``, ``day``, or "")
    view: str = ""
    #: the API parameters of exactly what the page lists (feed and JSON alternates)
    api_query: Query = ()
    description: str = ""
    #: the date the date picker shows, the search words the search form shows
    date: str = ""
    search: str = ""
    #: the paths (with their query) of the previous and next pages, if any
    prev: str | None = None
    next: str | None = None
    #: where the navigation's views point: the same term archive, or the whole calendar
    view_base: str = "/events"
    #: where the search and date forms send their query (default: ``path``), and what
    #: they send again as hidden fields (the list's ``past=1``)
    form_path: str = ""
    form_fields: Query = ()
    #: what the previous and next links say (English; translated for the page)
    prev_label: str = texts.PREVIOUS_PAGE
    next_label: str = texts.NEXT_PAGE
    pager_label: str = texts.PAGES


def page_reply(
    call: Call, settings: Settings, frame: Frame, template: str, context: t.Mapping[str, t.Any]
) -> Reply:
    """The page: ``template`` rendered with ``context`` and the frame's values."""
    body = render(
        settings.site_templates_dir,
        template,
        call.language,
        {**frame_context(call.urls, call.language, settings, frame), **context},
    )
    return Reply(body, headers=list(PAGE_HEADERS), content_type=HTML_CONTENT_TYPE)


def site_title(urls: Urls, settings: Settings) -> str:
    """``calendar_name``, else the host the site is reached at."""
    return settings.calendar_name or urlsplit(urls.site).hostname or ""


def frame_context(urls: Urls, language: str, settings: Settings, frame: Frame) -> dict[str, t.Any]:
    """The values ``base.html`` reads."""
    links = SiteLinks(urls, language)
    translate = translator(language)
    name = site_title(urls, settings)
    views_base = frame.view_base.rstrip("/")
    navigation = [
        {
            "name": view,
            "label": translate(label),
            "url": links.page(views_base + path.removeprefix("/events")),
            "current": view == frame.view,
        }
        for view, label, path in VIEWS
    ]
    return {
        "language": language,
        "site_title": name,
        "page": frame,
        "home_url": links.page("/events/"),
        "canonical": links.page(frame.path, frame.query),
        "alternates": [
            {"language": other, "url": links.page(frame.path, frame.query, other)}
            for other in (language, *links.other_languages())
        ],
        "switch": [
            {
                "language": other,
                "name": LANGUAGE_NAMES[other],
                "url": links.page(frame.path, frame.query, other),
            }
            for other in links.other_languages()
        ],
        "navigation": navigation,
        "action": links.page(frame.form_path or frame.path),
        "prev_label": translate(frame.prev_label),
        "next_label": translate(frame.next_label),
        "pager_label": translate(frame.pager_label),
        "subscription": feed_of(links, frame.api_query, name),
        "json_url": links.api("events", frame.api_query),
        "stylesheet": links.static(stylesheet_name()),
        "prev_url": links.page(frame.prev) if frame.prev else None,
        "next_url": links.page(frame.next) if frame.next else None,
        "links": links,
    }
