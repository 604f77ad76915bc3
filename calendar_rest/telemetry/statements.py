"""The database statements a thread ran for its current request, and their time.

``db`` wraps every database's ``execute_sql`` with :func:`counted`; the edge reads
and resets the tally once a request (``metrics.RequestMetrics``). A thread serves
one request at a time, so a thread-local tally is that request's.
"""

from __future__ import annotations

import functools
import threading
import time
import typing as t


class Tally(threading.local):
    """This thread's statements and seconds since the last :meth:`take`."""

    count = 0
    seconds = 0.0

    def take(self) -> tuple[int, float]:
        """The tally so far, and a fresh one for the next request."""
        taken = (self.count, self.seconds)
        self.count, self.seconds = 0, 0.0
        return taken


tally = Tally()

_Execute = t.TypeVar("_Execute", bound=t.Callable[..., t.Any])


def counted(execute_sql: _Execute) -> _Execute:
    """``execute_sql`` that adds each statement and its time to this thread's tally."""

    @functools.wraps(execute_sql)
    def execute(*args: t.Any, **kwargs: t.Any) -> t.Any:
        started = time.perf_counter()
        try:
            return execute_sql(*args, **kwargs)
        finally:
            local = tally
            local.count += 1
            local.seconds += time.perf_counter() - started

    return t.cast(_Execute, execute)
