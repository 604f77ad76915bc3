"""``calendar-rest webhooks run|list|disable|enable|retry`` (``sync.md`` §5.2).

``run`` is the delivery worker: start one or several beside the servers, each
logging like ``serve`` (``--log-format``) and, with ``--metrics-port``, serving its
own ``/-/metrics``. The other actions are the operator's: they never show a secret.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import logging
import signal
import sys
import threading
import typing as t

from ..clock import SYSTEM_CLOCK, utc_now
from ..delivery.probes import serve_probes
from ..delivery.worker import LEASE, Worker
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..models import WebhookSubscription
from ..queries.lookups.webhooks import (
    FAILED,
    PENDING,
    all_subscriptions,
    message_by_key,
    message_counts,
    subscription_by_id,
    subscription_events,
)
from ..repository.webhooks import requeue_failed, set_active
from ..settings import Settings
from ..telemetry.logs import configure as configure_logs
from .database import open_database
from .parsing import CliError, add_log_format, bounded_int

Handler = t.Callable[[argparse.Namespace, Settings, Translate], int]
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
CANNOT_SERVE_METRICS = N_("cannot serve the worker's metrics on %(address)s: %(error)s")
log = logging.getLogger("calendar_rest.webhooks")


def add_commands(commands: t.Any, _: Translate) -> None:
    webhooks = commands.add_parser("webhooks", help=_("deliver webhooks and manage subscriptions"))
    actions = webhooks.add_subparsers(dest="webhooks_command", metavar="ACTION", required=True)

    run = actions.add_parser(
        "run",
        help=_("run the delivery worker until SIGTERM or SIGINT"),
        description=_(
            "Deliver the webhook outbox: poll at least once per second and send up to "
            "webhook_concurrency attempts at once. Several workers may run at once."
        ),
    )
    run.add_argument("--once", action="store_true", help=_("deliver what is due, then exit"))
    # the lease length, for tests of a crashed worker (hidden: 60 s in production)
    run.add_argument(
        "--lease",
        type=bounded_int(1, 3600, _("must be a positive integer")),
        default=int(LEASE.total_seconds()),
        help=argparse.SUPPRESS,
    )
    run.add_argument(
        "--metrics-port",
        metavar="PORT",
        type=bounded_int(0, 65535, _("must be an integer between 0 and 65535")),
        help=_(
            "serve /-/live and the worker's Prometheus /-/metrics on this port, the "
            "latter guarded by metrics_allow and metrics_token (default: not served)"
        ),
    )
    run.add_argument(
        "--metrics-host",
        metavar="HOST",
        default="127.0.0.1",
        help=_("address the metrics port binds (default %(default)s)"),
    )
    add_log_format(run, _)
    run.set_defaults(handler=cmd_run)

    listing = actions.add_parser(
        "list", help=_("list subscriptions: id, URL, events, active, pending and failed counts")
    )
    listing.set_defaults(handler=cmd_list)

    def action(name: str, handler: Handler, help: str) -> t.Any:
        parser = actions.add_parser(name, help=help)
        parser.add_argument(
            "id",
            metavar="ID",
            type=bounded_int(1, None, _("must be a positive integer")),
            help=_("subscription ID, as `webhooks list` shows it"),
        )
        parser.set_defaults(handler=handler)
        return parser

    action("disable", cmd_disable, _("stop deliveries to a subscription; drop its pending ones"))
    action("enable", cmd_enable, _("resume deliveries to a subscription, with new changes only"))
    retry = action("retry", cmd_retry, _("re-queue failed messages, keeping their webhook-id"))
    retry.add_argument("--message", metavar="MSG_ID", help=_("only this message (msg_…)"))


def _subscription(subscription_id: int) -> WebhookSubscription:
    """:raises CliError: no such subscription."""
    subscription = subscription_by_id(subscription_id)
    if subscription is None:
        raise CliError(N_("unknown webhook subscription %(id)d"), id=subscription_id)
    return subscription


@contextlib.contextmanager
def _stopped_by_signals(stop: threading.Event) -> t.Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (when running in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    for number in STOP_SIGNALS:
        signal.signal(number, lambda *_: stop.set())
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _metrics_served(
    worker: Worker, settings: Settings, args: argparse.Namespace
) -> t.Iterator[None]:
    """With ``--metrics-port``: the worker counted and its probes served meanwhile.

    :raises CliError: the address cannot be bound.
    """
    if args.metrics_port is None:
        yield
        return
    try:
        server = serve_probes(worker.measured(), settings, args.metrics_host, args.metrics_port)
    except (OSError, ValueError) as exc:
        address = f"{args.metrics_host}:{args.metrics_port}"
        raise CliError(CANNOT_SERVE_METRICS, address=address, error=str(exc)) from None
    for url in server.urls:
        log.info("webhook worker metrics on %s", url)
    try:
        yield
    finally:
        server.close()


def cmd_run(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    configure_logs(args.log_format)
    stop = threading.Event()
    with open_database(settings.database_url) as database:
        worker = Worker(database, settings, lease=dt.timedelta(seconds=args.lease))
        with _metrics_served(worker, settings, args):
            if args.once:
                worker.run_once()
                return 0
            with _stopped_by_signals(stop):
                worker.run(stop)
    return 0


def cmd_list(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    """One line per subscription, tab-separated; never the secret."""
    with open_database(settings.database_url) as database, database.connection_context():
        subscriptions = all_subscriptions()
        counts = message_counts()
    for subscription in subscriptions:
        events = ",".join(subscription_events(subscription))
        active = "active" if subscription.active else "inactive"
        pending = counts.get((subscription.id, PENDING), 0)
        failed = counts.get((subscription.id, FAILED), 0)
        print(
            f"{subscription.id}\t{subscription.url}\t{events}\t{active}\t"
            f"pending={pending}\tfailed={failed}"
        )
    if not subscriptions:
        print(_("No webhook subscription."), file=sys.stderr)
    return 0


def _set_active(args: argparse.Namespace, settings: Settings, active: bool) -> None:
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            set_active(_subscription(args.id), active)


def cmd_disable(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    _set_active(args, settings, False)
    print(_("Disabled webhook subscription %(id)d.") % {"id": args.id})
    return 0


def cmd_enable(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    _set_active(args, settings, True)
    print(_("Enabled webhook subscription %(id)d.") % {"id": args.id})
    return 0


def cmd_retry(args: argparse.Namespace, settings: Settings, _: Translate) -> int:
    with open_database(settings.database_url) as database:
        with database.connection_context(), database.atomic():
            subscription = _subscription(args.id)
            if args.message is not None and message_by_key(subscription.id, args.message) is None:
                raise CliError(
                    N_("subscription %(id)d has no message %(key)s"),
                    id=args.id,
                    key=args.message,
                )
            count = requeue_failed(subscription.id, args.message, utc_now(SYSTEM_CLOCK))
    print(_("Re-queued %(count)d failed message(s).") % {"count": count})
    return 0
