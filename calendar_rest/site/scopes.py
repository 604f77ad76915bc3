"""What a view is narrowed to: the whole calendar, a category or a tag.

A scope is the path its views hang under (``/events``, ``/events/category/{slug}``,
``/tag/{slug}``) and the API parameter that narrows ``GET /events`` the same way
(``categories`` includes the sub-categories, as the API's filter does).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Scope:
    #: the path the scope's views hang under, without a trailing slash
    base: str = "/events"
    #: the API parameters narrowing the archive to the scope
    params: tuple[tuple[str, str], ...] = ()
    #: the term's slug, shown in the heading (its name once the events name it)
    term: str = ""
    #: ``categories`` or ``tags`` for a term archive
    taxonomy: str = ""

    def path(self, tail: str = "") -> str:
        """``tail`` (``list/``, ``2026-11-28/``) under the scope: ``/tag/jazz/list/``."""
        return f"{self.base}/{tail}"


WHOLE_CALENDAR = Scope()


def category(slug: str, nesting: str) -> Scope:
    """A category archive: ``nesting`` is its path as the URL gave it (``parent/child``)."""
    return Scope(f"/events/category/{nesting}", (("categories", slug),), slug, "categories")


def tag(slug: str, base: str = "/tag") -> Scope:
    return Scope(f"{base}/{slug}", (("tags", slug),), slug, "tags")
