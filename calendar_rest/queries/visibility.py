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


def listable(model: type[PostModel], user: User | None) -> pw.Expression:
    """Condition for records ``user`` may see in a default listing (never trash)."""
    published = model.status == "publish"
    if user is None or not has_cap(user, "edit_posts"):
        return published
    if has_cap(user, "edit_others_posts"):
        return model.status != "trash"
    own = (model.author == user.id) & (model.status != "trash")
    return published | own
