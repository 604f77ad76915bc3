"""``GET /changes``: the change feed's arguments (``sync.md`` §3.1)."""

from __future__ import annotations

from . import fields as f
from . import shared
from .messages import N_
from .shared import Args

#: the record types of the feed, in its order (``queries.changes.RECORD_TYPES``)
FEED_TYPES = ("event", "venue", "organizer", "category", "tag")


class ChangesArgs(Args):
    # any string is taken: an unusable token is a 410 (start over), never a 400
    sync_token = f.String(
        allow_empty=True,
        help=N_("The token of an earlier walk: only what changed since is returned"),
    )
    types = f.StringList(
        choices=FEED_TYPES, help=N_("Only changes of these record types (all by default)")
    )
    per_page = shared.per_page(N_("The number of changes to return on each page"))
    page = shared.page()
    snapshot = f.String(
        allow_empty=True,
        help=N_("Set by the service in page links: the end of the walk the pages describe"),
    )
    # the language of the answer's texts (errors); the feed itself covers every language
    i18n_language = f.Language()
