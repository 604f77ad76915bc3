"""The write pipeline: a POST, PUT, PATCH or DELETE checked without a lock, then run
whole in one write transaction, replayed when it loses a race.

The responder runs twice: first its checks only, on a read-only connection, up to
``call.begin_write()``; then, once they passed, whole in one write transaction, with
the parameters the checks validated and what they prepared (``Call.prepared``): what
depends on the request alone is not done again while other writers wait. Its first
statement locks the record it names (writes of one record queue; on SQLite every
write does), its last takes its position in the change log (``repository.changes``).
A refused write takes no lock.

A conditional write on one record compares its tag with what this caller would GET
there now (``reads``), after the route's own existence and permission checks but
before the body is validated, and again in the write transaction, behind the
record's lock. Its answer carries the ``ETag`` of what that GET shows right after.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import typing as t

import peewee

from ..db import is_transient, read_only_scope, request_scope
from ..errors import RestError
from ..models import User
from ..repository.changes import collecting_changes
from ..repository.record_locks import lock_written_record
from ..responders import Call, ReadyToWrite
from ..routes import Route
from ..telemetry.metrics import service_metrics
from .answer import Answer
from .calls import Calls, Values
from .conditional import Current, Preconditions, precondition_failed
from .http import Request
from .outbox import Outbox
from .reads import Reads, Shown
from .tagging import SINGLE_SHAPES, Record, validators
from .targets import Target

log = logging.getLogger("calendar_rest")
#: a write that loses a race on a unique key is retried this many times
WRITE_ATTEMPTS = 5


@dataclasses.dataclass(frozen=True)
class Checked:
    """A write that passed its checks: the call they validated and prepared, and the
    preconditions to evaluate again behind the record's lock."""

    call: Call
    conditions: Preconditions | None


