"""Translation groups of a page of records, in one statement whatever the page.

A group is its root record plus every record whose ``translation_of`` is the root's
ID (writes always store the root, see ``repository.translations``), so one page's
groups are ``WHERE id IN (roots) OR translation_of IN (roots)`` per table. The tables
of one response (an event page: events, venues, organizers and terms) are read
together as a ``UNION ALL``, so translations cost a single statement per request.
The SQL is prepared (``prepared.py``) per backend and shape; ID lists are padded to a
power of two so that the number of shapes stays small.
"""

from __future__ import annotations

import itertools
import typing as t
from collections import defaultdict

import peewee as pw

from ..models import Translatable
from ..wire.translations import GroupKey, Translations
from .prepared import prepared_sql


def load_translations(*pages: t.Iterable[Translatable]) -> Translations:
    """The groups of every record of ``pages`` (records of any translatable model)."""
    records = list(itertools.chain.from_iterable(pages))
    roots: dict[type[Translatable], set[int]] = defaultdict(set)
    for record in records:
        roots[type(record)].add(record.translation_of or record.id)
    if not roots:
        return Translations()
    models = sorted(roots, key=lambda model: model.__name__)
    ids = {model: _padded(sorted(roots[model])) for model in models}
    database = models[0]._meta.database
    key = ("translations", tuple((model.__name__, len(ids[model])) for model in models))
    sql = prepared_sql(database, key, lambda: _union(models, ids))
    params = [value for model in models for value in ids[model] * 2]
    members: dict[GroupKey, dict[str, int]] = defaultdict(dict)
    for index, record_id, language, translation_of in database.execute_sql(sql, params):
        members[(models[index], translation_of or record_id)][language] = record_id
    groups = {key: dict(sorted(found.items())) for key, found in members.items()}
    translations = Translations()
    for record in records:
        group = groups.get((type(record), record.translation_of or record.id))
        translations.groups[(type(record), record.id)] = group or {record.language: record.id}
    return translations


def _padded(ids: list[int]) -> list[int]:
    """``ids`` repeated at the end up to a power of two (a repeated ID changes nothing)."""
    size = 1 << (len(ids) - 1).bit_length()
    return ids + [ids[-1]] * (size - len(ids))


def _union(
    models: list[type[Translatable]], ids: dict[type[Translatable], list[int]]
) -> pw.SelectBase:
    """One select per table, tagged with the table's position in ``models``; their
    parameters come in the order ``load_translations`` passes them."""
    selects = [
        model.select(
            pw.SQL(str(index)), model.id, model.language, model.translation_of
        ).where(model.id.in_(ids[model]) | model.translation_of.in_(ids[model]))
        for index, model in enumerate(models)
    ]
    union: pw.SelectBase = selects[0]
    for select in selects[1:]:
        union = union + select  # UNION ALL
    return union
