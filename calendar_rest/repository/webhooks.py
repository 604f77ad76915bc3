"""Writes of webhook subscriptions, the outbox and delivery attempts (``sync.md`` §4,
§5).

The API writes subscriptions and, inside every write's own transaction, the outbox
messages its changes produce (``outbox.py`` renders them). The worker claims, records
and prunes in short transactions of its own, which never bump the write generation:
webhook responses are never cached, and deliveries must not empty the read cache.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import secrets
import typing as t

import orjson

from ..db import insert_rows
from ..models import WebhookAttempt, WebhookMessage, WebhookSubscription
from ..queries.lookups.webhooks import DONE, DROPPED, FAILED, PENDING, due_messages, failed_messages

SECRET_PREFIX = "whsec_"
KEY_BYTES = 32


def create_subscription(
    url: str, events: list[str], active: bool, now: dt.datetime
) -> tuple[WebhookSubscription, str]:
    """A new subscription and its secret: ``whsec_`` and the standard base64 of 32
    random bytes, the signing key. The secret is returned once, never stored apart
    from the key, and never shown again."""
    key = base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii")
    subscription = WebhookSubscription.create(
        url=url,
        events=orjson.dumps(events).decode(),
        active=active,
        created_at=now,
        signing_key=key,
    )
    return subscription, SECRET_PREFIX + key


def update_subscription(
    subscription: WebhookSubscription, args: t.Mapping[str, t.Any]
) -> WebhookSubscription:
    """Replace each given field; deactivating drops the pending messages, activating
    clears the reason the service gave for disabling."""
    if "url" in args:
        subscription.url = args["url"]
    if "events" in args:
        subscription.events = orjson.dumps(args["events"]).decode()
    if "active" in args:
        if args["active"] and not subscription.active:
            subscription.disabled_reason = None
        subscription.active = args["active"]
    subscription.save()
    if not subscription.active:
        drop_pending(subscription.id)
    return subscription


def delete_subscription(subscription: WebhookSubscription) -> None:
    """Permanent: its messages and attempts go with it."""
    WebhookAttempt.delete().where(WebhookAttempt.subscription == subscription.id).execute()
    WebhookMessage.delete().where(WebhookMessage.subscription == subscription.id).execute()
    subscription.delete_instance()


def drop_pending(subscription_id: int) -> int:
    return int(
        WebhookMessage.update(state=DROPPED, locked_until=None, claim=None)
        .where((WebhookMessage.subscription == subscription_id) & (WebhookMessage.state == PENDING))
        .execute()
    )


def set_active(subscription: WebhookSubscription, active: bool) -> None:
    """The operator's ``enable``/``disable``: the same rules as an API update."""
    update_subscription(subscription, {"active": active})


def new_message_key() -> str:
    """A ``webhook-id``: ``msg_`` and 24 random URL-safe characters."""
    return "msg_" + secrets.token_urlsafe(18)


#: the most payload bytes one statement of :func:`enqueue_all` carries (MariaDB refuses
#: a statement over ``max_allowed_packet``, 16 MB by default)
ENQUEUED_BYTES = 4 * 1024 * 1024
MESSAGE_COLUMNS = (
    "message_id",
    "subscription",
    "type",
    "payload",
    "state",
    "attempts",
    "next_attempt_at",
    "created_at",
)


def enqueue_all(messages: t.Sequence[tuple[int, str, bytes]], now: dt.datetime) -> None:
    """Pending messages ``(subscription ID, event type, payload)``, due ``now``, in
    multi-row statements of at most :data:`ENQUEUED_BYTES` of payload (a series write
    enqueues thousands)."""
    fields = WebhookMessage._meta.fields
    batch: list[tuple[t.Any, ...]] = []
    size = 0
    for subscription_id, event_type, payload in messages:
        values = (new_message_key(), subscription_id, event_type, payload, PENDING, 0, now, now)
        row = tuple(
            fields[name].db_value(value)
            for name, value in zip(MESSAGE_COLUMNS, values, strict=True)
        )
        if batch and size + len(payload) > ENQUEUED_BYTES:
            insert_rows(WebhookMessage, MESSAGE_COLUMNS, batch)
            batch, size = [], 0
        batch.append(row)
        size += len(payload)
    insert_rows(WebhookMessage, MESSAGE_COLUMNS, batch)


