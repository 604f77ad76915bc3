"""The one source of "now": every part of the service asks the app's clock.

Default windows, relative dates, publication and modification stamps, scheduled
statuses and the response cache's day all depend on the current time. Reading it
through one injectable object lets an embedding program (or a test) run the service
at any moment, and move time forward, without sleeping or patching ``datetime``.
"""

from __future__ import annotations

import datetime as dt
import threading
import typing as t


class Clock(t.Protocol):
    """Anything with a ``now()`` that returns an aware UTC datetime."""

    def now(self) -> dt.datetime: ...


class SystemClock:
    """The machine's clock (the default)."""

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.timezone.utc)


class ManualClock:
    """A clock that stands still until moved: for tests and for replaying a moment.

    :param start: the first time it shows (naive values are read as UTC).
    """

    def __init__(self, start: dt.datetime) -> None:
        self._now = _aware(start)
        self._lock = threading.Lock()

    def now(self) -> dt.datetime:
        with self._lock:
            return self._now

    def advance(self, **delta: float) -> dt.datetime:
        """Move forward by ``timedelta(**delta)`` (``days=2``, ``seconds=30``)."""
        with self._lock:
            self._now += dt.timedelta(**delta)
            return self._now

    def set(self, when: dt.datetime) -> None:
        with self._lock:
            self._now = _aware(when)


def utc_now(clock: Clock) -> dt.datetime:
    """Naive UTC to the second: the form every ``*_utc`` column stores."""
    return clock.now().astimezone(dt.timezone.utc).replace(tzinfo=None, microsecond=0)


def _aware(when: dt.datetime) -> dt.datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.timezone.utc)


#: what an app uses when it is given no clock
SYSTEM_CLOCK: Clock = SystemClock()
