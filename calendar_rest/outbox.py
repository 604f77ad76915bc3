"""The webhook outbox, filled inside every API write's own transaction (``sync.md``
§5.1, §5.4).

After a write's responder succeeded, one message is enqueued per change entry the write
collected (``repository.changes.PendingChanges``) per active subscription whose events match
(``*`` or ``<record type>.<kind>``). The payload is rendered then, once: a record an
anonymous reader can read after the change travels exactly as an anonymous ``GET`` of
its item route on the default-language root answers it (the route's own responder is
run, in the same transaction); any other record travels as its ID and URL alone.
Serving a write never delivers anything: the worker (``delivery/``) does.
"""

from __future__ import annotations

import dataclasses
import typing as t

from marshmallow import Schema

from .clock import Clock, utc_now
from .errors import RestError
from .models import ChangeEntry, WebhookSubscription
from .queries.changes import COLLECTIONS
from .queries.webhooks import active_subscriptions, subscription_events
from .repository.webhooks import enqueue
from .resources.base import Arguments, Call
from .schemas.webhooks import ALL_EVENTS
from .settings import DEFAULT_LANGUAGE
from .urls import Urls
from .wire.reply import Reply
from .wire.webhooks import envelope

#: statuses an anonymous reader can read a post in (terms are public while they exist)
PUBLIC_STATUS = "publish"


class Renderer(t.Protocol):
    """What the outbox needs of a route's bound target (``dispatch.Target``)."""

    @property
    def schema(self) -> Schema: ...

    @property
    def responder(self) -> t.Callable[..., Reply]: ...


def anonymous_call(target: Renderer, values: dict[str, t.Any], urls: Urls, clock: Clock) -> Call:
    """The call an anonymous ``GET`` without parameters makes, in the default language."""
    return Call(
        user=None,
        params={},
        arguments=Arguments.load(target.schema, {}),
        urls=urls,
        language=DEFAULT_LANGUAGE,
        clock=clock,
        values=values,
    )


def matches(events: list[str], event_type: str) -> bool:
    return ALL_EVENTS in events or event_type in events


class Outbox:
    """Enqueues the messages of the running write (see the module docstring)."""

    def __init__(self, targets: t.Mapping[tuple[str, str], Renderer]) -> None:
        self.targets = targets

    def enqueue_changes(self, entries: t.Sequence[ChangeEntry], urls: Urls, clock: Clock) -> int:
        """Run inside the write's transaction, after its responder, for the ``entries``
        it made; returns how many messages were enqueued. ``urls`` are the request's
        (or ``site_url``'s). Messages are independent (§5.2: no order between them),
        so they need not wait for the write's position."""
        subscriptions = active_subscriptions()
        if not subscriptions or not entries:
            return 0
        default_root = dataclasses.replace(urls, language_prefix="")
        now = utc_now(clock)
        wanted: list[tuple[WebhookSubscription, list[str]]] = [
            (subscription, subscription_events(subscription)) for subscription in subscriptions
        ]
        enqueued = 0
        for entry in entries:
            event_type = f"{entry.record_type}.{entry.kind}"
            targets = [s for s, events in wanted if matches(events, event_type)]
            if not targets:
                continue
            payload = self.payload(entry, event_type, default_root, clock)
            for subscription in targets:
                enqueue(subscription.id, event_type, payload, now)
                enqueued += 1
        return enqueued

    def payload(self, entry: ChangeEntry, event_type: str, urls: Urls, clock: Clock) -> bytes:
        collection = COLLECTIONS[entry.record_type]
        rest_url = urls.rest(f"{collection}/{entry.record_id}")
        record = self.public_record(entry, collection, urls, clock)
        return envelope(
            event_type, entry.changed_utc, entry.record_type, entry.record_id, rest_url, record
        )

    def public_record(
        self, entry: ChangeEntry, collection: str, urls: Urls, clock: Clock
    ) -> dict[str, t.Any] | None:
        """The record as an anonymous reader gets it now, or None when it cannot read
        it (not published, trashed, deleted)."""
        public = entry.after_status == PUBLIC_STATUS or (
            entry.record_type in ("category", "tag") and entry.after_status is not None
        )
        target = self.targets.get((f"{collection}.item", "GET"))
        if not public or target is None:
            return None
        values = {"id": entry.record_id}
        try:
            reply = target.responder(anonymous_call(target, values, urls, clock), **values)
        except RestError:
            return None
        return t.cast(dict[str, t.Any], reply.body) if reply.status == 200 else None
