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

from ..errors import InvalidParams
from ..models import Term, Translatable, could_exist
from ..schemas.messages import ParamMessage

PARAM = "translation_of"


def _refuse(key: str) -> InvalidParams:
    return InvalidParams({PARAM: ParamMessage(key, param=PARAM)})


def translation_root(
    model: type[Translatable],
    target_id: int,
    language: str,
    record: Translatable | None = None,
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
    # ``tuples()`` yields row tuples; Peewee's stubs keep typing rows as model instances
    rows = t.cast(
        "t.Iterable[tuple[int, str]]",
        model.select(model.id, model.language)
        .where((model.id == root) | (model.translation_of == root))
        .tuples(),
    )
    taken = {
        member_language
        for member_id, member_language in rows
        if record is None or member_id != record.id
    }
    if language in taken:
        raise _refuse("translation_taken")
    return root


def _find(model: type[Translatable], record_id: int, taxonomy: str | None) -> Translatable | None:
    if not could_exist(record_id):
        return None
    query = model.select(model.id, model.translation_of).where(model.id == record_id)
    if taxonomy is not None:
        query = query.where(Term.taxonomy == taxonomy)
    found: Translatable | None = query.first()
    return found


def _has_members(model: type[Translatable], record_id: int) -> bool:
    return model.select(model.id).where(model.translation_of == record_id).exists()


def release_root(model: type[Translatable], record: Translatable) -> None:
    """Before ``record`` is deleted for good: if it is the root of a group, its oldest
    translation becomes the root, so the others keep their group."""
    if record.translation_of is not None:
        return
    # ``tuples()`` yields row tuples; Peewee's stubs keep typing rows as model instances
    members = [
        member_id
        for (member_id,) in t.cast(
            "t.Iterable[tuple[int]]",
            model.select(model.id)
            .where(model.translation_of == record.id)
            .order_by(model.id)
            .tuples(),
        )
    ]
    if not members:
        return
    new_root = members[0]
    model.update(translation_of=None).where(model.id == new_root).execute()
    model.update(translation_of=new_root).where(model.translation_of == record.id).execute()