@dataclasses.dataclass(eq=False)
class Writes:
    """Runs writes: their checks, then their transaction, and tags their answers."""

    database: peewee.Database
    calls: Calls
    #: what a caller would GET: a conditional write's comparison, and its answer's tag
    reads: Reads
    outbox: Outbox
    #: a created record's item route (``shown_at``)
    routes_by_key: t.Mapping[str, Route]

    def write(
        self,
        request: Request,
        target: Target,
        values: Values,
        user: User | None,
        *,
        within: bool = False,
    ) -> Answer:
        """Steps 4 to 6 of a write: checks without a lock, then the write; the
        preconditions of a single record's write are evaluated in both.

        ``within``: the write is one item of an atomic batch (``batch.py``), run in the
        batch's transaction: its checks run there too (a transaction cannot turn read
        only half-way), and a lost race is raised for the batch to replay whole.
        """
        checked = self.check(request, target, values, user, within=within)
        if isinstance(checked, Answer):
            return checked  # nothing written
        if within:
            return self.run(request, target, values, user, checked)
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                with request_scope(self.database, write=True):
                    return self.run(request, target, values, user, checked)
            except (peewee.IntegrityError, peewee.OperationalError) as exc:
                # A concurrent writer won a unique-key race or a lock (a deadlock,
                # SQLite busy): the transaction was rolled back whole, so replay it.
                if not is_transient(exc):
                    raise
                if attempt == WRITE_ATTEMPTS:
                    log.warning("write conflict on %s %s: %s", request.method, request.path, exc)
                    service_metrics().write_conflicts.inc()
                    raise RestError("rest_conflict", 409) from None
                service_metrics().write_retries.inc()
                time.sleep(0.01 * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def check(
        self,
        request: Request,
        target: Target,
        values: Values,
        user: User | None,
        *,
        within: bool = False,
    ) -> Answer | Checked:
        """A write's checks, on a connection that cannot write (unless ``within`` a
        batch's transaction): the answer when the responder gave one without writing,
        else what the write runs with.

        :raises RestError: the write is refused (nothing was written).
        """
        calls, reads = self.calls, self.reads
        single = target.route.spec.shape in SINGLE_SHAPES
        conditions = Preconditions.of(request.headers) if single else None
        scope = contextlib.nullcontext() if within else read_only_scope(self.database)
        with scope:
            request.allow = calls.allowed(target.route, values, user)
            pending = conditions is not None
            if conditions is not None:
                pending = not self.precheck(request, target, values, user, conditions)
            checked = calls.admit(request, target, values, user)
            checked.checking = True
            try:
                return self.tagged(*self.written(request, checked, target))  # nothing written
            except ReadyToWrite:
                pass
            if conditions is not None and pending:
                current = reads.representation(request, target.route, values, user)
                self.require(conditions, current)
        return Checked(checked, conditions)

    def run(
        self,
        request: Request,
        target: Target,
        values: Values,
        user: User | None,
        checked: Checked,
    ) -> Answer:
        """The write itself, in the running transaction: the record's lock, its
        preconditions again, the responder, the outbox, then its position."""
        conditions = checked.conditions
        with collecting_changes() as changes:
            if target.route.spec.shape in SINGLE_SHAPES:  # writes of one record queue here
                lock_written_record(target.route.spec.resource, values)
            if conditions is not None:  # again, now that writers of it queue behind us
                current = self.reads.representation(request, target.route, values, user)
                self.require(conditions, current)
            target.resource.path_errors(values).raise_if_any()  # it may be gone
            call = checked.call.again()  # validated and prepared before the lock
            response, shown = self.written(request, call, target)
            self.outbox.enqueue_changes(changes.entries, call.urls, self.calls.clock)
            # the last step: from here to the commit, other writers queue
            request.generation = changes.commit(self.calls.clock.now())
            return self.tagged(response, shown)

    def precheck(
        self,
        request: Request,
        target: Target,
        values: Values,
        user: User | None,
        conditions: Preconditions,
    ) -> bool:
        """A write's preconditions, before its body is validated (a stale tag is a 412
        even with an invalid body), once the caller may write here: returns whether
        they were evaluated, else the responder's checks answer first (401, 403, 404,
        410) and they are evaluated when those pass.

        :raises RestError: 412, also for ``If-Match`` on a record that does not exist.
        """
        if user is None or not target.resource.may_call(request.method, user):
            return False  # ``admit`` answers: 401, or this caller's 400/403
        current = self.reads.representation(request, target.route, values, user)
        if not current.exists and conditions.if_match is not None:
            raise precondition_failed()
        if not current.exists or request.method not in request.allow.split(", "):
            return False
        self.require(conditions, current)
        return True

    @staticmethod
    def require(conditions: Preconditions, current: Current) -> None:
        """:raises RestError: 412 when a precondition fails."""
        if not conditions.hold(current):
            raise precondition_failed()

    def written(self, request: Request, call: Call, target: Target) -> tuple[Answer, Shown | None]:
        """A write's answer, and what a GET of the same URL (of a created record's item
        route) by this caller shows right after, where that GET succeeds: the answer's
        ``ETag`` is taken from it once the write has its position (:meth:`tagged`)."""
        response, record = self.calls.render(request.method, call, target)
        shown = None
        if response.status_code < 300 and record is not None:
            at = self.shown_at(target, call, record)
            shown = self.reads.shown(request, *at, call.user) if at else None
            if record.last_modified:
                response.headers["Last-Modified"] = record.last_modified
        response.headers["Allow"] = request.allow
        return self.calls.discoverable(response, request), shown

    @staticmethod
    def tagged(response: Answer, shown: Shown | None) -> Answer:
        """The answer with the ``ETag`` of what it shows, which covers the record's
        revision: the position its write has just taken."""
        if shown is not None:
            response.headers["ETag"] = validators(*shown)[0][1]
        return response

    def shown_at(self, target: Target, call: Call, record: Record) -> tuple[Route, Values] | None:
        """Where a GET shows the record a write answered with: the same URL, or the
        item route of a created record."""
        if target.route.spec.shape in SINGLE_SHAPES:
            return target.route, call.values
        item = self.routes_by_key.get(f"{target.route.spec.resource}.item")
        return (item, {"id": record.id}) if item is not None and record.id is not None else None
