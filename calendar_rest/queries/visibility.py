"""Which records a user may see in listings, as a SQL condition.

Listings follow the same rules as single reads (``permissions.can_read``): published
for everybody, your own unpublished records once you may write, everything (but
trash) for editors. TEC lists everybody's drafts to contributors; we do not, because
the single read of such a draft is refused to them anyway.
"""

from __future__ import annotations

import peewee as pw

from ..models import PostModel, User
from ..permissions import has_cap

LISTED_BY_DEFAULT = ["publish", "future", "draft", "pending", "private"]


def listable(
    model: type[PostModel], user: User | None, statuses: list[str] | None = None
) -> pw.Expression:
    """Records ``user`` may see in a listing, limited to ``statuses`` if given (a
    status filter may ask for trash; the default never shows it)."""
    if statuses is None:
        statuses = ["publish"] if not has_cap(user, "edit_posts") else LISTED_BY_DEFAULT
    condition = model.status.in_(statuses) if len(statuses) > 1 else model.status == statuses[0]
    if user is None or has_cap(user, "edit_others_posts") or statuses == ["publish"]:
        return condition
    return condition & ((model.status == "publish") | (model.author == user.id))