def claim_due(
    now: dt.datetime,
    lease: dt.timedelta,
    limit: int,
    *,
    skip_locked: bool,
    due: dt.datetime | None = None,
) -> list[tuple[int, str]]:
    """Take the lease of up to ``limit`` messages due at ``due`` (default ``now``),
    in a short transaction of its own; returns ``(id, claim token)`` pairs. The
    conditional update makes a claim safe without row locks too (SQLite, whose
    writers are serialised): a message another worker took meanwhile is not updated,
    and not returned."""
    claimed = []
    for message_id in due_messages(now, limit, skip_locked=skip_locked, due=due):
        token = secrets.token_hex(16)
        taken = (
            WebhookMessage.update(locked_until=now + lease, claim=token)
            .where(
                (WebhookMessage.id == message_id)
                & (WebhookMessage.state == PENDING)
                & (WebhookMessage.locked_until.is_null() | (WebhookMessage.locked_until <= now))
            )
            .execute()
        )
        if taken:
            claimed.append((message_id, token))
    return claimed


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one attempt came to, as the worker judged it."""

    attempted_at: dt.datetime
    status_code: int | None
    error: str | None
    duration_ms: int
    #: the message's new state: ``done``, ``pending`` (retried) or ``failed``
    state: str
    next_attempt_at: dt.datetime | None
    #: the endpoint answered 410: disable the subscription
    gone: bool = False


GONE_REASON = "endpoint answered 410"


def record_attempt(message: WebhookMessage, claim: str, outcome: Outcome, now: dt.datetime) -> bool:
    """Record an attempt and move its message on, only while ``claim`` still holds
    the lease (run in a short transaction of its own); returns whether it did. A
    worker that outlived its lease records nothing: another one owns the message."""
    values: dict[t.Any, t.Any] = {
        WebhookMessage.state: outcome.state,
        WebhookMessage.attempts: WebhookMessage.attempts + 1,
        WebhookMessage.locked_until: None,
        WebhookMessage.claim: None,
    }
    if outcome.next_attempt_at is not None:
        values[WebhookMessage.next_attempt_at] = outcome.next_attempt_at
    held = (
        WebhookMessage.update(values)
        .where(
            (WebhookMessage.id == message.id)
            & (WebhookMessage.claim == claim)
            & (WebhookMessage.state == PENDING)
            & (WebhookMessage.locked_until > now)
        )
        .execute()
    )
    if not held:
        return False
    WebhookAttempt.create(
        subscription=message.subscription_id,
        message=message.id,
        attempt=message.attempts + 1,
        attempted_at=outcome.attempted_at,
        status_code=outcome.status_code,
        error=outcome.error,
        duration_ms=outcome.duration_ms,
        next_attempt_at=outcome.next_attempt_at if outcome.state == PENDING else None,
    )
    if outcome.gone:
        WebhookSubscription.update(active=False, disabled_reason=GONE_REASON).where(
            WebhookSubscription.id == message.subscription_id
        ).execute()
        drop_pending(message.subscription_id)
    return True


def requeue_failed(subscription_id: int, message_key: str | None, now: dt.datetime) -> int:
    """Put failed messages back in the queue, due now, their ``webhook-id`` kept; the
    attempt count starts again so the schedule is run anew."""
    ids = [message.id for message in failed_messages(subscription_id, message_key)]
    if not ids:
        return 0
    return int(
        WebhookMessage.update(state=PENDING, attempts=0, next_attempt_at=now, locked_until=None)
        .where(WebhookMessage.id.in_(ids))
        .execute()
    )


def prune_deliveries(before: dt.datetime) -> int:
    """Drop attempts older than ``before`` and finished messages created before it
    (failed ones stay, for an operator to re-queue); returns the attempts dropped."""
    dropped = WebhookAttempt.delete().where(WebhookAttempt.attempted_at < before).execute()
    finished = WebhookMessage.select(WebhookMessage.id).where(
        WebhookMessage.state.in_([DONE, DROPPED]) & (WebhookMessage.created_at < before)
    )
    WebhookAttempt.delete().where(WebhookAttempt.message.in_(finished)).execute()
    WebhookMessage.delete().where(
        WebhookMessage.state.in_([DONE, DROPPED]) & (WebhookMessage.created_at < before)
    ).execute()
    return int(dropped)


__all__ = [
    "DONE",
    "FAILED",
    "GONE_REASON",
    "Outcome",
    "SECRET_PREFIX",
    "claim_due",
    "create_subscription",
    "delete_subscription",
    "drop_pending",
    "enqueue_all",
    "prune_deliveries",
    "record_attempt",
    "requeue_failed",
    "set_active",
    "update_subscription",
]
