"""URLs that appear in bodies: permalinks, REST links and TEC's global IDs."""

from __future__ import annotations

import dataclasses
import functools
import typing as t
from urllib.parse import urlencode, urlsplit

from ..settings import DEFAULT_LANGUAGE, NAMESPACE

#: post type names in unpublished permalinks (TEC's, with ``calendar`` for ``tribe``)
POST_TYPES = {
    "event": "calendar_events",
    "venue": "calendar_venue",
    "organizer": "calendar_organizer",
}


@dataclasses.dataclass(frozen=True)
class Urls:
    """Link builder for one request.

    :param site: the site root as mounted, without a trailing slash
        (``http://example.com/api``).
    :param language_prefix: ``""`` or ``"/fr"`` for the French root.
    """

    site: str
    language_prefix: str = ""

    def __hash__(self) -> int:  # a memo key of every representation: hashed once
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.site, self.language_prefix))

    @property
    def rest_base(self) -> str:
        """The namespace root as mounted: ``http://example.com/api/fr/calendar/events/v1``."""
        return f"{self.site}{self.language_prefix}/{NAMESPACE}"

    @property
    def api_root(self) -> str:
        """The REST root the namespace lives under (WordPress's ``/wp-json/``)."""
        return f"{self.site}{self.language_prefix}/"

    def rest(self, path: str, query: dict[str, str] | None = None) -> str:
        url = f"{self.rest_base}/{path.lstrip('/')}"
        return f"{url}?{encoded(tuple(query.items()), ',:')}" if query else url

    def rest_link(self, path: str, query: t.Sequence[tuple[str, str]]) -> str:
        """A link to another page of a list, fit for a ``Link`` header: its query is
        percent-encoded (RFC 3986), commas included, since clients split on them."""
        url = f"{self.rest_base}/{path.lstrip('/')}"
        return f"{url}?{encoded(tuple(query), ':')}" if query else url

    def permalink(self, kind: str, record_id: int, slug: str, status: str, language: str) -> str:
        """Pretty permalink for public records, ``?post_type=…&p=ID`` for the rest; like
        WPML's, it follows the record's own ``language``, not the request's."""
        if status in ("publish", "private") and slug:
            return f"{self.site}{public_prefix(language)}/{kind}/{slug}/"
        return f"{self.site}/?post_type={POST_TYPES[kind]}&p={record_id}"

    def term_link(self, taxonomy_path: str, slug: str, language: str) -> str:
        """A term's public archive page, in the term's own ``language``."""
        return f"{self.site}{public_prefix(language)}/{taxonomy_path}/{slug}/"

    def global_id(self, record_id: int, kind: str = "event") -> str:
        """TEC's global ID: host and path of the site (no scheme, no port) + ``?id=``;
        IDs are per table here, so venues and organizers add their type (events keep
        TEC's form), which keeps global IDs unique across record types."""
        parts = urlsplit(self.site)
        base = f"{parts.hostname or ''}{parts.path.rstrip('/')}?id={record_id}"
        return base if kind == "event" else f"{base}&type={kind}"


def public_prefix(language: str) -> str:
    """The path prefix of a language's public pages: none for the default language."""
    return "" if language == DEFAULT_LANGUAGE else f"/{language}"


def encoded(query: tuple[tuple[str, str], ...], safe: str) -> str:
    """``urlencode``, kept per query (every page of a list links the same few); a query
    holding something unhashable is encoded every time."""
    try:
        return _encoded(query, safe)
    except TypeError:
        return urlencode(query, safe=safe)


@functools.lru_cache(maxsize=1024)
def _encoded(query: tuple[tuple[str, str], ...], safe: str) -> str:
    return urlencode(query, safe=safe)
