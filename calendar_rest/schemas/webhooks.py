"""Argument sets of the webhook subscription routes (``sync.md`` §4).

The two webhook fields check shape only: the URL's form and the event names.
Whether the URL's host may be reached (``ssrf``) needs the network and is the
resource's check.
"""

from __future__ import annotations

import typing as t
from urllib.parse import urlsplit

from . import fields as f
from . import shared
from .messages import N_
from .shared import Args

#: the record types of change entries and the kinds of change (``sync.md`` §4.2)
RECORD_TYPES = ("event", "venue", "organizer", "category", "tag")
KINDS = ("created", "updated", "deleted")
EVENT_TYPES = tuple(f"{record}.{kind}" for record in RECORD_TYPES for kind in KINDS)
ALL_EVENTS = "*"
MAX_WEBHOOK_URL = 2048


#: the TCP ports a connection can be made to (0 asks the system for any free port)
PORTS = range(1, 65536)


def is_webhook_url(value: str) -> bool:
    """An absolute http(s) URL with a host, a port a connection can reach (none, or
    1-65535), and no user information."""
    if len(value) > MAX_WEBHOOK_URL or not f.is_url(value):
        return False
    try:
        parts = urlsplit(value)
        port = parts.port  # raises ValueError on a port that is not a number up to 65535
    except ValueError:
        return False
    return "@" not in parts.netloc and (port is None or port in PORTS)


class WebhookUrl(f.WPField):
    """The endpoint, kept exactly as sent (no normalisation)."""

    def json_schema(self) -> f.JsonSchema:
        return {"type": "string", "format": "uri", "maxLength": MAX_WEBHOOK_URL}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> str:
        if not isinstance(value, str):
            raise self.fail("not_string")
        if not is_webhook_url(value):
            raise self.fail("bad_webhook_url")
        return value


class EventTypes(f.WPField):
    """A non-empty list of event type names or ``*``: duplicates dropped, order kept."""

    repeatable = True

    def json_schema(self) -> f.JsonSchema:
        return {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "enum": [*EVENT_TYPES, ALL_EVENTS]},
        }

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> list[str]:
        items = f.split_list(value)
        if not items:
            raise self.fail("empty")
        names: list[str] = []
        for item in items:
            if not isinstance(item, str) or item not in (*EVENT_TYPES, ALL_EVENTS):
                raise self.fail("unknown_event_type", value=str(item)[:100])
            if item not in names:
                names.append(item)
        return names


def _write_args(name: str, *, create: bool) -> type[Args]:
    """A subscription's writable fields; a create requires ``url`` and ``events``."""
    declared: dict[str, t.Any] = {
        "url": WebhookUrl(
            required=create,
            help=N_("The endpoint URL: absolute http or https, without user information"),
        ),
        "events": EventTypes(
            required=create,
            help=N_("The event types to deliver, such as event.created, or * for all"),
        ),
        "active": f.Boolean(help=N_("Whether changes are delivered to the endpoint")),
        "i18n_language": f.Language(),
    }
    return t.cast(type[Args], Args.from_dict(declared, name=name))


WebhookCreateArgs = _write_args("WebhookCreateArgs", create=True)
WebhookWriteArgs = _write_args("WebhookWriteArgs", create=False)


class WebhookReadArgs(Args):
    """``GET`` and ``DELETE webhooks/{id}``."""

    i18n_language = f.Language()


class WebhookListArgs(Args):
    """``GET webhooks`` and ``GET webhooks/{id}/deliveries``."""

    page = shared.page()
    per_page = shared.per_page(N_("The number of items to return on each page"))
    i18n_language = f.Language()
