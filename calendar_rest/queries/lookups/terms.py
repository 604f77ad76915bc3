"""Category and tag look-ups: by ID, slug or name, their links to events, their tree.

Term tables are small and per taxonomy; categories form a tree through ``parent``,
which the functions here read in one statement when they need it.
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ...db import among, in_batches
from ...models import EventTerm, Term, could_exist
from ...wordpress.taxonomies import CATEGORIES, Taxonomy, taxonomy_of
from ...wordpress.text import slugify
from ..sql.statements import built


def term_by_id(taxonomy: Taxonomy, term_id: int) -> Term | None:
    """None for an ID no INTEGER column can hold (the driver would overflow)."""
    if not could_exist(term_id):
        return None
    found: Term | None = (
        Term.select().where((Term.taxonomy == taxonomy.name) & (Term.id == term_id)).first()
    )
    return found


def find_term(taxonomy: Taxonomy, item: int | str) -> Term | None:
    """A term named by ID, or by slug, or by name in any case (event writes name terms
    these three ways)."""
    query = Term.select().where(Term.taxonomy == taxonomy.name)
    if isinstance(item, int):
        by_id: Term | None = query.where(Term.id == item).first() if could_exist(item) else None
        return by_id
    slug = slugify(item)
    by_slug = query.where(Term.slug == slug).first() if slug else None
    found: Term | None = by_slug or query.where(pw.fn.LOWER(Term.name) == item.lower()).first()
    return found


def find_terms(taxonomy: Taxonomy, items: t.Sequence[int | str]) -> list[Term | None]:
    """:func:`find_term` of each item, in at most three statements (IDs, slugs, then
    the names no slug found): an event write names up to a hundred terms a taxonomy."""
    ids = [item for item in items if isinstance(item, int) and could_exist(item)]
    slugs = {item: slugify(item) for item in items if isinstance(item, str)}
    of_taxonomy = Term.select().where(Term.taxonomy == taxonomy.name)
    by_id = {term.id: term for term in of_taxonomy.where(Term.id.in_(ids))} if ids else {}
    wanted_slugs = sorted({slug for slug in slugs.values() if slug})
    by_slug: dict[str, Term] = {}
    if wanted_slugs:
        by_slug = {term.slug: term for term in of_taxonomy.where(Term.slug.in_(wanted_slugs))}
    names = sorted({item.lower() for item, slug in slugs.items() if slug not in by_slug})
    by_name: dict[str, Term] = {}
    if names:
        for named in of_taxonomy.where(pw.fn.LOWER(Term.name).in_(names)).order_by(Term.id):
            by_name.setdefault(named.name.lower(), named)
    found: list[Term | None] = []
    for item in items:
        if isinstance(item, int):
            found.append(by_id.get(item))
            continue
        match = by_slug.get(slugs[item]) or by_name.get(item.lower())
        if match is None and by_name:  # the database's collation may equal more than case
            match = find_term(taxonomy, item)
        found.append(match)
    return found


def existing_term_ids(taxonomy: Taxonomy, ids: list[int]) -> set[int]:
    query = Term.select(Term.id).where((Term.taxonomy == taxonomy.name) & Term.id.in_(ids or [0]))
    return {row.id for row in query}


def taxonomy_index(taxonomy: Taxonomy) -> list[tuple[int, str, str, int | None]]:
    """``(id, slug, name, parent)`` of every term of the taxonomy: the archive resolves
    filters by slug, name or ID, with descendants, from this one read (its statement
    built once: ``statements.built``)."""
    sql, params = built(
        ("taxonomy index", taxonomy.name),
        lambda: Term.select(Term.id, Term.slug, Term.name, Term.parent).where(
            Term.taxonomy == taxonomy.name
        ),
    )
    rows = Term._meta.database.execute_sql(sql, list(params)).fetchall()
    return [tuple(row) for row in rows]


def category_parents() -> dict[int, int | None]:
    """The parent of every category (one read of the small parent column)."""
    sql, params = built(
        ("category parents",),
        lambda: Term.select(Term.id, Term.parent).where(Term.taxonomy == CATEGORIES.name),
    )
    return dict(Term._meta.database.execute_sql(sql, list(params)).fetchall())


def descendants(parents: t.Mapping[int, int | None], roots: t.Iterable[int]) -> set[int]:
    """Every term below ``roots`` in the tree ``parents`` describes (roots excluded)."""
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        if parent:
            children.setdefault(parent, []).append(child)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def descendant_ids(term_id: int) -> set[int]:
    """Every category below ``term_id``."""
    return descendants(category_parents(), [term_id])


def category_ancestry(terms: t.Iterable[Term]) -> dict[int, tuple[int | None, str]]:
    """Parent and slug of every category, read only when one of ``terms`` is nested."""
    nested = any(term.parent_id and taxonomy_of(term.taxonomy).hierarchical for term in terms)
    if not nested:
        return {}
    sql, params = built(
        ("category ancestry",),
        lambda: Term.select(Term.id, Term.parent, Term.slug).where(
            Term.taxonomy == CATEGORIES.name
        ),
    )
    rows = Term._meta.database.execute_sql(sql, list(params))
    return {term_id: (parent_id, slug) for term_id, parent_id, slug in rows}


def name_taken(
    taxonomy: Taxonomy,
    name: str,
    parent_id: int | None,
    language: str,
    exclude_id: int | None = None,
) -> Term | None:
    """The term already named ``name`` (any case) where WordPress forbids a second one:
    under the same parent for categories, anywhere for tags; per language, because
    translations are separate terms."""
    query = Term.select().where(
        (Term.taxonomy == taxonomy.name)
        & (Term.language == language)
        & (pw.fn.LOWER(Term.name) == name.lower())
    )
    if taxonomy.hierarchical:
        query = query.where(Term.parent.is_null() if not parent_id else Term.parent == parent_id)
    if exclude_id is not None:
        query = query.where(Term.id != exclude_id)
    found: Term | None = query.first()
    return found


def slug_owner(taxonomy: Taxonomy, slug: str, exclude_id: int) -> Term | None:
    found: Term | None = (
        Term.select()
        .where((Term.taxonomy == taxonomy.name) & (Term.slug == slug) & (Term.id != exclude_id))
        .first()
    )
    return found


def taken_term_slugs(taxonomy: Taxonomy, base: str) -> set[str]:
    """The slugs of the taxonomy that are ``base`` or start with ``base-``."""
    query = Term.select(Term.slug).where(
        (Term.taxonomy == taxonomy.name) & ((Term.slug == base) | Term.slug.startswith(f"{base}-"))
    )
    return {row.slug for row in query}


def event_term_ids(event_id: int, taxonomy: Taxonomy | None = None) -> set[int]:
    """The terms an event carries (of one taxonomy, if given)."""
    query = EventTerm.select(EventTerm.term).where(EventTerm.event == event_id)
    if taxonomy is not None:
        query = query.join(Term).where(Term.taxonomy == taxonomy.name)
    return {link.term_id for link in query}


def terms_of_events(event_ids: t.Sequence[int], taxonomy: Taxonomy | None = None) -> set[int]:
    """The terms any of ``event_ids`` carries (of one taxonomy, if given), in a query
    per batch of events."""
    found: set[int] = set()
    for batch in in_batches(event_ids):
        query = EventTerm.select(EventTerm.term).where(among(EventTerm.event, batch)).distinct()
        if taxonomy is not None:
            query = query.join(Term).where(Term.taxonomy == taxonomy.name)
        found.update(term_id for (term_id,) in t.cast("t.Iterable[tuple[int]]", query.tuples()))
    return found
