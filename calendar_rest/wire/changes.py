"""The change feed's JSON: entries and the page wrapper (``sync.md`` §3.2, §3.3)."""

from __future__ import annotations

import datetime as dt
import typing as t

from ..dates import format_datetime, from_utc
from ..queries.loaded import FEED_COLLECTIONS, FeedEntry
from ..urls import Urls


def change_entry(entry: FeedEntry, urls: Urls, zone: dt.tzinfo) -> dict[str, t.Any]:
    """One entry; its ``rest_url`` is the record's ID-based URL on the request's root,
    also for a ``delete`` (the client knows which copy to drop)."""
    changed = _as_datetime(entry.changed_utc)
    return {
        "type": entry.record_type,
        "id": entry.record_id,
        "action": entry.action,
        "modified": format_datetime(from_utc(changed, zone)),
        "modified_utc": format_datetime(changed),
        "rest_url": urls.rest(f"{FEED_COLLECTIONS[entry.record_type]}/{entry.record_id}"),
    }


def _as_datetime(value: t.Any) -> dt.datetime:
    """A stored time as the driver returns it (text on SQLite for computed selects)."""
    if isinstance(value, dt.datetime):
        return value.replace(microsecond=0)
    return dt.datetime.fromisoformat(str(value)).replace(microsecond=0)
