"""Webhook subscriptions and delivery attempts as the API shows them (``sync.md`` §4)."""

from __future__ import annotations

import typing as t

from marshmallow import fields

from ..messages import N_
from .base import Representation, flag, integer, strings, text


def _subscription_fields() -> dict[str, fields.Field[t.Any]]:
    return {
        "id": integer(N_("The subscription ID"), required=True),
        "url": text(N_("The endpoint URL, exactly as submitted"), required=True),
        "events": strings(N_("The event types delivered, in the given order"), required=True),
        "active": flag(N_("Whether changes are delivered"), required=True),
        "disabled_reason": fields.String(
            required=True,
            allow_none=True,
            metadata={"description": N_("Why the service disabled the subscription, if it did")},
        ),
        "created_at": text(N_("When it was created, ISO 8601 UTC"), required=True),
    }


Webhook = Representation.from_dict(_subscription_fields(), name="Webhook")
WebhookCreated = Representation.from_dict(
    {
        **_subscription_fields(),
        "secret": text(
            N_("The signing secret (whsec_ and base64): shown in this response only"),
            required=True,
        ),
    },
    name="WebhookCreated",
)
WebhookDeleted = Representation.from_dict(
    {
        "deleted": flag(N_("Always true"), required=True),
        "previous": fields.Nested(
            Webhook, required=True, metadata={"description": N_("The deleted subscription")}
        ),
    },
    name="WebhookDeleted",
)


def _nullable_integer(description: str) -> fields.Integer:
    return fields.Integer(required=True, allow_none=True, metadata={"description": description})


def _nullable_text(description: str) -> fields.String:
    return fields.String(required=True, allow_none=True, metadata={"description": description})


WebhookDelivery = Representation.from_dict(
    {
        "id": integer(N_("The attempt ID"), required=True),
        "message_id": text(N_("The webhook-id sent"), required=True),
        "type": text(N_("The event type, such as event.created"), required=True),
        "attempt": integer(N_("1 for the first attempt of a message, then 2, 3…"), required=True),
        "attempted_at": text(N_("When the attempt started, ISO 8601 UTC"), required=True),
        "status_code": _nullable_integer(N_("The endpoint's HTTP status; null without answer")),
        "error": _nullable_text(N_("Timeout, connection error or blocked address")),
        "duration_ms": integer(N_("The time the attempt took, in milliseconds"), required=True),
        "next_attempt_at": _nullable_text(N_("When the message is tried again, if it will be")),
    },
    name="WebhookDelivery",
)
