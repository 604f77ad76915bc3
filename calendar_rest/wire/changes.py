"""The change feed's JSON: entries and the page wrapper (``sync.md`` §3.2, §3.3)."""

from __future__ import annotations

import datetime as dt
import typing as t

from ..dates import format_datetime, from_utc
from ..queries.loaded import FEED_COLLECTIONS, FeedEntry
from ..settings import DEFAULT_LANGUAGE
from ..wordpress.urls import Urls


def change_entry(
    entry: FeedEntry, urls: Urls, zone: dt.tzinfo, protected_language: str | None = None
) -> dict[str, t.Any]:
    """One entry; its ``rest_url`` is the record's ID-based URL on the request's root,
    also for a ``delete`` (the client knows which copy to drop). The entry of an event
    password-protected for this caller (``protected_language``: its language) adds
    ``protected`` and ``listed_url``, the list showing it as this caller may see it,
    since its item route refuses whoever lacks the password."""
    changed = _as_datetime(entry.changed_utc)
    body = {
        "type": entry.record_type,
        "id": entry.record_id,
        "action": entry.action,
        "modified": format_datetime(from_utc(changed, zone)),
        "modified_utc": format_datetime(changed),
        "rest_url": urls.rest(f"{FEED_COLLECTIONS[entry.record_type]}/{entry.record_id}"),
    }
    if protected_language is not None:
        body |= protected_keys(urls, entry.record_id, protected_language)
    return body


def protected_keys(urls: Urls, event_id: int, language: str) -> dict[str, t.Any]:
    """``protected`` and ``listed_url``: the absolute URL, on ``urls``' root, of the
    event list showing only that event (``include`` ignores every date filter), in the
    event's ``language`` (a list shows the records of its language alone)."""
    query = [("include", str(event_id))]
    root_language = urls.language_prefix.lstrip("/") or DEFAULT_LANGUAGE
    if language != root_language:
        query.append(("i18n_language", language))
    return {"protected": True, "listed_url": urls.rest_link("events", query)}


def _as_datetime(value: t.Any) -> dt.datetime:
    """A stored time as the driver returns it (text on SQLite for computed selects)."""
    if isinstance(value, dt.datetime):
        return value.replace(microsecond=0)
    return dt.datetime.fromisoformat(str(value)).replace(microsecond=0)
