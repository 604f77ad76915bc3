"""Read replicas: which PostgreSQL server a read request runs on.

With ``read_database_urls`` set, the app's database is a
``db.RoutedPostgresqlDatabase``: writes (and everything a write request reads, its
checks included) run on the primary; a ``GET``, ``HEAD`` or ``OPTIONS`` request runs
on a streaming replica chosen here, from its first read of the write generation (the
response cache's check) to its last.

- Read-your-writes: every response carries the write generation it saw or produced
  (``X-Calendar-Generation``); a read sending ``X-Calendar-Min-Generation: N`` runs on
  a replica that shows generation ``N`` or later, else on the primary.
- A replica that refuses connections, or lags more than ``read_replica_max_lag_seconds``,
  is skipped (another replica, else the primary). Each replica is checked at most once
  per second per process: its generation is compared with the primary's, and its lag is
  the time since this process first saw the primary at a generation the replica does
  not show yet (so it is measured to within that second).

A replica shows a consistent prefix of the primary's commits, so what a read sees
there (the change feed's head and entries included, ``sync.md`` §3.8) is what the
primary showed at some earlier moment: never a gap.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import threading
import time
import typing as t

import peewee

from ..db import RoutedPostgresqlDatabase
from ..queries.lookups.site_state import generation

#: seconds between two checks of one replica (per process)
CHECK_INTERVAL = 1.0
#: the response header naming the write generation a response saw or produced
GENERATION_HEADER = "X-Calendar-Generation"
#: the request header asking for a generation at least this recent
MIN_GENERATION_HEADER = "X-Calendar-Min-Generation"
MIN_GENERATION_ENVIRON = "HTTP_X_CALENDAR_MIN_GENERATION"
#: what a server that is down raises (refused connection, terminated session)
UNREACHABLE = (peewee.OperationalError, peewee.InterfaceError)


@dataclasses.dataclass
class Replica:
    """One replica and what its latest check found."""

    database: peewee.Database
    checked_at: float = float("-inf")
    down: bool = False
    #: seconds behind the primary, as measured by the latest check
    lag: float = 0.0
    generation: int = 0


class ReadRouter:
    """Chooses the server of each read (thread-safe)."""

    def __init__(
        self,
        database: RoutedPostgresqlDatabase,
        max_lag: float,
        monotonic: t.Callable[[], float] = time.monotonic,
        lag_seen: t.Callable[[int, float], None] | None = None,
    ) -> None:
        self.database = database
        #: told each replica's number (from 1) and lag in seconds at each check
        self.lag_seen = lag_seen
        self.max_lag = max_lag
        self.monotonic = monotonic
        self.replicas = [Replica(replica) for replica in database.replicas]
        self._lock = threading.Lock()
        #: generations of the primary, with when this process first saw each
        self._seen: collections.deque[tuple[int, float]] = collections.deque(maxlen=512)
        self._turn = itertools.count()

    def choose(
        self, minimum: int = 0, accept: t.Callable[[int], bool] | None = None
    ) -> tuple[peewee.Database | None, int | None]:
        """The replica a read goes to and the generation it shows, or ``(None, None)``:
        the primary. A replica must show generation ``minimum`` or later, and pass
        ``accept(generation)`` (run on a connection to it). Needs no open connection
        in this thread."""
        for replica in self.usable():
            try:
                with self.database.route(replica.database), self.database.connection_context():
                    seen = generation()
                    if seen < minimum or (accept is not None and not accept(seen)):
                        continue
            except UNREACHABLE:
                self.mark_down(replica)
                continue
            return replica.database, seen
        return None, None

    def usable(self) -> list[Replica]:
        """The replicas neither down nor lagging, in turn (round robin); those whose
        latest check is older than :data:`CHECK_INTERVAL` are checked first."""
        now = self.monotonic()
        with self._lock:  # one thread checks a replica per interval; others go on
            due = [
                replica for replica in self.replicas if now - replica.checked_at >= CHECK_INTERVAL
            ]
            for replica in due:
                replica.checked_at = now
        if due:
            self.check(due, now)
        start = next(self._turn) % len(self.replicas)
        turn = self.replicas[start:] + self.replicas[:start]
        return [replica for replica in turn if not replica.down and replica.lag <= self.max_lag]

    def check(self, replicas: t.Sequence[Replica], now: float) -> None:
        """Measure each replica's generation and lag against the primary's generation."""
        try:
            primary = self.read_generation(None)
        except UNREACHABLE:
            primary = None  # lags are measured against what was seen before
        with self._lock:
            if primary is not None and (not self._seen or primary > self._seen[-1][0]):
                self._seen.append((primary, now))
        for replica in replicas:
            try:
                shown = self.read_generation(replica.database)
            except UNREACHABLE:
                self.mark_down(replica)
                continue
            replica.down, replica.generation = False, shown
            replica.lag = self.lag_of(shown, now)
            if self.lag_seen is not None:
                self.lag_seen(self.replicas.index(replica) + 1, replica.lag)

    def number_of(self, database: peewee.Database) -> int:
        """The number (from 1, in ``read_database_urls``' order) of a replica."""
        return next(
            number
            for number, replica in enumerate(self.replicas, start=1)
            if replica.database is database
        )

    def lag_of(self, shown: int, now: float) -> float:
        """Seconds since this process first saw the primary past generation ``shown``."""
        with self._lock:
            for primary, when in self._seen:
                if primary > shown:
                    return now - when
        return 0.0

    def mark_down(self, replica: Replica) -> None:
        """Skip ``replica`` until its next check; drop its pooled connections."""
        replica.down = True
        replica.checked_at = self.monotonic()
        close_idle = getattr(replica.database, "close_idle", None)
        if close_idle is not None:
            close_idle()

    def read_generation(self, target: peewee.Database | None) -> int:
        """The write generation ``target`` shows (None: the primary)."""
        with self.database.route(target), self.database.connection_context():
            return generation()


def min_generation(environ: t.Mapping[str, t.Any]) -> int:
    """The generation a read asks for (``X-Calendar-Min-Generation``; 0: any)."""
    text = str(environ.get(MIN_GENERATION_ENVIRON, "")).strip()
    return int(text) if text.isdigit() and len(text) < 19 else 0
