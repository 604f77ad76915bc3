"""Term objects as events embed them (raw ``WP_Term`` fields plus ``id`` and ``urls``)."""

from __future__ import annotations

import typing as t

from ..models import Term
from ..queries.loaded import Translations
from ..wordpress.taxonomies import taxonomy_of
from ..wordpress.urls import Urls
from .kept import kept, row_of
from .languages import add_language


def term_urls(term: Term, urls: Urls) -> dict[str, str]:
    collection = urls.rest(taxonomy_of(term.taxonomy).collection)
    links = {"self": f"{collection}/{term.id}", "collection": collection}
    if term.parent_id:
        links["up"] = f"{collection}/{term.parent_id}"
    return links


def embedded_term(term: Term, urls: Urls, translations: Translations) -> dict[str, t.Any]:
    """The term as an event embeds it, rendered once per content (``kept.py``): the same
    terms recur from event to event."""
    group = translations.group_key(term)
    return kept(("Term", urls, row_of(term), group), lambda: _embedded(term, urls, translations))


def _embedded(term: Term, urls: Urls, translations: Translations) -> dict[str, t.Any]:
    data: dict[str, t.Any] = {
        "name": term.name,
        "slug": term.slug,
        "term_group": 0,
        "term_taxonomy_id": term.id,
        "taxonomy": term.taxonomy,
        "description": term.description,
        "parent": term.parent_id or 0,
        "count": term.count,
        "filter": "raw",
        "id": term.id,
        "urls": term_urls(term, urls),
    }
    add_language(data, term, translations)
    return data
