"""Terms assigned through event writes, and the maintained published-event counts."""

from __future__ import annotations

import typing as t

import peewee as pw

from ..errors import InvalidParams
from ..models import TAXONOMY_CATEGORY, Event, EventTerm, Term, User
from ..permissions import has_cap
from ..schemas.messages import ParamMessage
from ..text import slugify

#: who may create terms of each taxonomy (categories: authors and up; tags: editors)
MANAGE_CAPABILITY = {TAXONOMY_CATEGORY: "publish_posts", "post_tag": "manage_categories"}


def can_manage_terms(user: User | None, taxonomy: str) -> bool:
    return has_cap(user, MANAGE_CAPABILITY[taxonomy])


def check_terms(param: str, taxonomy: str, wanted: list[int | str], user: User) -> list[Term | str]:
    """Existing terms for IDs, names or slugs; names left to create stay strings.

    :raises InvalidParams: unknown IDs, or new names from a user who may not create
        terms of this taxonomy.
    """
    resolved: list[Term | str] = []
    for item in wanted:
        term = _find_term(taxonomy, item)
        if term is not None:
            resolved.append(term)
        elif isinstance(item, str) and slugify(item) and can_manage_terms(user, taxonomy):
            resolved.append(item)
        else:
            raise InvalidParams({param: ParamMessage("unknown_term", param=param, value=item)})
    return resolved


def _find_term(taxonomy: str, item: int | str) -> Term | None:
    query = Term.select().where(Term.taxonomy == taxonomy)
    if isinstance(item, int):
        return query.where(Term.id == item).first()
    by_slug = query.where(Term.slug == slugify(item)).first() if slugify(item) else None
    return by_slug or query.where(pw.fn.LOWER(Term.name) == item.lower()).first()


def materialise_terms(taxonomy: str, terms: list[Term | str], language: str) -> list[Term]:
    """Create the terms still given by name; keep order, drop duplicates."""
    result: list[Term] = []
    for item in terms:
        term = item if isinstance(item, Term) else _find_term(taxonomy, item)
        if term is None:
            assert isinstance(item, str)
            term = Term.create(taxonomy=taxonomy, name=item, slug=slugify(item), language=language)
        if term.id not in {existing.id for existing in result}:
            result.append(term)
    return result


def set_event_terms(event: Event, taxonomy: str, terms: list[Term]) -> set[int]:
    """Replace the event's terms of one taxonomy; return every term ID whose count may
    have changed."""
    current = {
        link.term_id
        for link in EventTerm.select(EventTerm.term)
        .join(Term)
        .where((EventTerm.event == event.id) & (Term.taxonomy == taxonomy))
    }
    if current:
        EventTerm.delete().where(
            (EventTerm.event == event.id) & (EventTerm.term.in_(list(current)))
        ).execute()
    if terms:
        EventTerm.insert_many(
            [{"event": event.id, "term": term.id, "position": i} for i, term in enumerate(terms)]
        ).execute()
    return current | {term.id for term in terms}


def event_term_ids(event_id: int) -> set[int]:
    return {
        link.term_id for link in EventTerm.select(EventTerm.term).where(EventTerm.event == event_id)
    }


def refresh_term_counts(term_ids: t.Iterable[int]) -> None:
    """Recount published events for the given terms (WordPress's term count)."""
    ids = sorted(set(term_ids))
    if not ids:
        return
    published = (
        EventTerm.select(pw.fn.COUNT(EventTerm.event))
        .join(Event, on=(EventTerm.event == Event.id))
        .where((EventTerm.term == Term.id) & (Event.status == "publish"))
    )
    Term.update(count=published).where(Term.id.in_(ids)).execute()
