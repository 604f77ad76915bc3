"""Webhook subscription routes (``sync.md`` §4): ``webhooks``, ``webhooks/{id}`` and
``webhooks/{id}/deliveries``, for administrators only.

The permission comes first, before the body is read or a subscription looked up
(``permission_first``): a refused caller learns nothing, not even whether an ID
exists. The secret appears once, in the create response.
"""

from __future__ import annotations

import typing as t
from urllib.parse import urlsplit

from ..errors import ParamErrors, RestError
from ..models import User, WebhookSubscription
from ..queries.lookups.webhooks import (
    attempt_count,
    attempt_page,
    subscription_by_id,
    subscription_count,
    subscription_events,
    subscription_page,
)
from ..repository.webhooks import create_subscription, delete_subscription, update_subscription
from ..responders import METHOD_ORDER, Call, Resource
from ..routes import Route, accepts
from ..rules.permissions import has_cap
from ..rules.ssrf import host_allowed
from ..schemas import webhooks as webhook_args
from ..wire.pages import Pager
from ..wire.reply import Reply
from ..wire.webhooks import array_page, attempt_data, subscription_data

ADMIN_CAPABILITY = "manage_options"
DEFAULT_PORTS = {"http": 80, "https": 443}


class Webhooks(Resource):
    """Subscriptions, their deliveries; every method needs ``manage_options``."""

    permission_first = True
    #: answers depend on the worker's writes, which do not bump the write generation
    cacheable = False

    def may_call(self, method: str, user: User | None) -> bool:
        return has_cap(user, ADMIN_CAPABILITY)

    def allowed_methods(
        self, route: Route, values: t.Mapping[str, t.Any], user: User | None
    ) -> tuple[str, ...]:
        """The route's methods for an administrator, ``GET`` for anyone else: the same
        whether the ID exists or not."""
        if not self.may_call("GET", user):
            return ("GET",)
        return tuple(m for m in METHOD_ORDER if m in route.spec.methods)

    # -- the collection --------------------------------------------------------------

    @accepts(webhook_args.WebhookListArgs)
    def on_get_collection(self, call: Call) -> Reply:
        pager = Pager.from_args(call.args, self.settings)
        subscriptions = subscription_page(pager.per_page, pager.offset)
        items = [self.data(subscription) for subscription in subscriptions]
        return array_page(pager, "webhooks", items, subscription_count(), call.urls, call.query)

    @accepts(webhook_args.WebhookCreateArgs)
    def on_post_collection(self, call: Call) -> Reply:
        args = call.args
        if call.checking:  # resolved once, before the write lock is taken
            self.refuse_blocked(args["url"])
        call.begin_write()
        subscription, secret = create_subscription(
            args["url"], args["events"], args.get("active", True), call.now
        )
        body = {**self.data(subscription), "secret": secret}
        location = call.urls.rest(f"webhooks/{subscription.id}")
        return Reply(body, status=201, headers=[("Location", location)])

    # -- one subscription ------------------------------------------------------------

    @accepts(webhook_args.WebhookListArgs)
    def on_get_deliveries(self, call: Call, id: int) -> Reply:
        subscription = self.load(id)
        pager = Pager.from_args(call.args, self.settings)
        attempts = attempt_page(subscription.id, pager.per_page, pager.offset)
        items = [attempt_data(attempt) for attempt in attempts]
        total = attempt_count(subscription.id)
        path = f"webhooks/{subscription.id}/deliveries"
        return array_page(pager, path, items, total, call.urls, call.query)

    @accepts(webhook_args.WebhookReadArgs)
    def on_get(self, call: Call, id: int) -> Reply:
        return Reply(self.data(self.load(id)))

    @accepts(webhook_args.WebhookWriteArgs)
    def on_post(self, call: Call, id: int) -> Reply:
        """A partial update: each field given replaces the stored one."""
        subscription = self.load(id)
        args = call.args
        if "url" in args and call.checking:
            self.refuse_blocked(args["url"])
        call.begin_write()
        return Reply(self.data(update_subscription(subscription, args)))

    @accepts(webhook_args.WebhookReadArgs)
    def on_delete(self, call: Call, id: int) -> Reply:
        """Permanent, in WordPress's ``force`` shape."""
        subscription = self.load(id)
        previous = self.data(subscription)
        call.begin_write()
        delete_subscription(subscription)
        return Reply({"deleted": True, "previous": previous})

    # -- helpers ---------------------------------------------------------------------

    @staticmethod
    def load(subscription_id: int) -> WebhookSubscription:
        subscription = subscription_by_id(subscription_id)
        if subscription is None:
            raise RestError("rest_webhook_invalid_id", 404)
        return subscription

    @staticmethod
    def data(subscription: WebhookSubscription) -> dict[str, t.Any]:
        return subscription_data(subscription, subscription_events(subscription))

    def refuse_blocked(self, url: str) -> None:
        """``sync.md`` §4.4: unless private targets are allowed, the host must resolve
        to public addresses only (the worker checks again at every attempt)."""
        parts = urlsplit(url)
        port = parts.port or DEFAULT_PORTS[parts.scheme]
        if not host_allowed(parts.hostname or "", port, self.settings.webhook_allow_private):
            raise ParamErrors().add("url", "blocked_webhook_url").error()
