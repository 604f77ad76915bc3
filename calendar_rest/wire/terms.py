"""Term objects as events embed them (raw ``WP_Term`` fields plus ``id`` and ``urls``)."""

from __future__ import annotations

import typing as t

from ..models import TAXONOMY_CATEGORY, Term
from .translations import Translations, add_language
from .urls import Urls

COLLECTIONS = {TAXONOMY_CATEGORY: "categories", "post_tag": "tags"}


def term_urls(term: Term, urls: Urls) -> dict[str, str]:
    collection = urls.rest(COLLECTIONS[term.taxonomy])
    links = {"self": f"{collection}/{term.id}", "collection": collection}
    if term.parent_id:
        links["up"] = f"{collection}/{term.parent_id}"
    return links


def embedded_term(term: Term, urls: Urls, translations: Translations) -> dict[str, t.Any]:
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
