"""The pager every list uses: page and page size, totals, and TEC's list wrapper.

One page of any archive is answered the same way: ``total`` and ``total_pages`` in
the body and in TEC's and WordPress's headers (``X-TEC-Total``, ``X-WP-Total``...),
``next_rest_url``/``previous_rest_url`` where they apply and the same links in a
``Link`` header. ``rest_url`` echoes the effective query as TEC does (defaults
included); the page links repeat the request's own query with only ``page`` replaced
(``open-web.md`` §9), so that replaying them, with the same credentials, always works.
"""

from __future__ import annotations

import dataclasses
import math
import typing as t

from ..settings import Settings
from ..wordpress.urls import Urls
from .reply import Reply

#: ``Link`` relation of each page link
RELATIONS = {"next_rest_url": "next", "previous_rest_url": "prev"}


@dataclasses.dataclass(frozen=True)
class Pager:
    """Which page of a list a request asked for."""

    page: int
    per_page: int

    @classmethod
    def from_args(cls, args: t.Mapping[str, t.Any], settings: Settings) -> Pager:
        """``page`` (validated, default 1) and ``per_page``: the site's default when
        absent, capped at ``max_per_page`` (larger values are not refused)."""
        per_page = min(args.get("per_page", settings.default_per_page), settings.max_per_page)
        return cls(int(args.get("page", 1)), per_page)

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def total_pages(self, total: int) -> int:
        return math.ceil(total / self.per_page) if total else 0

    def past_the_end(self, items_on_page: int) -> bool:
        """A page after the last: nothing on it, and it is not the first page (an
        empty first page is an empty list, not a missing page)."""
        return items_on_page == 0 and self.page > 1

    def reply(
        self,
        key: str,
        items: list[dict[str, t.Any]],
        total: int,
        filters: dict[str, str],
        urls: Urls,
        own_query: t.Sequence[tuple[str, str]],
        *,
        terms_order: bool = False,
        path: str | None = None,
    ) -> Reply:
        """The list wrapper and its headers.

        Post lists read ``{key, rest_url, next, previous, total, total_pages}``; TEC's
        term lists (``terms_order``) read ``{rest_url, total, total_pages, key, next,
        previous}``. ``filters`` is the rest of the effective query, in the order TEC
        echoes it after ``page`` and ``per_page`` in ``rest_url``; ``own_query`` is the
        request's query string, which the page links repeat. ``path`` is the list's
        route when it is not ``key`` (``events/{id}/occurrences``).
        """
        query = {"page": str(self.page), "per_page": str(self.per_page), **filters}
        total_pages = self.total_pages(total)
        rest_url = urls.rest(f"{path or key}/", query)
        links = self.links(path or key, own_query, total_pages, urls)
        totals = {"total": total, "total_pages": total_pages}
        if terms_order:
            body = {"rest_url": rest_url, **totals, key: items, **links}
        else:
            body = {key: items, "rest_url": rest_url, **links, **totals}
        return Reply(body, headers=list_headers(total, total_pages, links))

    def links(
        self, key: str, own_query: t.Sequence[tuple[str, str]], total_pages: int, urls: Urls
    ) -> dict[str, str]:
        """``next_rest_url``/``previous_rest_url`` where they apply: the request's own
        query with ``page`` replaced (dropped for the first page)."""
        links = {}
        if self.page < total_pages:
            links["next_rest_url"] = urls.rest_link(f"{key}/", _paged(own_query, self.page + 1))
        if self.page > 1:
            links["previous_rest_url"] = urls.rest_link(f"{key}/", _paged(own_query, self.page - 1))
        return links


def list_headers(
    total: int, total_pages: int, links: dict[str, str], *, tec: bool = True
) -> list[tuple[str, str]]:
    """WordPress's totals headers (after TEC's, unless a core-style list), and the page
    links as a ``Link`` header."""
    headers = [("X-TEC-Total", str(total)), ("X-TEC-TotalPages", str(total_pages))] if tec else []
    headers += [("X-WP-Total", str(total)), ("X-WP-TotalPages", str(total_pages))]
    if links:
        relations = (f'<{url}>; rel="{RELATIONS[name]}"' for name, url in links.items())
        headers.append(("Link", ", ".join(relations)))
    return headers


def _paged(query: t.Sequence[tuple[str, str]], page: int) -> list[tuple[str, str]]:
    """``query`` asking for ``page``: in the place of the first ``page``, else last."""
    pairs: list[tuple[str, str]] = []
    placed = page == 1
    for name, value in query:
        if name != "page":
            pairs.append((name, value))
        elif not placed:
            pairs.append(("page", str(page)))
            placed = True
    if not placed:
        pairs.append(("page", str(page)))
    return pairs
