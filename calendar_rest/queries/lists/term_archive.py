"""Category and tag lists as SQL: WordPress's ``get_terms`` filters and orderings.

Term tables are small and per taxonomy, so search is a plain ``LIKE`` on name and slug.
A page costs one COUNT and one select, plus one read of category parents when a
listed category is nested (for its archive link, ``terms.category_ancestry``),
whatever the page size.
"""

from __future__ import annotations

import dataclasses
import functools
import operator

import peewee as pw

from ...models import EventTerm, Term
from ..sql.statements import Statement, built, rows
from .counts import counted

#: ``orderby`` values WordPress knows, and the column each sorts by; ``include``,
#: ``include_slugs`` and ``none`` are handled apart, anything else sorts by name
ORDER_COLUMNS: dict[str, pw.Field] = {
    "id": Term.id,
    "term_id": Term.id,
    "term_taxonomy_id": Term.id,
    "name": Term.name,
    "slug": Term.slug,
    "count": Term.count,
    "parent": Term.parent,
    "description": Term.description,
}
#: sorted case-insensitively, as WordPress's MySQL collation does, on every backend
TEXT_ORDERS = frozenset({"name", "slug", "description"})
LIKE_ESCAPE = "!"


@dataclasses.dataclass
class TermFilters:
    """Validated, resolved list filters of one taxonomy."""

    taxonomy: str
    language: str
    hide_empty: bool = True
    search: str | None = None
    include: list[int] | None = None
    exclude: list[int] | None = None
    parent: int | None = None
    event: int | None = None
    slug: str | None = None
    orderby: str = "name"
    ascending: bool = True


def term_query(filters: TermFilters) -> pw.ModelSelect[Term]:
    """The filtered, unordered selection."""
    conditions = [Term.taxonomy == filters.taxonomy, Term.language == filters.language]
    if filters.hide_empty:
        conditions.append(Term.count > 0)
    if filters.search is not None:
        pattern = "%" + escape_like(filters.search.lower()) + "%"
        conditions.append(
            _like(pw.fn.LOWER(Term.name), pattern) | _like(pw.fn.LOWER(Term.slug), pattern)
        )
    if filters.include is not None:
        conditions.append(Term.id.in_(filters.include or [0]))
    if filters.exclude:
        conditions.append(Term.id.not_in(filters.exclude))
    if filters.parent is not None:
        conditions.append(Term.parent == filters.parent)
    if filters.event is not None:
        conditions.append(
            Term.id.in_(EventTerm.select(EventTerm.term).where(EventTerm.event == filters.event))
        )
    if filters.slug is not None:
        conditions.append(Term.slug == filters.slug)
    return Term.select().where(functools.reduce(operator.and_, conditions))


def term_count(filters: TermFilters) -> Statement:
    """The statement whose rows are the list's total (``counts.CountCache``)."""
    return counted(("terms", repr(filters)), lambda: term_query(filters))


def term_page(filters: TermFilters, limit: int, offset: int) -> list[Term]:
    """One page in the requested order; the ID breaks ties so pages never overlap."""

    def ordered() -> pw.ModelSelect[Term]:
        query = term_query(filters).order_by(*order_clauses(filters))
        return query.limit(limit).offset(offset)

    return rows(Term, built(("terms", repr(filters), limit, offset), ordered))


def order_clauses(filters: TermFilters) -> list[pw.Node]:
    def direction(node: pw.ColumnBase) -> pw.Node:
        return node.asc() if filters.ascending else node.desc()

    if filters.orderby == "none":
        return [Term.id]
    if filters.orderby == "include" and filters.include:
        position = pw.Case(Term.id, [(term_id, i) for i, term_id in enumerate(filters.include)])
        return [direction(position), Term.id]
    if filters.orderby == "include_slugs" and filters.slug is not None:
        return [Term.id]  # one slug: nothing to order
    if filters.orderby == "term_group":
        return [Term.id]  # term groups are always 0
    orderby = filters.orderby if filters.orderby in ORDER_COLUMNS else "name"
    column = ORDER_COLUMNS[orderby]
    if orderby == "parent":
        return [direction(pw.fn.COALESCE(Term.parent, 0)), Term.id]
    if orderby in TEXT_ORDERS:
        return [direction(pw.fn.LOWER(column)), direction(column), Term.id]
    return [direction(column), Term.id]


def escape_like(text: str) -> str:
    for char in (LIKE_ESCAPE, "%", "_"):
        text = text.replace(char, LIKE_ESCAPE + char)
    return text


def _like(column: pw.Node, pattern: str) -> pw.Expression:
    """``column LIKE pattern ESCAPE '!'`` on every backend (Peewee's ILIKE operator is
    SQLite's and MySQL's LIKE; its LIKE would be SQLite's GLOB)."""
    return pw.Expression(
        column,
        pw.OP.ILIKE,
        pw.NodeList((pw.Value(pattern), pw.SQL("ESCAPE"), pw.Value(LIKE_ESCAPE))),
    )
