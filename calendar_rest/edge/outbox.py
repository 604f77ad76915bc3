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

from ..clock import Clock, utc_now
from ..errors import RestError
from ..models import ChangeEntry, WebhookSubscription
from ..queries.lists.changes import COLLECTIONS, protected_events
from ..queries.lookups.webhooks import active_subscriptions, subscription_events
from ..repository.webhooks import enqueue_all
from ..responders import Arguments, Call
from ..schemas.webhooks import ALL_EVENTS
from ..settings import DEFAULT_LANGUAGE
from ..wire.changes import protected_keys
from ..wire.reply import Reply
from ..wire.webhooks import envelope
from ..wordpress.urls import Urls

#: statuses an anonymous reader can read a post in (terms are public while they exist)
PUBLIC_STATUS = "publish"


class EventBodies(t.Protocol):
    """What the outbox needs of the events resource: many events rendered at once."""

    def shown_bodies(
        self, call: Call, event_ids: t.Sequence[int]
    ) -> dict[int, dict[str, t.Any]]: ...


class Renderer(t.Protocol):
    """What the outbox needs of a route's bound target (``targets.Target``)."""

    @property
    def schema(self) -> Schema: ...

    @property
    def responder(self) -> t.Callable[..., Reply]: ...

    @property
    def resource(self) -> object: ...


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
        so they need not wait for the write's position.

        A series write makes thousands of entries: its published events are read and
        rendered together (:meth:`Payloads.prepare`) and the messages inserted in
        multi-row statements, so that the write's lock is not held for statements per
        event and message."""
        subscriptions = active_subscriptions()
        if not subscriptions or not entries:
            return 0
        wanted: list[tuple[WebhookSubscription, list[str]]] = [
            (subscription, subscription_events(subscription)) for subscription in subscriptions
        ]
        due: list[tuple[ChangeEntry, str, list[int]]] = []
        for entry in entries:
            event_type = f"{entry.record_type}.{entry.kind}"
            targets = [s.id for s, events in wanted if matches(events, event_type)]
            if targets:
                due.append((entry, event_type, targets))
        if not due:
            return 0
        payloads = Payloads(self, dataclasses.replace(urls, language_prefix=""), clock)
        payloads.prepare([entry for entry, _, _ in due])
        messages = []
        for entry, event_type, targets in due:
            payload = payloads.of(entry, event_type)
            messages += [(subscription_id, event_type, payload) for subscription_id in targets]
        enqueue_all(messages, utc_now(clock))
        return len(messages)

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


class Payloads:
    """The payloads of one write's messages (see the module docstring): each change's
    record as an anonymous reader gets it now, rendered once however many
    subscriptions receive it."""

    def __init__(self, outbox: Outbox, urls: Urls, clock: Clock) -> None:
        self.outbox = outbox
        self.urls = urls
        self.clock = clock
        #: published password-protected events, with their languages
        self.protected: dict[int, str] = {}
        #: published events as their item route answers an anonymous reader
        self.events: dict[int, dict[str, t.Any]] = {}

    def prepare(self, entries: t.Sequence[ChangeEntry]) -> None:
        """Read and render the published events of ``entries`` together."""
        published = {
            entry.record_id
            for entry in entries
            if entry.record_type == "event" and entry.after_status == PUBLIC_STATUS
        }
        if not published:
            return
        self.protected = protected_events(published, None)
        target = self.outbox.targets[("events.item", "GET")]
        call = anonymous_call(target, {}, self.urls, self.clock)
        shown = sorted(published - set(self.protected))
        self.events = t.cast(EventBodies, target.resource).shown_bodies(call, shown)

    def of(self, entry: ChangeEntry, event_type: str) -> bytes:
        collection = COLLECTIONS[entry.record_type]
        rest_url = self.urls.rest(f"{collection}/{entry.record_id}")
        protected = None
        if entry.record_type != "event":
            record = self.outbox.public_record(entry, collection, self.urls, self.clock)
        elif entry.after_status != PUBLIC_STATUS:
            record = None
        elif entry.record_id in self.protected:
            language = self.protected[entry.record_id]
            record = self.outbox.listed_record(entry.record_id, language, self.urls, self.clock)
            protected = protected_keys(self.urls, entry.record_id, language)
        else:
            record = self.events.get(entry.record_id)
        return envelope(
            event_type,
            entry.changed_utc,
            entry.record_type,
            entry.record_id,
            rest_url,
            record,
            protected,
        )
