"""Look-ups every post-like record shares: taken slugs and featured images."""

from __future__ import annotations

import typing as t

from ...db import among, in_batches
from ...models import Attachment, Event, Organizer, PostModel, User, Venue, could_exist
from ...rules.permissions import may_act_for_others
from ..sql.rows import fetch_rows
from ..sql.visibility import readable


def taken_slugs(model: type[PostModel], base: str, exclude_id: int | None = None) -> set[str]:
    """The slugs of ``model`` that are ``base`` or start with ``base-`` (but the one of
    record ``exclude_id``)."""
    query = model.select(model.slug).where(
        (model.slug == base) | (model.slug.startswith(f"{base}-"))
    )
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    return {row.slug for row in query}


def slugs_of(model: type[PostModel], slugs: t.Sequence[str]) -> dict[str, int]:
    """The records of ``model`` that have one of ``slugs``: their IDs by slug, in a
    query per batch (a series write names its occurrences' slugs at once)."""
    found: dict[str, int] = {}
    for batch in in_batches(slugs):
        query = model.select(model.slug, model.id).where(among(model.slug, batch))
        found.update(t.cast("t.Iterable[tuple[str, int]]", query.tuples()))
    return found


def attachment_by_id(attachment_id: int) -> Attachment | None:
    if not could_exist(attachment_id):
        return None
    found: Attachment | None = Attachment.get_or_none(Attachment.id == attachment_id)
    return found


def attachment_readable(attachment: Attachment, user: User | None) -> bool:
    """Whether ``user`` may use the image ``attachment`` (link it by ID): its own, any
    for those who may act for others, else the image of a record it may read."""
    if user is None:
        return False
    if attachment.author_id == user.id or may_act_for_others(user):
        return True
    return any(
        model.select(model.id)
        .where((model.image == attachment.id) & readable(model, user))
        .exists()
        for model in (Event, Venue, Organizer)
    )


def attachment_by_url(url: str) -> Attachment | None:
    found: Attachment | None = Attachment.get_or_none(Attachment.url == url)
    return found


def images_of(records: t.Sequence[PostModel]) -> dict[int, Attachment]:
    """The featured images of a page of records, in one query, as read-only rows."""
    ids = sorted({record.image_id for record in records if record.image_id})
    if not ids:
        return {}
    found = fetch_rows(
        Attachment,
        ("images_of", len(ids)),
        lambda: Attachment.select().where(Attachment.id.in_(ids)),
        ids,
    )
    return {image.id: image for image, _ in found}
