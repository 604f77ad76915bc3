"""WordPress roles, their capabilities, and the per-record checks TEC relies on.

The same capability shape applies to events, venues and organizers (TEC's
``Capabilities.php``). Record checks follow WordPress's ``map_meta_cap``: your own
draft needs ``edit_posts``, your own published record ``edit_published_posts``,
anybody else's ``edit_others_posts`` (plus the published/private variants).
"""

from __future__ import annotations

import hmac
import typing as t

from ..models import PUBLISHED_STATUSES, User
from ..wordpress.taxonomies import Taxonomy

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
    "unfiltered_html",
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


class Protected(Owned, t.Protocol):
    """A record that may be password-protected (events)."""

    password: str


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


def own_record_cap(verb: str, status: str) -> str:
    """The capability needed to ``verb`` (edit, delete) one's own record of this
    (effective) status: a published one needs the ``..._published_posts`` variant."""
    return f"{verb}_published_posts" if status in PUBLISHED_STATUSES else f"{verb}_posts"


def _record_cap(user: User | None, record: Owned, verb: str) -> bool:
    if user is None:
        return False
    status = _effective_status(record)
    if record.author_id == user.id:
        return has_cap(user, own_record_cap(verb, status))
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


def record_methods(user: User | None, record: Owned) -> tuple[str, ...]:
    """The methods of a record's route ``user`` may call on it (``Allow``): ``GET``,
    the edits if it may edit the record, ``DELETE`` if it may delete it; only ``GET``
    for a record it cannot read."""
    if not can_read(user, record):
        return ("GET",)
    edits = ("POST", "PUT", "PATCH") if can_edit(user, record) else ()
    return ("GET", *edits, *(("DELETE",) if can_delete(user, record) else ()))


def scale_status(user: User | None, requested: str | None, default_publisher: str) -> str:
    """The status a write really gets: contributors' publish requests become pending
    and their default is draft (TEC's status rule)."""
    if can_publish(user):
        return requested or default_publisher
    if requested in PUBLISHED_STATUSES:
        return "pending"
    return requested or "draft"


def can_manage_terms(user: User | None, taxonomy: Taxonomy) -> bool:
    """Creating, editing and deleting terms: categories for authors and up, tags for
    editors and up (TEC's capability mapping)."""
    return has_cap(user, taxonomy.manage_capability)


def may_write_method(user: User | None, method: str) -> bool:
    """Whether ``user`` holds the generic capability a post method needs at all (the
    ``Allow`` header); per-record checks still apply when the request runs."""
    if method == "GET":
        return True
    return has_cap(user, "delete_posts" if method == "DELETE" else "edit_posts")


def may_act_for_others(user: User | None) -> bool:
    """Writing records in other users' names (administrators and editors)."""
    return has_cap(user, "edit_others_posts")


def may_write_as(user: User | None, author: User | None, record: Owned | None = None) -> bool:
    """Writing in someone else's name (``author``) needs ``edit_others_posts``; naming
    the current author (the caller on creates) is always allowed (WordPress core)."""
    if author is None or user is None:
        return True
    current = record.author_id if record is not None else user.id
    return author.id == current or may_act_for_others(user)


def can_read_content(
    user: User | None, record: Protected, password: str | None, context: str | None
) -> bool:
    """Password-protected content is shown with the right password, or to whoever may
    edit the record when asking for ``context=edit``."""
    if not record.password:
        return True
    if password is not None and hmac.compare_digest(password.encode(), record.password.encode()):
        return True
    return context == "edit" and can_edit(user, record)
