"""One thread for the anonymous reads of a waitress server whose app runs one read at
a time (SQLite's default, ``Settings.concurrent_reads``).

The app's read gate already lets one read run at a time, but waitress still hands
each request to one of its threads. With 16 connections, 8 threads are busy at once:
each builds its request, waits at the gate, sends, while the thread at the gate
gives up the interpreter lock around every SQLite step, and every hand-off wakes
another thread. Measured at 100,000 events on 2 cores (cold single event, wrk, the
same server with 8 threads and with 1), 8 threads made 11.5 context switches a
request against 4.5 and spent 0.92 ms of CPU a request against 0.71, serving 1,144
against 1,466 req/s; cached reads were the same either way.

So a :class:`ReadLaneDispatcher` sends those reads down one lane: a thread of its own
serves them in order, and the only other Python thread that runs meanwhile is
waitress's main loop. Everything else takes waitress's threads as before: writes
(they may wait for SQLite's write lock, and must not hold reads up meanwhile) and
reads with credentials (a failed login writes its count, and so may wait too).

One slow read (a list's first count after a write: 90-220 ms at 1,000,000 events)
would hold up every read queued behind it, cache hits included, which waitress's
threads would have answered meanwhile. So once the lane's read has run for
:data:`PATIENCE_SECONDS`, the reads waiting behind it, and those that come while it
runs, go to waitress's threads: the hits are answered, the other reads wait at the
app's read gate, as without a lane.
"""

from __future__ import annotations

import threading
import time
import typing as t
from collections import deque

from waitress.task import ThreadedTaskDispatcher

#: the methods that only read
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: how long the lane's read may run before the reads behind it go to waitress's threads
#: (a cold single event takes about 0.5 ms, a cold list page 1.5 ms)
PATIENCE_SECONDS = 0.025


def in_lane(channel: t.Any) -> bool:
    """Whether the next request of a waitress connection is an anonymous read (a
    connection's pipelined requests follow the first).

    A request waitress refused (``error`` set: its error answer, no read) is not one,
    and may have no ``command`` at all: waitress names the method only once the whole
    head parsed, so a header line it could not parse left none. Reading it raised in
    waitress's main loop, which closed the connection without the 400 and logged the
    exception."""
    requests = channel.requests
    if not requests:
        return False
    request = requests[0]
    if request.error is not None:
        return False
    return request.command in READ_METHODS and "AUTHORIZATION" not in request.headers


class ReadLaneDispatcher(ThreadedTaskDispatcher):
    """waitress's task dispatcher, with a lane: one thread serving the anonymous reads
    in the order they came (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.lane: deque[t.Any] = deque()
        self.lane_ready = threading.Condition(self.lock)
        self.lane_open = True
        #: when the lane's read began (None: the lane is idle)
        self.running_since: float | None = None
        self.watch = threading.Condition(self.lock)
        self.watcher_idle = False
        self.lane_thread = threading.Thread(
            target=self.serve_lane, name="waitress-reads", daemon=True
        )
        self.watcher = threading.Thread(
            target=self.watch_lane, name="waitress-reads-watch", daemon=True
        )
        self.lane_thread.start()
        self.watcher.start()

    def add_task(self, task: t.Any) -> None:
        if not in_lane(task) or self.lane_is_late():
            super().add_task(task)
            return
        with self.lock:
            self.lane.append(task)
            self.lane_ready.notify()

    def lane_is_late(self) -> bool:
        """Whether the lane's read has run for :data:`PATIENCE_SECONDS` already."""
        since = self.running_since
        return since is not None and time.monotonic() - since >= PATIENCE_SECONDS

    def serve_lane(self) -> None:
        """The lane's thread: serve each read queued, until the lane is closed and
        empty."""
        while True:
            with self.lock:
                while not self.lane and self.lane_open:
                    self.lane_ready.wait()
                if not self.lane:
                    return
                task = self.lane.popleft()
                self.running_since = time.monotonic()
                if self.watcher_idle:
                    self.watch.notify()
            try:
                task.service()
            except BaseException:
                self.logger.exception("Exception when servicing %r", task)
            finally:
                self.running_since = None

    def watch_lane(self) -> None:
        """The watcher's thread: while the lane's read runs late, hand what waits
        behind it to waitress's threads. It sleeps while the lane is idle, and wakes
        at most once per :data:`PATIENCE_SECONDS` while it is busy."""
        with self.lock:
            while self.lane_open:
                since = self.running_since
                if since is None:
                    self.watcher_idle = True
                    self.watch.wait()
                    self.watcher_idle = False
                    continue
                left = since + PATIENCE_SECONDS - time.monotonic()
                if left <= 0 and self.lane:
                    self.queue.extend(self.lane)  # waitress's own queue, under its lock
                    self.lane.clear()
                    self.queue_cv.notify_all()
                self.watch.wait(left if left > 0 else PATIENCE_SECONDS)

    def shutdown(self, cancel_pending: bool = True, timeout: int = 5) -> bool:
        """Close the lane (its reads still queued are cancelled, or served first if not
        ``cancel_pending``), then stop waitress's threads as waitress does."""
        with self.lock:
            self.lane_open = False
            cancelled = list(self.lane) if cancel_pending else []
            if cancel_pending:
                self.lane.clear()
            self.lane_ready.notify_all()
            self.watch.notify_all()
        for task in cancelled:
            task.cancel()
        self.lane_thread.join(timeout)
        self.watcher.join(timeout)
        return bool(super().shutdown(cancel_pending, timeout))
