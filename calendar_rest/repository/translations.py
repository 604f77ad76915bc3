"""``translation_of``: making a record the translation of another (WPML's groups).

A translation group is an original (its root) plus every record whose
``translation_of`` is the root's ID. Groups stay flat: given any member's ID, the
root's ID is stored, so reading a group is one indexed look-up (see
``queries.translations``). A group holds at most one record per language. As WPML,
attaching needs no right on the original: whoever may write the record may do it.

Checking runs in the validation phase and never writes, so a refused translation
leaves nothing behind.
"""

from __future__ import annotations

import typing as t

import peewee as pw

from ..errors import InvalidParams
from ..models import Term
from ..schemas.messages import ParamMessage

PARAM = "translation_of"
#: largest id a 32-bit INTEGER primary key can hold
MAX_ID = 2**31 - 1


def _refuse(key: str) -> InvalidParams:
    return InvalidParams({PARAM: ParamMessage(key, param=PARAM)})


def translation_root(
    model: type[pw.Model],
    target_id: int,
    language: str,
    record: t.Any = None,
    *,
    taxonomy: str | None = None,
) -> int:
    """The root ID to store when a record of ``language`` (``record`` on updates, None
    on creates) becomes the translation of ``target_id``.

    :raises InvalidParams: the target is not a record of ``model`` (of ``taxonomy``
        for terms); the record would translate itself or its own translations; or its
        language is already taken in the target's group.
    """
    target = _find(model, target_id, taxonomy)
    if target is None:
        raise _refuse("unknown_translation")
    root = target.translation_of or target.id
    if record is not None:
        if record.id in (target.id, root):
            raise _refuse("translation_cycle")
        if record.translation_of is None and _has_members(model, record.id):
            raise _refuse("translation_has_translations")
    taken = {
        member_language
        for member_id, member_language in model.select(model.id, model.language)
        .where((model.id == root) | (model.translation_of == root))
        .tuples()
        if record is None or member_id != record.id
    }
    if language in taken:
        raise _refuse("translation_taken")
    return t.cast(int, root)


def _find(model: type[pw.Model], record_id: int, taxonomy: str | None) -> t.Any:
    if not 0 < record_id <= MAX_ID:
        return None
    query = model.select(model.id, model.translation_of).where(model.id == record_id)
    if taxonomy is not None:
        query = query.where(Term.taxonomy == taxonomy)
    return query.first()


def _has_members(model: type[pw.Model], record_id: int) -> bool:
    return t.cast(bool, model.select(model.id).where(model.translation_of == record_id).exists())


def release_root(model: type[pw.Model], record: t.Any) -> None:
    """Before ``record`` is deleted for good: if it is the root of a group, its oldest
    translation becomes the root, so the others keep their group."""
    if record.translation_of is not None:
        return
    members = [
        member_id
        for (member_id,) in model.select(model.id)
        .where(model.translation_of == record.id)
        .order_by(model.id)
        .tuples()
    ]
    if not members:
        return
    new_root = members[0]
    model.update(translation_of=None).where(model.id == new_root).execute()
    model.update(translation_of=new_root).where(model.translation_of == record.id).execute()
