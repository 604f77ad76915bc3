"""WordPress roles, their capabilities, and the per-record checks TEC relies on.

The same capability shape applies to events, venues and organizers (TEC's
``Capabilities.php``). Record checks follow WordPress's ``map_meta_cap``: your own
draft needs ``edit_posts``, your own published record ``edit_published_posts``,
anybody else's ``edit_others_posts`` (plus the published/private variants).
"""

from __future__ import annotations

import typing as t

from .models import PUBLISHED_STATUSES, User

SUBSCRIBER = frozenset({"read"})
CONTRIBUTOR = SUBSCRIBER | {"edit_posts", "delete_posts"}
AUTHOR = CONTRIBUTOR | {
    "edit_published_posts",
    "delete_published_posts",
    "publish_posts",
    "upload_files",
}
EDITOR = AUTHOR | {
    "edit_others_posts",
    "edit_private_posts",
    "delete_others_posts",
    "delete_private_posts",
    "read_private_posts",
    "manage_categories",
}
ADMINISTRATOR = EDITOR | {"list_users", "manage_options"}

ROLE_CAPABILITIES: dict[str, frozenset[str]] = {
    "administrator": ADMINISTRATOR,
    "editor": EDITOR,
    "author": AUTHOR,
    "contributor": CONTRIBUTOR,
    "subscriber": SUBSCRIBER,
}


class Owned(t.Protocol):
    """What the checks need from a record: its status, author and pre-trash status."""

    status: str
    author_id: int | None
    status_before_trash: str | None


def has_cap(user: User | None, capability: str) -> bool:
    return user is not None and capability in ROLE_CAPABILITIES.get(user.role, SUBSCRIBER)


def can_create(user: User | None) -> bool:
    return has_cap(user, "edit_posts")


def can_publish(user: User | None) -> bool:
    return has_cap(user, "publish_posts")


def _effective_status(record: Owned) -> str:
    """A trashed record is judged by the status it had before trashing."""
    if record.status == "trash":
        return record.status_before_trash or "draft"
    return record.status


def _record_cap(user: User | None, record: Owned, verb: str) -> bool:
    if user is None:
        return False
    status = _effective_status(record)
    if record.author_id == user.id:
        needed = f"{verb}_published_posts" if status in PUBLISHED_STATUSES else f"{verb}_posts"
        return has_cap(user, needed)
    if not has_cap(user, f"{verb}_others_posts"):
        return False
    if status in PUBLISHED_STATUSES:
        return has_cap(user, f"{verb}_published_posts")
    if status == "private":
        return has_cap(user, f"{verb}_private_posts")
    return True


def can_edit(user: User | None, record: Owned) -> bool:
    return _record_cap(user, record, "edit")


def can_delete(user: User | None, record: Owned) -> bool:
    return _record_cap(user, record, "delete")


def can_read(user: User | None, record: Owned) -> bool:
    """``read_post``: published for all, private for its author and editors, the rest
    for whoever may edit it."""
    if record.status == "publish":
        return True
    if record.status == "private":
        return user is not None and (
            record.author_id == user.id or has_cap(user, "read_private_posts")
        )
    return can_edit(user, record)


def scale_status(user: User | None, requested: str | None, default_publisher: str) -> str:
    """The status a write really gets: contributors' publish requests become pending
    and their default is draft (TEC's status rule)."""
    if can_publish(user):
        return requested or default_publisher
    if requested in PUBLISHED_STATUSES:
        return "pending"
    return requested or "draft"
