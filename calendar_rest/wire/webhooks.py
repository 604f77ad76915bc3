"""Webhook shapes (``sync.md`` §4.2, §4.5, §5.4): subscriptions, delivery attempts,
their WordPress-style list pages and the thin envelope a delivery carries."""

from __future__ import annotations

import datetime as dt
import typing as t

import orjson

from ..wordpress.urls import Urls
from .pages import Pager, list_headers
from .reply import Reply


def iso_utc(when: dt.datetime | None) -> str | None:
    """``YYYY-MM-DDTHH:MM:SSZ`` for a naive UTC time."""
    if when is None:
        return None
    return when.replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def subscription_data(subscription: t.Any, events: list[str]) -> dict[str, t.Any]:
    """A subscription as every response but the create shows it: never its secret."""
    return {
        "id": subscription.id,
        "url": subscription.url,
        "events": events,
        "active": bool(subscription.active),
        "disabled_reason": subscription.disabled_reason,
        "created_at": iso_utc(subscription.created_at),
    }


def attempt_data(attempt: t.Any) -> dict[str, t.Any]:
    """One item of ``webhooks/{id}/deliveries``: one attempt of one message."""
    return {
        "id": attempt.id,
        "message_id": attempt.message_key,
        "type": attempt.message_type,
        "attempt": attempt.attempt,
        "attempted_at": iso_utc(attempt.attempted_at),
        "status_code": attempt.status_code,
        "error": attempt.error,
        "duration_ms": attempt.duration_ms,
        "next_attempt_at": iso_utc(attempt.next_attempt_at),
    }


def array_page(
    pager: Pager,
    path: str,
    items: list[dict[str, t.Any]],
    total: int,
    urls: Urls,
    own_query: t.Sequence[tuple[str, str]],
) -> Reply:
    """A WordPress core list: a bare JSON array, its totals and page links in the
    ``X-WP-Total``, ``X-WP-TotalPages`` and ``Link`` headers."""
    total_pages = pager.total_pages(total)
    links = pager.links(path, own_query, total_pages, urls)
    return Reply(items, headers=list_headers(total, total_pages, links, tec=False))


def envelope(
    event_type: str,
    changed_utc: dt.datetime,
    record_type: str,
    record_id: int,
    rest_url: str,
    record: dict[str, t.Any] | None,
    protected: dict[str, t.Any] | None = None,
) -> bytes:
    """The Standard Webhooks thin envelope, rendered once at enqueue time. Without a
    public ``record`` the action is ``delete`` and nothing of the record's content
    travels (title, content, slug and permalink can carry hidden text), unless the
    record is a published password-protected event: ``protected`` holds the keys its
    change-feed entry adds (``wire.changes.protected_keys``), the action is ``upsert``
    and ``record`` is what its list shows, when a list shows it."""
    data: dict[str, t.Any] = {
        "id": record_id,
        "type": record_type,
        "action": "upsert" if record is not None or protected is not None else "delete",
        "rest_url": rest_url,
    }
    if protected is not None:
        data |= protected
    if record is not None:
        data["record"] = record
    body = {"type": event_type, "timestamp": iso_utc(changed_utc), "data": data}
    return orjson.dumps(body)
