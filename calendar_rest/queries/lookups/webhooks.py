"""Reads of webhook subscriptions, their outbox messages and delivery attempts
(``sync.md`` §4, §5)."""

from __future__ import annotations

import datetime as dt
import typing as t

import orjson
import peewee as pw

from ...models import WebhookAttempt, WebhookMessage, WebhookSubscription, could_exist

#: states a message can be in; ``pending`` ones are due at ``next_attempt_at``
PENDING, DONE, FAILED, DROPPED = "pending", "done", "failed", "dropped"


def subscription_events(subscription: WebhookSubscription) -> list[str]:
    return t.cast(list[str], orjson.loads(subscription.events))


def subscription_by_id(subscription_id: int) -> WebhookSubscription | None:
    if not could_exist(subscription_id):
        return None
    return WebhookSubscription.get_or_none(WebhookSubscription.id == subscription_id)


def subscription_count() -> int:
    return int(WebhookSubscription.select().count())


def subscription_page(limit: int, offset: int) -> list[WebhookSubscription]:
    query = WebhookSubscription.select().order_by(WebhookSubscription.id)
    return list(query.limit(limit).offset(offset))


def all_subscriptions() -> list[WebhookSubscription]:
    return list(WebhookSubscription.select().order_by(WebhookSubscription.id))


def active_subscriptions() -> list[WebhookSubscription]:
    """The subscriptions a write enqueues for (read inside the write's transaction)."""
    query = WebhookSubscription.select().where(WebhookSubscription.active == True)  # noqa: E712
    return list(query.order_by(WebhookSubscription.id))


def message_counts() -> dict[tuple[int, str], int]:
    """Messages per (subscription, state), for ``webhooks list``."""
    rows = WebhookMessage.select(
        WebhookMessage.subscription, WebhookMessage.state, pw.fn.COUNT(WebhookMessage.id)
    ).group_by(WebhookMessage.subscription, WebhookMessage.state)
    tuples = t.cast(t.Iterable[tuple[t.Any, ...]], rows.tuples())
    return {(int(row[0]), str(row[1])): int(row[2]) for row in tuples}


def pending_message_count() -> int:
    """Messages waiting in the outbox, due now or later (the worker's outbox depth
    metric): a range of the ``(state, next_attempt_at)`` index."""
    return int(WebhookMessage.select().where(WebhookMessage.state == PENDING).count())


def attempt_count(subscription_id: int) -> int:
    return int(
        WebhookAttempt.select().where(WebhookAttempt.subscription == subscription_id).count()
    )


def attempt_page(subscription_id: int, limit: int, offset: int) -> list[t.Any]:
    """One page of a subscription's attempts, newest first, each with its message's
    ``webhook-id`` and type (``message_key``, ``message_type``)."""
    query = (
        WebhookAttempt.select(
            WebhookAttempt,
            WebhookMessage.message_id.alias("message_key"),
            WebhookMessage.type.alias("message_type"),
        )
        .join(WebhookMessage)
        .where(WebhookAttempt.subscription == subscription_id)
        .order_by(WebhookAttempt.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(query.objects())


def due_messages(
    now: dt.datetime, limit: int, *, skip_locked: bool, due: dt.datetime | None = None
) -> list[int]:
    """IDs of pending messages due at ``due`` (default ``now``) whose lease is free or
    expired at ``now``, oldest due first: a range of the ``(state, next_attempt_at)``
    index. ``skip_locked``
    (PostgreSQL, MariaDB) locks the rows read and passes over those another worker
    is claiming, so claimers never queue on each other."""
    query = (
        WebhookMessage.select(WebhookMessage.id)
        .where(
            (WebhookMessage.state == PENDING)
            & (WebhookMessage.next_attempt_at <= (due or now))
            & (WebhookMessage.locked_until.is_null() | (WebhookMessage.locked_until <= now))
        )
        .order_by(WebhookMessage.next_attempt_at, WebhookMessage.id)
        .limit(limit)
    )
    if skip_locked:
        query = query.for_update(skip_locked=True)
    return [int(row.id) for row in query]


def held_message(message_id: int, claim: str) -> WebhookMessage | None:
    """The message a worker claimed with ``claim``, with its subscription."""
    query = (
        WebhookMessage.select(WebhookMessage, WebhookSubscription)
        .join(WebhookSubscription)
        .where((WebhookMessage.id == message_id) & (WebhookMessage.claim == claim))
    )
    return t.cast("WebhookMessage | None", query.first())


def failed_messages(subscription_id: int, message_key: str | None) -> list[WebhookMessage]:
    query = WebhookMessage.select().where(
        (WebhookMessage.subscription == subscription_id) & (WebhookMessage.state == FAILED)
    )
    if message_key is not None:
        query = query.where(WebhookMessage.message_id == message_key)
    return list(query)


def message_by_key(subscription_id: int, message_key: str) -> WebhookMessage | None:
    return WebhookMessage.get_or_none(
        (WebhookMessage.subscription == subscription_id)
        & (WebhookMessage.message_id == message_key)
    )
