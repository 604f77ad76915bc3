"""The webhook outbox, filled inside every API write's own transaction (``sync.md``
§5.1, §5.4).

After a write's responder succeeded, one message is enqueued per change entry the write
collected (``repository.changes.PendingChanges``) per active subscription whose events match
(``*`` or ``<record type>.<kind>``). The payload is rendered then, once: a record an
anonymous reader can read after the change travels exactly as an anonymous ``GET`` of
its item route on the default-language root answers it (the route's own responder is
run, in the same transaction); a published password-protected event, which that route
refuses without its password, travels as the anonymous event list shows it, redacted,
with the list's URL (``listed_url``, as its change-feed entry has it); any other record
travels as its ID and URL alone. Serving a write never delivers anything: the worker
(``delivery/``) does.
"""

from __future__ import annotations

import dataclasses
import typing as t

from marshmallow import Schema

from .clock import Clock, utc_now
from .errors import RestError
from .models import ChangeEntry, WebhookSubscription
from .queries.changes import COLLECTIONS, protected_events
from .queries.webhooks import active_subscriptions, subscription_events
from .repository.webhooks import enqueue
from .resources.base import Arguments, Call
from .schemas.webhooks import ALL_EVENTS
from .settings import DEFAULT_LANGUAGE
from .urls import Urls
from .wire.changes import protected_keys
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


def anonymous_call(
    target: Renderer,
    values: dict[str, t.Any],
    urls: Urls,
    clock: Clock,
    params: dict[str, t.Any] | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Call:
    """The call an anonymous ``GET`` with ``params`` (default: none) makes, in the
    default language unless ``params`` choose another (``i18n_language``)."""
    params = params or {}
    return Call(
        user=None,
        params=params,
        arguments=Arguments.load(target.schema, params),
        urls=urls,
        language=language,
        clock=clock,
        values=values,
        query=tuple(params.items()),
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
        language = None
        if entry.record_type == "event" and entry.after_status == PUBLIC_STATUS:
            language = protected_events({entry.record_id}, None).get(entry.record_id)
        if language is None:
            record, protected = self.public_record(entry, collection, urls, clock), None
        else:
            record = self.listed_record(entry.record_id, language, urls, clock)
            protected = protected_keys(urls, entry.record_id, language)
        return envelope(
            event_type,
            entry.changed_utc,
            entry.record_type,
            entry.record_id,
            rest_url,
            record,
            protected,
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

    def listed_record(
        self, event_id: int, language: str, urls: Urls, clock: Clock
    ) -> dict[str, t.Any] | None:
        """A published password-protected event as an anonymous ``GET`` of its
        ``listed_url`` lists it (redacted), or None when no list shows it (hidden from
        listings)."""
        target = self.targets[("events.collection", "GET")]
        params = {"include": str(event_id)}
        if language != DEFAULT_LANGUAGE:
            params["i18n_language"] = language
        call = anonymous_call(target, {}, urls, clock, params, language)
        listed = t.cast(dict[str, t.Any], target.responder(call).body)["events"]
        return t.cast(dict[str, t.Any], listed[0]) if listed else None
