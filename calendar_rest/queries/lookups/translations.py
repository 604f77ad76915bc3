"""Translation groups of a page of records, in one statement for most pages.

A group is its root record plus every record whose ``translation_of`` is the root's
ID (writes always store the root, see ``repository.translations``), so one page's
groups are ``WHERE translation_of IN (roots)`` per table, plus the roots that are not
on the page (a second statement, only when the first found members). The tables of
one response (an event page: events, venues, organizers and terms) are read together
as a ``UNION ALL``.
The SQL is prepared (``prepared.py``) per backend and shape; ID lists are padded to a
power of two so that the number of shapes stays small. A group shows only the members
the reader may read (terms have no status: every term is readable), and always the
record itself.

Most sites translate nothing. Whether the tables of a page hold any translation at all
is one index read per table, counted once per write generation through the caller's
``total`` (``Call.total``, the list totals' cache): while they hold none, a page needs
no statement for its groups.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import typing as t
from collections import defaultdict

import peewee as pw

from ...models import Term, Translatable, User, could_exist, model_of
from ...rules.permissions import can_read
from ...wordpress.taxonomies import Taxonomy
from ..loaded import GroupKey, Translations
from ..sql.prepared import prepared_sql
from ..sql.statements import Statement, built

#: counts the rows a built statement selects, once per write generation (``Call.total``)
Total = t.Callable[[Statement], int]


@dataclasses.dataclass
class Member:
    """A member of a translation group, with what deciding its visibility needs."""

    id: int
    language: str
    status: str
    author_id: int | None
    status_before_trash: str | None


def load_translations(
    *pages: t.Iterable[Translatable], user: User | None, total: Total | None = None
) -> Translations:
    """The groups of every record of ``pages`` (records of any translatable model), as
    ``user`` may see them; with ``total``, none is read while no table of the page holds
    a translation.

    Most records are translated into nothing: their group is themselves, which
    ``Translations.of`` answers unloaded. So the first statement asks only for the
    members that point at the page's roots; roots are read (a second statement) only
    for groups that turned out to have members and whose root is not on the page."""
    records = list(itertools.chain.from_iterable(pages))
    models = {t.cast("type[Translatable]", model_of(record)) for record in records}
    translations = Translations()
    if not models or (total is not None and not total(_any_member(models))):
        return translations  # the usual case: asked before looking at each record's group
    roots: dict[type[Translatable], set[int]] = defaultdict(set)
    for record in records:
        roots[t.cast("type[Translatable]", model_of(record))].add(
            record.translation_of or record.id
        )
    members: dict[GroupKey, list[Member]] = defaultdict(list)
    for model, root, member in _members(roots, with_roots=False):
        members[(model, root)].append(member)
    if not members:
        return translations
    on_page: dict[GroupKey, Translatable] = {(model_of(r), r.id): r for r in records}
    missing: dict[type[Translatable], set[int]] = defaultdict(set)
    for group_key in list(members):
        root_record = on_page.get(group_key)
        if root_record is not None:
            members[group_key].append(_member_of(root_record))
        else:
            missing[t.cast("type[Translatable]", group_key[0])].add(group_key[1])
    if missing:
        for model, root, member in _members(missing, with_members=False):
            members[(model, root)].append(member)
    for record in records:
        found = members.get((model_of(record), record.translation_of or record.id))
        if not found:
            continue
        group = {
            member.language: member.id
            for member in found
            if member.id == record.id or can_read(user, member)
        }
        group[record.language] = record.id
        translations.groups[(model_of(record), record.id)] = dict(sorted(group.items()))
    return translations


def _any_member(models: t.Iterable[type[Translatable]]) -> Statement:
    """At most one row per table of ``models`` that holds a translation, off the
    ``translation_of`` index: its count is 0 while none does, whatever their size."""
    return _any_member_of(type(Term._meta.database).__name__, frozenset(models))


@functools.lru_cache(maxsize=64)
def _any_member_of(backend: str, models: frozenset[type[Translatable]]) -> Statement:
    """:func:`_any_member` of one backend and set of tables (every page asks it)."""
    ordered = sorted(models, key=lambda model: model.__name__)

    def build() -> pw.SelectBase:
        selects = [
            model.select(pw.SQL("1")).from_(
                model.select(model.id)
                .where(model.translation_of.is_null(False))
                .limit(1)
                .alias(f"any_{model.__name__.lower()}")
            )
            for model in ordered
        ]
        return _union_all(selects)

    return built(("any translation", *(model.__name__ for model in ordered)), build)


def _member_of(record: Translatable) -> Member:
    """A loaded record as a member of its own group (terms read as published)."""
    return Member(
        record.id,
        record.language,
        getattr(record, "status", "publish"),
        getattr(record, "author_id", None),
        getattr(record, "status_before_trash", None),
    )


def _members(
    roots: dict[type[Translatable], set[int]],
    *,
    with_roots: bool = True,
    with_members: bool = True,
) -> t.Iterator[tuple[type[Translatable], int, Member]]:
    """``(model, root, member)`` of the groups of ``roots``: the roots themselves
    (``with_roots``) and the records that translate them (``with_members``)."""
    models = sorted(roots, key=lambda model: model.__name__)
    ids = {model: _padded(sorted(roots[model])) for model in models}
    database = models[0]._meta.database
    shape = (with_roots, with_members)
    key = ("translations", shape, tuple((model.__name__, len(ids[model])) for model in models))
    sql = prepared_sql(database, key, lambda: _union(models, ids, *shape))
    selects = int(with_roots) + int(with_members)
    params = [value for model in models for value in ids[model] * selects]
    for index, record_id, language, root, status, author, before in database.execute_sql(
        sql, params
    ):
        member = Member(record_id, language, status, author, before)
        yield models[index], root or record_id, member


def _visibility_columns(model: type[Translatable]) -> tuple[pw.Node, ...]:
    """Status, author and pre-trash status; terms, which have none, read as published."""
    if model is Term:
        return (pw.SQL("'publish'"), pw.SQL("NULL"), pw.SQL("NULL"))
    return (model.status, model.author, model.status_before_trash)  # type: ignore[union-attr]


def _padded(ids: list[int]) -> list[int]:
    """``ids`` repeated at the end up to a power of two (a repeated ID changes nothing)."""
    size = 1 << (len(ids) - 1).bit_length()
    return ids + [ids[-1]] * (size - len(ids))


def _members_of(model: type[Translatable], roots: list[int]) -> pw.Select:
    """The IDs of the members of ``roots``' groups: read off the ``translation_of``
    index alone, which the planner then searches whatever its statistics say."""
    alias = model.alias()
    return alias.select(alias.id).where(alias.translation_of.in_(roots))


def _union(
    models: list[type[Translatable]],
    ids: dict[type[Translatable], list[int]],
    with_roots: bool,
    with_members: bool,
) -> pw.SelectBase:
    """Up to two selects per table (the roots by ID, the members by ``translation_of``),
    tagged with the table's position in ``models``; their parameters come in the order
    ``_members`` passes them.

    Not one ``id IN … OR translation_of IN …``: where few records are translations,
    the planner's statistics say a ``translation_of`` value matches every row (they
    are all NULL), and SQLite then scans the table instead of searching the index;
    the members' IDs come from the index alone (:func:`_members_of`). A member found
    both ways is the same row twice, which changes nothing in ``load_translations``."""
    selects = [
        model.select(
            pw.SQL(str(index)),
            model.id,
            model.language,
            model.translation_of,
            *_visibility_columns(model),
        ).where(condition)
        for index, model in enumerate(models)
        for condition in (
            *([model.id.in_(ids[model])] if with_roots else []),
            *([model.id.in_(_members_of(model, ids[model]))] if with_members else []),
        )
    ]
    return _union_all(selects)


def _union_all(selects: t.Sequence[pw.SelectBase]) -> pw.SelectBase:
    """``selects`` as one ``UNION ALL`` (Peewee's ``+``)."""
    return functools.reduce(operator.add, selects)


def translatable_by_id(
    model: type[Translatable], record_id: int, taxonomy: Taxonomy | None = None
) -> Translatable | None:
    """The record ``record_id`` of ``model`` (of ``taxonomy`` for terms)."""
    if not could_exist(record_id):
        return None
    query = model.select().where(model.id == record_id)
    if taxonomy is not None:
        query = query.where(Term.taxonomy == taxonomy.name)
    found: Translatable | None = query.first()
    return found


def group_members(model: type[Translatable], root: int) -> list[Member]:
    """The members of the group rooted at ``root``, the root included."""
    return [member for _, _, member in _members({model: {root}})]


def translations_of(model: type[Translatable], root: int) -> list[int]:
    """The IDs of the records that translate ``root``, oldest first."""
    rows = t.cast(
        "t.Iterable[tuple[int]]",
        model.select(model.id).where(model.translation_of == root).order_by(model.id).tuples(),
    )
    return [record_id for (record_id,) in rows]
