"""Categories and tags as their own routes return them (TEC's reshaped core term object).

Keys in emission order: ``id, count, description, name, slug, taxonomy, parent``
(categories only), ``meta, url, urls``. Single reads and writes append WordPress's
HAL ``_links``; TEC's point at core's ``wp/v2`` routes, ours at the same paths under
our site, so clients that read the key set and types keep working. Every term object
then ends with the additive ``language`` and ``translations`` (``wire.translations``).
Embedded terms (inside events) keep their own shape: see ``wire.terms``.
"""

from __future__ import annotations

import typing as t

from ..models import Term
from ..queries.loaded import Translations
from ..wordpress.taxonomies import taxonomy_of
from ..wordpress.urls import Urls
from .languages import add_language
from .terms import term_urls

#: parent id and slug of categories, enough to build nested archive links
Ancestry = t.Mapping[int, tuple[int | None, str]]


def term_object(
    term: Term, urls: Urls, ancestry: Ancestry, translations: Translations
) -> dict[str, t.Any]:
    """The plain term: list items and DELETE responses."""
    data = _core_fields(term, urls, ancestry)
    add_language(data, term, translations)
    return data


def _core_fields(term: Term, urls: Urls, ancestry: Ancestry) -> dict[str, t.Any]:
    data: dict[str, t.Any] = {
        "id": term.id,
        "count": term.count,
        "description": term.description,
        "name": term.name,
        "slug": term.slug,
        "taxonomy": term.taxonomy,
    }
    if taxonomy_of(term.taxonomy).hierarchical:
        data["parent"] = term.parent_id or 0
    data["meta"] = []
    data["url"] = public_link(term, urls, ancestry)
    data["urls"] = term_urls(term, urls)
    return data


def single_term_object(
    term: Term, urls: Urls, ancestry: Ancestry, translations: Translations
) -> dict[str, t.Any]:
    """The term with ``_links``: single GET, create and update responses."""
    data = {**_core_fields(term, urls, ancestry), "_links": core_links(term, urls)}
    add_language(data, term, translations)
    return data


def public_link(term: Term, urls: Urls, ancestry: Ancestry) -> str:
    """The public archive page: categories nest under every ancestor's slug (WordPress's
    hierarchical term links), tags live under ``/tag/``."""
    taxonomy = taxonomy_of(term.taxonomy)
    slugs: list[str] = []
    seen = {term.id}
    parent = term.parent_id if taxonomy.hierarchical else None
    while parent and parent in ancestry and parent not in seen:
        seen.add(parent)
        parent, slug = ancestry[parent]
        slugs.append(slug)
    path = "/".join([taxonomy.archive_path, *reversed(slugs)])
    return urls.term_link(path, term.slug, term.language)


def core_link(urls: Urls, path: str) -> str:
    """Where core's ``wp/v2`` route would live on our site."""
    return f"{urls.site}{urls.language_prefix}/wp-json/wp/v2/{path}"


def core_links(term: Term, urls: Urls) -> dict[str, list[dict[str, t.Any]]]:
    taxonomy = taxonomy_of(term.taxonomy)
    base = taxonomy.core_base
    links: dict[str, list[dict[str, t.Any]]] = {
        "self": [{"href": core_link(urls, f"{base}/{term.id}")}],
        "collection": [{"href": core_link(urls, base)}],
        "about": [{"href": core_link(urls, f"taxonomies/{term.taxonomy}")}],
    }
    if term.parent_id:
        links["up"] = [{"embeddable": True, "href": core_link(urls, f"{base}/{term.parent_id}")}]
    links["wp:post_type"] = [
        {"href": core_link(urls, f"{post_type}?{param}={term.id}")}
        for post_type, param in taxonomy.post_type_links
    ]
    links["curies"] = [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]
    return links
