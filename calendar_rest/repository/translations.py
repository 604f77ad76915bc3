"""``translation_of``: making a record the translation of another (WPML's groups).

A translation group is an original (its root) plus every record whose
``translation_of`` is the root's ID. Groups stay flat: given any member's ID, the
root's ID is stored, so reading a group is one indexed look-up (see
``queries.translations``). A group holds at most one record per language.

Attaching needs the right to edit the record translated (``security.md`` A5): one the
writer may not read is refused like an unknown ID, one it may read but not edit with a
403. A language is taken only by a published, scheduled or private member; a draft or
pending member of that language is detached from the group instead (it stays its
author's standalone record). Checking runs in the validation phase and never writes,
so a refused translation leaves nothing behind; :func:`attach` then writes.
"""

from __future__ import annotations

import dataclasses

from ..errors import RestError, bad_param
from ..models import PostModel, Translatable, User
from ..queries.lookups.translations import group_members, translatable_by_id, translations_of
from ..rules.permissions import can_edit, can_read
from ..wordpress.taxonomies import Taxonomy

PARAM = "translation_of"
#: statuses whose member holds its language in a group (terms have none: always)
HOLDING = frozenset({"publish", "future", "private"})


@dataclasses.dataclass(frozen=True)
class TranslationLink:
    """Where a record joins a group: the ``root`` to store, and the unpublished members
    of its language to detach first (the group's old root among them, when the group
    is re-rooted on ``root``)."""

    root: int
    old_root: int
    detach: tuple[int, ...] = ()


def translation_root(
    model: type[Translatable],
    target_id: int,
    language: str,
    record: Translatable | None,
    user: User | None,
    *,
    taxonomy: Taxonomy | None = None,
) -> TranslationLink:
    """How a record of ``language`` (``record`` on updates, None on creates) becomes the
    translation of ``target_id``, written by ``user``.

    :raises InvalidParams: the target is not a record of ``model`` (of ``taxonomy`` for
        terms) that ``user`` may read; the record would translate itself or its own
        translations; or the language is taken in the target's group.
    :raises RestError: 403 ``rest_cannot_edit`` when ``user`` may read the target but
        not edit it.
    """
    target = translatable_by_id(model, target_id, taxonomy)
    if target is None or (isinstance(target, PostModel) and not can_read(user, target)):
        raise bad_param(PARAM, "unknown_translation")
    if isinstance(target, PostModel) and not can_edit(user, target):
        raise RestError("rest_cannot_edit", 403)
    root = target.translation_of or target.id
    if record is not None:
        if record.id in (target.id, root):
            raise bad_param(PARAM, "translation_cycle")
        if record.translation_of is None and translations_of(model, record.id):
            raise bad_param(PARAM, "translation_has_translations")
    same_language = [
        member
        for member in group_members(model, root)
        if member.language == language and (record is None or member.id != record.id)
    ]
    if target.language == language or any(m.status in HOLDING for m in same_language):
        raise bad_param(PARAM, "translation_taken")
    detach = tuple(member.id for member in same_language)
    if root in detach:  # the group's root is an unpublished member: re-root the group
        remaining = [m.id for m in group_members(model, root) if m.id not in detach]
        return TranslationLink(min(remaining), root, detach)
    return TranslationLink(root, root, detach)


def attach(model: type[Translatable], record: Translatable, link: TranslationLink) -> None:
    """Make ``record`` (saved by the caller) a member of the group of ``link``."""
    if link.detach:
        if link.root != link.old_root:
            model.update(translation_of=None).where(model.id == link.root).execute()
            model.update(translation_of=link.root).where(
                (model.translation_of == link.old_root) & model.id.not_in(link.detach)
            ).execute()
        model.update(translation_of=None).where(model.id.in_(list(link.detach))).execute()
    record.translation_of = link.root


def release_root(model: type[Translatable], record: Translatable) -> None:
    """Before ``record`` is deleted for good: if it is the root of a group, its oldest
    translation becomes the root, so the others keep their group."""
    if record.translation_of is not None:
        return
    members = translations_of(model, record.id)
    if not members:
        return
    new_root = members[0]
    model.update(translation_of=None).where(model.id == new_root).execute()
    model.update(translation_of=new_root).where(model.translation_of == record.id).execute()
