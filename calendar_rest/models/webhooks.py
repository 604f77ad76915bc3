"""Webhooks (``sync.md`` §4, §5): subscriptions, the outbox of messages a write
enqueues, and each delivery attempt."""

from __future__ import annotations

import typing as t

import peewee as pw

from .base import BaseModel


class PayloadField(pw.BlobField):
    """Bytes of any size: MariaDB's ``BLOB`` stops at 64 KiB, so it gets ``LONGBLOB``."""

    def ddl_datatype(self, ctx: t.Any) -> t.Any:
        if isinstance(self.model._meta.database, pw.MySQLDatabase):
            return pw.SQL("LONGBLOB")
        return super().ddl_datatype(ctx)

    def python_value(self, value: t.Any) -> bytes | None:
        """``bytes`` on every backend (PostgreSQL's driver returns a ``memoryview``)."""
        return None if value is None else bytes(value)


class WebhookSubscription(BaseModel):
    """An administrator's webhook endpoint (``sync.md`` §4). ``signing_key`` holds the
    standard base64 of the 32-byte key the worker signs with; the ``whsec_`` secret
    built from it is shown once, in the create response."""

    id: pw.AutoField[int]
    #: exactly as submitted (at most 2048 characters)
    url = pw.TextField()
    #: the event type names as a JSON array, in the submitted order
    events = pw.TextField()
    active = pw.BooleanField(default=True)
    disabled_reason = pw.CharField(max_length=100, null=True)
    created_at = pw.DateTimeField()
    signing_key = pw.CharField(max_length=64)


class WebhookMessage(BaseModel):
    """One outbox message: one change for one subscription, its payload rendered once
    when the write that made the change enqueued it (``sync.md`` §5.1, §5.7).

    ``state`` is ``pending`` (due at ``next_attempt_at``), ``done``, ``failed`` or
    ``dropped``; a worker holds a message while ``locked_until`` is in the future and
    ``claim`` is its token, so only the holder of the lease records the attempt.
    """

    id: pw.AutoField[int]
    subscription_id: pw.ForeignKeyField[int]
    #: the ``webhook-id`` header: ``msg_`` and a random URL-safe string
    message_id = pw.CharField(max_length=40, unique=True)
    subscription = pw.ForeignKeyField(WebhookSubscription, on_delete="CASCADE")
    type = pw.CharField(max_length=24)
    payload = PayloadField()
    state = pw.CharField(max_length=8, default="pending")
    attempts = pw.IntegerField(default=0)
    next_attempt_at = pw.DateTimeField()
    locked_until = pw.DateTimeField(null=True)
    claim = pw.CharField(max_length=32, null=True)
    created_at = pw.DateTimeField()

    class Meta:
        indexes = (
            # the worker's claim: pending messages due first, an index range
            (("state", "next_attempt_at"), False),
            # a subscription's pending and failed counts, and dropping its pending ones
            (("subscription", "state"), False),
            (("created_at",), False),  # pruning
        )


class WebhookAttempt(BaseModel):
    """One delivery attempt of a message (one item of ``webhooks/{id}/deliveries``)."""

    id: pw.AutoField[int]
    subscription_id: pw.ForeignKeyField[int]
    message_id: pw.ForeignKeyField[int]
    subscription = pw.ForeignKeyField(WebhookSubscription, on_delete="CASCADE")
    message = pw.ForeignKeyField(WebhookMessage, on_delete="CASCADE")
    attempt = pw.IntegerField()
    attempted_at = pw.DateTimeField()
    status_code = pw.IntegerField(null=True)
    error = pw.CharField(max_length=100, null=True)
    duration_ms = pw.IntegerField()
    next_attempt_at = pw.DateTimeField(null=True)

    class Meta:
        indexes = (
            (("subscription", "id"), False),  # the deliveries list, newest first
            (("attempted_at",), False),  # pruning
        )
