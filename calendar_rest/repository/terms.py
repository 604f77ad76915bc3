"""Terms assigned through event writes, and the maintained published-event counts."""

from __future__ import annotations

import typing as t

import peewee as pw

from ..errors import InvalidParams
from ..models import TAXONOMY_CATEGORY, Event, EventTerm, Term, User, could_exist
from ..permissions import has_cap
from ..schemas.messages import ParamMessage
from ..text import slugify
from .translations import release_root

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
        by_id: Term | None = query.where(Term.id == item).first()
        return by_id
    by_slug = query.where(Term.slug == slugify(item)).first() if slugify(item) else None
    found: Term | None = by_slug or query.where(pw.fn.LOWER(Term.name) == item.lower()).first()
    return found


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


# -- the category and tag routes ---------------------------------------------------------

#: what a term slug falls back to when neither the slug nor the name gives one
FALLBACK_SLUG = "term"
#: leaves room for "-NNN" in the 200-character column
MAX_TERM_SLUG = 190


def term_by_id(taxonomy: str, term_id: int) -> Term | None:
    """None for an ID no INTEGER column can hold (the driver would overflow)."""
    if not could_exist(term_id):
        return None
    found: Term | None = (
        Term.select().where((Term.taxonomy == taxonomy) & (Term.id == term_id)).first()
    )
    return found


def existing_term_ids(taxonomy: str, ids: list[int]) -> set[int]:
    query = Term.select(Term.id).where((Term.taxonomy == taxonomy) & Term.id.in_(ids or [0]))
    return {row.id for row in query}


def descendant_ids(term_id: int) -> set[int]:
    """Every category below ``term_id``: one read of the (small) parent column."""
    children: dict[int, list[int]] = {}
    # ``tuples()`` yields row tuples; Peewee's stubs keep typing rows as model instances
    for child_id, parent_id in t.cast(
        "t.Iterable[tuple[int, int | None]]",
        Term.select(Term.id, Term.parent).where(Term.taxonomy == TAXONOMY_CATEGORY).tuples(),
    ):
        if parent_id:
            children.setdefault(parent_id, []).append(child_id)
    found: set[int] = set()
    stack = [term_id]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def name_taken(
    taxonomy: str, name: str, parent_id: int | None, language: str, exclude_id: int | None = None
) -> Term | None:
    """The term already named ``name`` (any case) where WordPress forbids a second one:
    under the same parent for categories, anywhere for tags; per language, because
    translations are separate terms."""
    query = Term.select().where(
        (Term.taxonomy == taxonomy)
        & (Term.language == language)
        & (pw.fn.LOWER(Term.name) == name.lower())
    )
    if taxonomy == TAXONOMY_CATEGORY:
        query = query.where(Term.parent.is_null() if not parent_id else Term.parent == parent_id)
    if exclude_id is not None:
        query = query.where(Term.id != exclude_id)
    found: Term | None = query.first()
    return found


def slug_owner(taxonomy: str, slug: str, exclude_id: int) -> Term | None:
    found: Term | None = Term.select().where(
        (Term.taxonomy == taxonomy) & (Term.slug == slug) & (Term.id != exclude_id)
    ).first()
    return found


def free_term_slug(taxonomy: str, base: str) -> str:
    """``base`` if unused in the taxonomy, else the first free ``base-N`` (WordPress's
    ``wp_unique_term_slug``). Writers are queued per request, so nobody takes it
    between this read and the insert."""
    taken = {
        row.slug
        for row in Term.select(Term.slug).where(
            (Term.taxonomy == taxonomy)
            & ((Term.slug == base) | Term.slug.startswith(f"{base}-"))
        )
    }
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def term_slug(wanted: str | None, name: str) -> str:
    """The slug a term asks for: the given one sanitised, else one from the name."""
    return slugify(wanted or "", max_length=MAX_TERM_SLUG) or slugify(
        name, max_length=MAX_TERM_SLUG
    ) or FALLBACK_SLUG


def create_term(taxonomy: str, args: dict[str, t.Any], language: str) -> Term:
    """Insert a validated term; its slug is made unique, its count starts at 0."""
    return Term.create(
        taxonomy=taxonomy,
        name=args["name"],
        slug=free_term_slug(taxonomy, term_slug(args.get("slug"), args["name"])),
        description=args.get("description", ""),
        parent=args.get("parent") or None,
        language=language,
        translation_of=args.get("translation_of"),
    )


def update_term(term: Term, args: dict[str, t.Any], slug: str | None) -> Term:
    """Apply the given fields only (partial update); ``slug`` is already checked free."""
    for name in ("name", "description"):
        if name in args:
            setattr(term, name, args[name])
    if "parent" in args:
        term.parent = args["parent"] or None
    if "translation_of" in args:
        term.translation_of = args["translation_of"]
    if slug is not None:
        term.slug = slug
    term.save()
    return term


def delete_term(term: Term) -> None:
    """Delete for good: unlink its events, give its children its parent (WordPress) and
    its translations another root."""
    release_root(Term, term)
    EventTerm.delete().where(EventTerm.term == term.id).execute()
    Term.update(parent=term.parent_id).where(Term.parent == term.id).execute()
    Term.delete().where(Term.id == term.id).execute()
