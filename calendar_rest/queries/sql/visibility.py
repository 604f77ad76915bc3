"""What a user may read, as SQL conditions: the rules of ``permissions`` in a query.

One rule for every read path (lists, search, filters, duplicates, links): a record is
readable when ``permissions.can_read`` says so, published for everybody, private for
its author and editors, any other status for whoever may edit it. Listings show the
readable records of the statuses asked for. TEC lists everybody's drafts to
contributors; we do not, because the single read of such a draft is refused to them.
"""

from __future__ import annotations

import peewee as pw

from ...errors import bad_param
from ...models import POST_STATUSES, PUBLISHED_STATUSES, PostModel, User
from ...rules.permissions import has_cap, own_record_cap

LISTED_BY_DEFAULT = ["publish", "future", "draft", "pending", "private"]
EVERYTHING = pw.SQL("1 = 1")
NOTHING = pw.SQL("1 = 0")


def effective_status(model: type[PostModel]) -> pw.ColumnBase:
    """A record's status as the permission rules judge it: a trashed record by the
    status it had before trashing (``permissions._effective_status``)."""
    before = pw.fn.COALESCE(model.status_before_trash, "draft")
    return pw.Case(None, [(model.status == "trash", before)], model.status)


def editable(model: type[PostModel], user: User | None) -> pw.Node:
    """Records ``user`` may edit (``permissions.can_edit``)."""
    if user is None or not has_cap(user, "edit_posts"):
        return NOTHING
    if all(
        has_cap(user, cap)
        for cap in ("edit_others_posts", "edit_published_posts", "edit_private_posts")
    ):
        return EVERYTHING
    own: pw.Node = model.author == user.id
    kept = [status for status in POST_STATUSES if status != "trash"]
    statuses = [status for status in kept if has_cap(user, own_record_cap("edit", status))]
    if len(statuses) < len(kept):
        own = own & effective_status(model).in_(statuses)
    return own


def readable(model: type[PostModel], user: User | None) -> pw.Node:
    """Records ``user`` may read (``permissions.can_read``)."""
    published: pw.Node = model.status == "publish"
    if user is None:
        return published
    if has_cap(user, "read_private_posts") and editable(model, user) is EVERYTHING:
        return EVERYTHING
    private = model.status == "private"
    if not has_cap(user, "read_private_posts"):
        private = private & (model.author == user.id)
    others = model.status.not_in(["publish", "private"]) & editable(model, user)
    return published | private | others


def readable_state(status: pw.Field, author: pw.Field, user: User | None) -> pw.Node:
    """``readable`` over a stored status and author (the change log's before and
    after attributes); a trashed or deleted (NULL) state is readable by nobody: the
    change feed reports trash as a deletion to every caller (``sync.md`` §3.6)."""
    published: pw.Node = status == "publish"
    if user is None:
        return published
    private = status == "private"
    if not has_cap(user, "read_private_posts"):
        private = private & (author == user.id)
    unpublished = ("future", "draft", "pending")
    own = [name for name in unpublished if has_cap(user, own_record_cap("edit", name))]
    others = []
    if has_cap(user, "edit_others_posts"):
        others = [
            name
            for name in unpublished
            if name not in PUBLISHED_STATUSES or has_cap(user, "edit_published_posts")
        ]
    drafts = (status.in_(own) & (author == user.id)) if own else NOTHING
    if others:
        drafts = drafts | status.in_(others)
    return published | private | drafts


def requested_statuses(wanted: list[str] | None, user: User | None) -> tuple[list[str] | None, str]:
    """A list's ``status`` filter and its echo: readers may only ask for ``publish``,
    writers for any status (``trash`` included). No filter echoes what is listed by
    default: ``any`` for writers, ``publish`` for readers.

    :raises InvalidParams: a status this user may not ask for.
    """
    may_edit = has_cap(user, "edit_posts")
    if not wanted:
        return None, "any" if may_edit else "publish"
    allowed = POST_STATUSES if may_edit else ("publish",)
    if any(status not in allowed for status in wanted):
        raise bad_param("status", "bad_status")
    statuses = list(dict.fromkeys(wanted))
    return statuses, ",".join(statuses)


def listable(
    model: type[PostModel], user: User | None, statuses: list[str] | None = None
) -> pw.Expression:
    """Readable records of ``statuses`` (a status filter may ask for trash; the default
    never shows it)."""
    if statuses is None:
        statuses = ["publish"] if not has_cap(user, "edit_posts") else LISTED_BY_DEFAULT
    condition = model.status.in_(statuses) if len(statuses) > 1 else model.status == statuses[0]
    if statuses == ["publish"]:
        return condition
    visible = readable(model, user)
    return condition if visible is EVERYTHING else condition & visible
