"""Writing categories and tags: on their own routes, or named inside event writes.

Also keeps WordPress's term ``count`` (published events carrying the term) up to date:
every write that can change it recounts the terms it touched.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import peewee as pw

from ..errors import ParamErrors, RestError, bad_param
from ..i18n.messages import MESSAGES
from ..models import Event, EventTerm, Term, User
from ..queries.lookups.terms import (
    descendant_ids,
    event_term_ids,
    find_terms,
    name_taken,
    slug_owner,
    taken_term_slugs,
    term_by_id,
)
from ..rules.markup import Markup, as_written_by
from ..rules.permissions import can_manage_terms
from ..wordpress.taxonomies import CATEGORIES, Taxonomy, taxonomy_of
from ..wordpress.text import first_free, slugify
from .changes import TERM_SEEN, record_term_change
from .record_locks import lock_ids, lock_slug_base
from .translations import release_root

#: what a term slug falls back to when neither the slug nor the name gives one
FALLBACK_SLUG = "term"
#: leaves room for "-NNN" in the 200-character column
MAX_TERM_SLUG = 190


# -- terms named inside event writes ----------------------------------------------------


def check_terms(taxonomy: Taxonomy, wanted: list[int | str], user: User | None) -> list[Term | str]:
    """Existing terms for IDs, names or slugs; names left to create stay strings.

    :raises InvalidParams: unknown IDs, or new names from a user who may not create
        terms of this taxonomy (named after the event field, ``categories``/``tags``).
    """
    resolved: list[Term | str] = []
    for item, term in zip(wanted, find_terms(taxonomy, wanted), strict=True):
        if term is not None:
            resolved.append(term)
        elif isinstance(item, str) and slugify(item) and can_manage_terms(user, taxonomy):
            resolved.append(as_written_by(user, item, Markup.INLINE))
        else:
            raise bad_param(taxonomy.collection, "unknown_term", value=item)
    return resolved


def materialise_terms(
    taxonomy: Taxonomy, terms: list[Term | str], language: str, now: dt.datetime
) -> list[Term]:
    """Create the terms still given by name (looked up again: the write may have waited
    for another that created them); keep order, drop duplicates."""
    names = [item for item in terms if isinstance(item, str)]
    existing = dict(zip(names, find_terms(taxonomy, names), strict=True))
    created: dict[str, Term] = {}  # by slug: "Jazz" and "jazz" are one new term
    result: list[Term] = []
    for item in terms:
        term = item if isinstance(item, Term) else existing[item]
        if term is None:
            assert isinstance(item, str)
            slug = slugify(item)
            term = created.get(slug)
            if term is None:
                term = created[slug] = Term.create(
                    taxonomy=taxonomy.name, name=item, slug=slug, language=language
                )
                record_term_change(term, None, TERM_SEEN, now)
        if term.id not in {chosen.id for chosen in result}:
            result.append(term)
    return result


def set_event_terms(event: Event, taxonomy: Taxonomy, terms: list[Term]) -> set[int]:
    """Replace the event's terms of one taxonomy; return every term ID whose count may
    have changed."""
    current = event_term_ids(event.id, taxonomy)
    if current:
        EventTerm.delete().where(
            (EventTerm.event == event.id) & (EventTerm.term.in_(list(current)))
        ).execute()
    if terms:
        EventTerm.insert_many(
            [{"event": event.id, "term": term.id, "position": i} for i, term in enumerate(terms)]
        ).execute()
    return current | {term.id for term in terms}


def refresh_term_counts(term_ids: t.Iterable[int]) -> None:
    """Recount published events for the given terms (WordPress's term count)."""
    ids = sorted(set(term_ids))
    if not ids:
        return
    # Counted after the lock, by a statement of its own: a concurrent write of the same
    # terms has committed by then, and the count sees its links too.
    lock_ids(Term, ids)
    published = (
        EventTerm.select(pw.fn.COUNT(EventTerm.event))
        .join(Event, on=(EventTerm.event == Event.id))
        .where((EventTerm.term == Term.id) & (Event.status == "publish"))
    )
    Term.update(count=published).where(Term.id.in_(ids)).execute()


# -- the category and tag routes ---------------------------------------------------------


class TermExists(RestError):
    """Core's ``term_exists``: one code, two sentences (with a parent, or flat)."""

    def __init__(self, term: Term) -> None:
        super().__init__("term_exists", 400, data={"term_id": term.id})
        hierarchical = taxonomy_of(term.taxonomy).hierarchical
        self.message_key = "term_exists" if hierarchical else "term_exists_in_taxonomy"

    def message(self, translate: t.Callable[[str], str] = str) -> str:
        return translate(MESSAGES[self.message_key])


def parent_errors(args: t.Mapping[str, t.Any], term: Term | None = None) -> ParamErrors:
    """A category's new parent: 0 (top level) or an existing category that is neither
    the term itself nor one of its descendants (tag schemas have no parent)."""
    errors = ParamErrors()
    parent = args.get("parent")
    if not parent:
        return errors
    if term_by_id(CATEGORIES, parent) is None:
        errors.add("parent", "unknown_term", value=parent)
    elif term is not None and (parent == term.id or parent in descendant_ids(term.id)):
        errors.add("parent", "parent_cycle")
    return errors


def refuse_duplicate_name(
    taxonomy: Taxonomy, name: str, parent: int | None, language: str, term: Term | None = None
) -> None:
    """:raises TermExists: when the name is taken where WordPress forbids a second one."""
    existing = name_taken(taxonomy, name, parent, language, term.id if term is not None else None)
    if existing is not None:
        raise TermExists(existing)


def free_term_slug(taxonomy: Taxonomy, base: str) -> str:
    """``base`` if unused in the taxonomy, else the first free ``base-N`` (WordPress's
    ``wp_unique_term_slug``). Writers choosing from one base queue; where two still
    collide, the unique index refuses the later insert and the request is replayed."""
    lock_slug_base(Term, base, Term.taxonomy == taxonomy.name)
    return first_free(base, taken_term_slugs(taxonomy, base))


def term_slug(wanted: str | None, name: str) -> str:
    """The slug a term asks for: the given one sanitised, else one from the name."""
    return (
        slugify(wanted or "", max_length=MAX_TERM_SLUG)
        or slugify(name, max_length=MAX_TERM_SLUG)
        or FALLBACK_SLUG
    )


def create_term(
    taxonomy: Taxonomy, args: dict[str, t.Any], language: str, now: dt.datetime
) -> Term:
    """Insert a validated term; its slug is made unique, its count starts at 0."""
    term = Term.create(
        taxonomy=taxonomy.name,
        name=args["name"],
        slug=free_term_slug(taxonomy, term_slug(args.get("slug"), args["name"])),
        description=args.get("description", ""),
        parent=args.get("parent") or None,
        language=language,
        translation_of=args.get("translation_of"),
    )
    record_term_change(term, None, TERM_SEEN, now)
    return term


def refuse_update_conflicts(taxonomy: Taxonomy, term: Term, args: dict[str, t.Any]) -> None:
    """WordPress's refusals of a term update.

    :raises TermExists: the new name (or the name under the new parent) is taken.
    :raises RestError: ``duplicate_term_slug`` when another term of the taxonomy has
        the slug asked for.
    """
    name = args.get("name", term.name)
    if "name" in args or "parent" in args:
        parent = args["parent"] if "parent" in args else term.parent_id
        refuse_duplicate_name(taxonomy, name, parent, term.language, term)
    if "slug" in args:
        slug = term_slug(args["slug"], name)
        if slug_owner(taxonomy, slug, term.id) is not None:
            raise RestError("duplicate_term_slug", 400, slug)


def update_term(term: Term, args: dict[str, t.Any], now: dt.datetime) -> Term:
    """Apply the given fields only (partial update), once
    :func:`refuse_update_conflicts` passed."""
    if "slug" in args:
        term.slug = term_slug(args["slug"], args.get("name", term.name))
    for field in ("name", "description"):
        if field in args:
            setattr(term, field, args[field])
    if "parent" in args:
        term.parent = args["parent"] or None
    if "translation_of" in args:
        term.translation_of = args["translation_of"]
    term.save()
    record_term_change(term, TERM_SEEN, TERM_SEEN, now)
    return term


def delete_term(term: Term, now: dt.datetime) -> None:
    """Delete for good: unlink its events, give its children its parent (WordPress) and
    its translations another root."""
    release_root(Term, term)
    EventTerm.delete().where(EventTerm.term == term.id).execute()
    Term.update(parent=term.parent_id).where(Term.parent == term.id).execute()
    Term.delete().where(Term.id == term.id).execute()
    record_term_change(term, TERM_SEEN, None, now)
