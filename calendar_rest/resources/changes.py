"""``GET /changes``: the permission-aware change feed (``sync.md`` §3).

A walk runs between two positions of the change log: the caller's ``sync_token``
(none: an initial sync, the state at the end) and its end, the committed head when
the first page was asked for, carried by ``snapshot`` in every page link, so all
pages of one walk describe the same set however many writes happen meanwhile. The
last page hands out the end as the next ``sync_token``.
"""

from __future__ import annotations

import math
import typing as t

from ..errors import RestError
from ..models import User
from ..queries.lists.changes import RECORD_TYPES, incremental_walk, initial_walk, protected_events
from ..queries.loaded import FeedEntry
from ..queries.lookups.site_state import CHANGES_PRUNED, database_id, generation, read_counter
from ..responders import Call, Resource
from ..routes import accepts
from ..schemas.changes import ChangesArgs
from ..wire.changes import change_entry
from ..wire.pages import Pager, list_headers
from ..wire.reply import Reply
from ..wire.sync_tokens import decode_token, encode_token


class Changes(Resource):
    """``/changes``, readable by every caller: each sees what its single reads would."""

    @accepts(ChangesArgs)
    def on_get_collection(self, call: Call) -> Reply:
        args = call.args
        database, head = database_id(), generation()
        pruned = read_counter(CHANGES_PRUNED)
        end = head
        if "snapshot" in args:
            end = _position(args["snapshot"], database, head, pruned)
        since = None
        if "sync_token" in args:
            since = _position(args["sync_token"], database, end, pruned)
        wanted = set(args.get("types") or RECORD_TYPES)
        types = [name for name in RECORD_TYPES if name in wanted]
        pager = Pager.from_args(args, self.settings)
        page, per_page, offset = pager.page, pager.per_page, pager.offset
        if since is None:
            total, entries = initial_walk(end, types, call.user, offset, per_page)
        else:
            total, entries = incremental_walk(since, end, types, call.user, offset, per_page)
        total_pages = max(1, math.ceil(total / per_page))
        zone = self.settings.site_zone

        def page_url(number: int) -> str:
            query = [("sync_token", args["sync_token"])] if since is not None else []
            if "types" in args:
                query.append(("types", ",".join(types)))
            query += [
                ("per_page", str(per_page)),
                ("page", str(number)),
                ("snapshot", encode_token(database, end)),
            ]
            return call.urls.rest_link("changes", query)

        languages = _protected_languages(entries, call.user)
        body: dict[str, t.Any] = {
            "changes": [
                change_entry(entry, call.urls, zone, language)
                for entry, language in zip(entries, languages, strict=True)
            ],
            "rest_url": page_url(page),
        }
        links = {}
        if page < total_pages:
            links["next_rest_url"] = page_url(page + 1)
        if page > 1:
            links["previous_rest_url"] = page_url(page - 1)
        body |= links
        body |= {"total": total, "total_pages": total_pages}
        if page >= total_pages:
            body["sync_token"] = encode_token(database, end)
        return Reply(body, headers=list_headers(total, total_pages, links))


def _protected_languages(entries: list[FeedEntry], user: User | None) -> list[str | None]:
    """Per entry, the language of the event it upserts when that event is
    password-protected for ``user`` (its entry names the list showing it), else None."""

    def upserts_event(entry: FeedEntry) -> bool:
        return entry.record_type == "event" and entry.action == "upsert"

    protected = protected_events({e.record_id for e in entries if upserts_event(e)}, user)
    return [protected.get(e.record_id) if upserts_event(e) else None for e in entries]


def _position(token: str, database: int, newest: int, pruned: int) -> int:
    """The position a token or snapshot names, if a walk can still start or end there.

    :raises RestError: 410 ``rest_sync_token_invalid`` when it is malformed, from
        another database, beyond ``newest``, or before entries compaction removed.
    """
    position = decode_token(token, database)
    if position is None or position > newest or position < pruned:
        raise RestError("rest_sync_token_invalid", 410)
    return position
