"""Where a page's links point: the pages (under the mount point and language root),
the API URL returning the same records, and the iCalendar feed of them
(``calendar.md`` §1) with its subscribe links."""

from __future__ import annotations

import dataclasses
import typing as t
from urllib.parse import quote, urlencode

from ..settings import DEFAULT_LANGUAGE, LANGUAGES
from ..wordpress.urls import Urls, public_prefix

Query = t.Sequence[tuple[str, str]]


def with_query(url: str, query: Query) -> str:
    return f"{url}?{urlencode(list(query))}" if query else url


@dataclasses.dataclass(frozen=True)
class SiteLinks:
    """The link builder of one page request."""

    urls: Urls
    language: str

    def page(self, path: str, query: Query = (), language: str | None = None) -> str:
        """A page's absolute URL: ``path`` starts at the site root (``/events/list/``)."""
        prefix = public_prefix(language or self.language)
        return with_query(f"{self.urls.site}{prefix}{path}", query)

    def static(self, name: str) -> str:
        """A static file's URL: never under the language root (one copy serves both)."""
        return f"{self.urls.site}/static/{name}"

    def api(self, path: str, query: Query = ()) -> str:
        """The API URL of ``path`` below the namespace, in the page's language."""
        return with_query(f"{self.urls.rest_base}/{path}", query)

    def other_languages(self) -> list[str]:
        return [language for language in LANGUAGES if language != self.language]


@dataclasses.dataclass(frozen=True)
class Subscription:
    """The feed of exactly what a page lists, and the ways to subscribe to it."""

    feed: str
    name: str

    @property
    def webcal(self) -> str:
        return "webcal://" + self.feed.split("://", 1)[1]

    @property
    def google(self) -> str:
        """Google Calendar's "add by URL" (it takes the webcal address)."""
        return "https://calendar.google.com/calendar/render?cid=" + quote(self.webcal, safe="")

    @property
    def outlook(self) -> str:
        query = urlencode({"url": self.webcal, "name": self.name})
        return f"https://outlook.live.com/calendar/0/addfromweb?{query}"


def feed_of(links: SiteLinks, api_query: Query, name: str) -> Subscription:
    return Subscription(links.api("events.ics", api_query), name)


def is_default(language: str) -> bool:
    return language == DEFAULT_LANGUAGE
