"""The delivery loop (``sync.md`` §5.2, §5.5–§5.7).

Each message goes through three steps, never holding a transaction across the
network: **claim** (a short transaction takes the lease: ``locked_until = now +
lease``, ``SKIP LOCKED`` on PostgreSQL and MariaDB, a conditional update on SQLite),
**send** (no transaction open, no lock held), **record** (a short transaction, only
while the lease is still this worker's). A worker that dies mid-attempt leaves its
lease to expire, and the message is sent again, same ``webhook-id``, new signature.
None of these writes bumps the write generation (no cache depends on them).

While an attempt runs, its message's ``webhook-id`` is the thread's request ID
(``telemetry.request_ids``): every log line of that delivery carries it. With
:meth:`Worker.measured`, each attempt is counted by outcome and timed.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import queue
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import peewee

from ..clock import SYSTEM_CLOCK, Clock, utc_now
from ..db import backend_name, login_store, replayed
from ..models import bind_models
from ..queries.lookups.webhooks import held_message, pending_message_count
from ..repository.changes import prune_changes
from ..repository.webhooks import Outcome, claim_due, prune_deliveries, record_attempt
from ..settings import Settings
from ..telemetry import request_ids
from ..telemetry.metrics import WorkerMetrics
from .schedule import judge
from .sender import Sender, signed_headers

log = logging.getLogger("calendar_rest.webhooks")
#: how long a claimed message is this worker's (it exceeds the largest timeout)
LEASE = dt.timedelta(seconds=60)
#: the outbox is polled at least this often (seconds)
POLL_INTERVAL = 1.0
PRUNE_EVERY = dt.timedelta(hours=1)
Claim = tuple[int, str]
#: what an attempt came to, as ``calendar_rest_webhook_deliveries`` counts it: a 2xx,
#: a 410 (the subscription disabled), another failure tried again later, the last
#: failure (the message ``failed``), an answer recorded too late (another worker
#: holds the message by then) or an error of the worker's own
OUTCOMES = ("delivered", "gone", "retry_scheduled", "failed", "lease_lost", "error")


def outcome_label(outcome: Outcome, recorded: bool) -> str:
    """The ``outcome`` label of one attempt (one of :data:`OUTCOMES`)."""
    if not recorded:
        return "lease_lost"
    if outcome.gone:
        return "gone"
    if outcome.state == "done":
        return "delivered"
    return "retry_scheduled" if outcome.state == "pending" else "failed"


class Worker:
    """Delivers the outbox of one database; :meth:`run` until stopped, or
    :meth:`run_once`. ``clock`` and ``rng`` are injectable (tests move time instead
    of waiting); ``lease`` too, so a crash test waits seconds, not a minute."""

    def __init__(
        self,
        database: peewee.Database,
        settings: Settings,
        clock: Clock = SYSTEM_CLOCK,
        *,
        lease: dt.timedelta = LEASE,
        sender: Sender | None = None,
        rng: random.Random | None = None,
        poll_interval: float = POLL_INTERVAL,
    ) -> None:
        self.database = database
        self.store = login_store(database)
        self.settings = settings
        self.clock = clock
        self.lease = lease
        self.sender = sender or Sender(
            settings.webhook_timeout, settings.webhook_allow_private, settings.webhook_concurrency
        )
        self.rng = rng or random.Random()
        self.poll_interval = poll_interval
        self.skip_locked = backend_name(database) in ("postgresql", "mysql")
        self.next_prune: dt.datetime | None = None
        self.metrics: WorkerMetrics | None = None

    def measured(self) -> WorkerMetrics:
        """Count and time this worker's attempts from now on, in metrics of its own
        (every outcome shown from the start, at 0)."""
        metrics = WorkerMetrics(self.outbox_depth)
        for outcome in OUTCOMES:
            metrics.deliveries.labels(outcome)
        self.metrics = metrics
        return metrics

    def outbox_depth(self) -> float:
        """Pending messages, read when scraped (on the scraping thread); NaN when the
        database cannot say (the scrape still answers)."""
        self.bind()
        try:
            with self.database.connection_context():
                return float(pending_message_count())
        except peewee.PeeweeException:
            log.exception("reading the webhook outbox depth failed")
            return math.nan

    def bind(self) -> None:
        """Bind the models to this worker's database for the calling thread (each
        thread binds its own; cheap when already bound)."""
        bind_models(self.database, self.store)

    # -- the three steps ---------------------------------------------------------------

    def claim(self, limit: int, due: dt.datetime | None = None) -> list[Claim]:
        """Take up to ``limit`` due messages (due at ``due``, default now)."""
        self.bind()
        now = utc_now(self.clock)
        claimed: list[Claim] = []

        def work() -> None:
            claimed[:] = claim_due(
                now, self.lease, limit, skip_locked=self.skip_locked, due=due or now
            )

        with self.database.connection_context():
            replayed(self.database, work)
        return claimed

    def attempt(self, message_id: int, claim: str) -> None:
        """Send one claimed message and record the attempt; never raises. Its log
        lines carry the message's ``webhook-id`` as their request ID."""
        token = request_ids.current.set(None)
        try:
            self._attempt(message_id, claim)
        except Exception:  # noqa: BLE001 - one message must not stop the worker
            self.count("error")
            log.exception("webhook message %d: attempt failed unexpectedly", message_id)
        finally:
            request_ids.current.reset(token)

    def count(self, outcome: str, seconds: float | None = None) -> None:
        """Count one attempt by outcome and, when it was sent, its time."""
        if self.metrics is not None:
            self.metrics.deliveries.labels(outcome).inc()
            if seconds is not None:
                self.metrics.delivery_seconds.observe(seconds)

    def _attempt(self, message_id: int, claim: str) -> None:
        self.bind()
        with self.database.connection_context():
            message = held_message(message_id, claim)
        if message is None:  # dropped or taken over meanwhile
            return
        request_ids.current.set(message.message_id)  # reset by ``attempt``
        subscription = message.subscription
        body = bytes(message.payload)
        started = utc_now(self.clock)
        headers = signed_headers(subscription.signing_key, message.message_id, body, started)
        sending = time.perf_counter()
        answer = self.sender.send(subscription.url, headers, body)
        seconds = time.perf_counter() - sending
        ended = utc_now(self.clock)
        number = message.attempts + 1
        outcome = judge(answer, number, started, ended, self.rng)
        recorded = [False]

        def work() -> None:
            recorded[0] = record_attempt(message, claim, outcome, utc_now(self.clock))

        with self.database.connection_context():
            replayed(self.database, work)
        self.count(outcome_label(outcome, recorded[0]), seconds)
        log.info(
            "webhook %s subscription %d attempt %d: status %s, error %s, %d ms%s",
            message.message_id,
            subscription.id,
            number,
            answer.status_code,
            answer.error,
            answer.duration_ms,
            "" if recorded[0] else " (lease lost, not recorded)",
        )

    def prune(self) -> None:
        """Drop change entries and attempts older than ``sync_retention_days``."""
        self.bind()
        before = utc_now(self.clock) - dt.timedelta(days=self.settings.sync_retention_days)

        def work() -> None:
            prune_changes(before)
            prune_deliveries(before)

        with self.database.connection_context():
            replayed(self.database, work)

    def prune_when_due(self) -> None:
        now = utc_now(self.clock)
        if self.next_prune is None or now >= self.next_prune:
            self.next_prune = now + PRUNE_EVERY
            try:
                self.prune()
            except peewee.PeeweeException:
                log.exception("pruning the change log and attempts failed")

    # -- running -----------------------------------------------------------------------

    def run_once(self) -> int:
        """Deliver what is due now, up to ``webhook_concurrency`` at a time, then
        return how many attempts were made (retries scheduled later are left)."""
        self.bind()
        self.prune_when_due()
        due = utc_now(self.clock)
        made = 0
        workers = self.settings.webhook_concurrency
        with ThreadPoolExecutor(workers, initializer=self.bind) as pool:
            while True:
                claimed = self.claim(workers, due)
                if not claimed:
                    return made
                list(pool.map(lambda pair: self.attempt(*pair), claimed))
                made += len(claimed)

    def run(self, stop: threading.Event) -> None:
        """Poll until ``stop`` is set. Attempts run on daemon threads: on stop the
        process may exit at once, in-flight attempts left to their leases."""
        self.bind()
        jobs: queue.Queue[Claim] = queue.Queue()
        wake = threading.Event()
        busy = [0]
        lock = threading.Lock()

        def serve() -> None:
            self.bind()
            while True:
                message_id, claim = jobs.get()
                self.attempt(message_id, claim)
                with lock:
                    busy[0] -= 1
                wake.set()

        for number in range(self.settings.webhook_concurrency):
            threading.Thread(target=serve, name=f"webhook-{number}", daemon=True).start()
        while not stop.is_set():
            self.prune_when_due()
            wake.clear()
            with lock:
                free = self.settings.webhook_concurrency - busy[0]
            claimed = self._claim_safely(free) if free > 0 else []
            with lock:
                busy[0] += len(claimed)
            for pair in claimed:
                jobs.put(pair)
            if not claimed or len(claimed) < free:
                wake.wait(self.poll_interval)  # a finished attempt wakes it early

    def _claim_safely(self, limit: int) -> list[Claim]:
        try:
            return self.claim(limit)
        except peewee.PeeweeException:
            log.exception("claiming webhook messages failed; retrying")
            return []
