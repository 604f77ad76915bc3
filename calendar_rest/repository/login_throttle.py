"""Writing the failed-login counters and locks (``auth.Authenticator`` decides the
policy).

Each write is its own short transaction in ``db.login_store``, apart from any
request's: recording a failure or a success never waits for, or holds, the write lock of
the records.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import peewee as pw

from ..models import LoginThrottle

DAY = dt.timedelta(days=1)
LONGEST_LOCK = dt.timedelta(seconds=86_400)


@dataclasses.dataclass(frozen=True)
class Limit:
    """When failures of one kind of key lead to a lock, and for how long."""

    failures: int
    window: dt.timedelta
    lockout: dt.timedelta


def record_failure(key: str, limit: Limit, now: dt.datetime) -> dt.datetime | None:
    """Count one failure of ``key``; returns when the lock it led to ends, if any.

    The window slides: the failures of the last ``window`` count, whenever the first
    was; reaching the limit locks the key for ``lockout``, doubled for each lock
    within the previous day (at most a day).
    """
    row = _row_for_update(key, now)
    if row.expires <= now:  # a stale row: start afresh
        row.failures, row.locks, row.last_lock, row.locked_until = "", 0, None, None
    stamp = _seconds(now)
    since = stamp - int(limit.window.total_seconds())
    recent = [when for when in row.failure_times() if when > since] + [stamp]
    locked_until = None
    if len(recent) >= limit.failures:
        again = row.last_lock is not None and now - row.last_lock < DAY
        row.locks = row.locks + 1 if again else 1
        locked_until = now + min(limit.lockout * 2 ** (row.locks - 1), LONGEST_LOCK)
        row.locked_until, row.last_lock, recent = locked_until, now, []
    row.failures = " ".join(str(when) for when in recent)
    row.expires = max(now + limit.window, row.locked_until or now, (row.last_lock or now) + DAY)
    row.save()
    return locked_until


def clear_failures(key: str) -> None:
    """Forget ``key``'s failures (a success); its lock, and the record of past locks
    that doubles the next one, stay."""
    LoginThrottle.update(failures="").where(LoginThrottle.key == key).execute()


def record_success(key: str, now: dt.datetime, window: dt.timedelta) -> None:
    """Remember that ``key`` (a login at an address) authenticated, for ``window``."""
    row = _row_for_update(key, now)
    row.last_success, row.expires = now, max(row.expires, now + window)
    row.save()


def _seconds(moment: dt.datetime) -> int:
    return int(moment.replace(tzinfo=dt.timezone.utc).timestamp())


def _row_for_update(key: str, now: dt.datetime) -> LoginThrottle:
    """``key``'s row, created if missing, locked until the caller's transaction ends
    (SQLite serialises writers anyway): concurrent failures are never lost.

    The row is inserted first, ignoring a concurrent twin: locking a missing row
    instead (``FOR UPDATE``) takes a gap lock on MariaDB, on which two first attempts
    deadlock, and a deadlock there ends the whole transaction, savepoints included.
    """
    LoginThrottle.insert(key=key, expires=now).on_conflict_ignore().execute()
    query = LoginThrottle.select().where(LoginThrottle.key == key)
    if not isinstance(LoginThrottle._meta.database, pw.SqliteDatabase):
        query = query.for_update()
    row: LoginThrottle = query.get()
    return row


def clear(keys: list[str]) -> int:
    """Forget the counters and locks of ``keys``; returns how many there were."""
    return int(LoginThrottle.delete().where(LoginThrottle.key.in_(keys)).execute())


def purge_expired(now: dt.datetime) -> None:
    LoginThrottle.delete().where(LoginThrottle.expires <= now).execute()
