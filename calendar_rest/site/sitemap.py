"""``/sitemap.xml`` and ``/robots.txt`` (``site.md`` §1).

The sitemap lists every public event, venue, organizer and term page, in both
languages (each record's own language first), with ``lastmod`` from the record's
``modified_utc``; events hidden from listings (and protected ones) are left out.
Past :data:`MOST_URLS` URLs it becomes a sitemap index of numbered parts,
``/sitemap-1.xml``…, as the sitemaps protocol asks. Both files are pages of the
route table: the response cache, ``ETag`` and 304 serve them as every page.
"""

from __future__ import annotations

import math
import typing as t
from xml.sax.saxutils import escape

from ..errors import RestError
from ..queries.lookups.sitemap import every_term, public_record_pages
from ..responders import Call, Resource
from ..settings import LANGUAGES
from ..wire.reply import Reply
from ..wire.term_objects import public_link
from ..wordpress.urls import Urls
from .links import SiteLinks

#: the most URLs one sitemap file may hold (the protocol's limit)
MOST_URLS = 50_000
XML = "application/xml; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
Entry = tuple[str, str]


def entries(urls: Urls) -> list[Entry]:
    """(URL, lastmod) of every public page, in both languages."""
    found: list[Entry] = []
    for kind, slug, modified in public_record_pages():
        lastmod = f"{modified:%Y-%m-%dT%H:%M:%S}+00:00" if modified else ""
        for language in LANGUAGES:
            found.append((SiteLinks(urls, language).page(f"/{kind}/{slug}/"), lastmod))
    terms = every_term()
    ancestry = {term.id: (term.parent_id, term.slug) for term in terms}
    for term in terms:
        own = public_link(term, Urls(urls.site), ancestry)
        found += [(in_language(own, urls, term.language, other), "") for other in LANGUAGES]
    return found


def in_language(url: str, urls: Urls, own: str, language: str) -> str:
    """A term's page ``url`` (in its ``own`` language) under ``language``'s root."""
    path = url.removeprefix(SiteLinks(urls, own).page(""))
    return SiteLinks(urls, language).page(path)


def urlset(found: t.Sequence[Entry]) -> bytes:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<urlset xmlns="{NAMESPACE}">']
    for url, lastmod in found:
        modified = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        lines.append(f"<url><loc>{escape(url)}</loc>{modified}</url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode()


def sitemap_index(urls: Urls, parts: int) -> bytes:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<sitemapindex xmlns="{NAMESPACE}">']
    for number in range(1, parts + 1):
        lines.append(f"<sitemap><loc>{escape(part_url(urls, number))}</loc></sitemap>")
    lines.append("</sitemapindex>")
    return ("\n".join(lines) + "\n").encode()


def part_url(urls: Urls, number: int) -> str:
    return f"{urls.site}/sitemap-{number}.xml"


class Sitemap(Resource):
    """``/sitemap.xml`` (a urlset, or the index of its parts), ``/sitemap-{n}.xml``
    and ``/robots.txt``."""

    def on_get_sitemap(self, call: Call) -> Reply:
        found = entries(call.urls)
        if len(found) <= MOST_URLS:
            return Reply(urlset(found), content_type=XML)
        parts = math.ceil(len(found) / MOST_URLS)
        return Reply(sitemap_index(call.urls, parts), content_type=XML)

    def on_get_part(self, call: Call, part: int) -> Reply:
        found = entries(call.urls)
        if len(found) <= MOST_URLS or not 1 <= part <= math.ceil(len(found) / MOST_URLS):
            raise RestError("rest_no_route", 404)
        return Reply(urlset(found[(part - 1) * MOST_URLS : part * MOST_URLS]), content_type=XML)

    def on_get_robots(self, call: Call) -> Reply:
        body = f"User-agent: *\nAllow: /\n\nSitemap: {call.urls.site}/sitemap.xml\n"
        return Reply(body.encode(), content_type=TEXT)
