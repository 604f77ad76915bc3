"""When a message is tried again (``sync.md`` §5.5): Standard Webhooks' retry delays
with ±10 % jitter, or the endpoint's ``Retry-After`` on 429, 502, 503 and 504."""

from __future__ import annotations

import datetime as dt
import email.utils
import random

from ..repository.webhooks import Outcome
from .sender import Answer

#: seconds before attempt 2, 3, … 10; after the tenth attempt a message has failed
DELAYS = (5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
JITTER = 0.1
RETRY_AFTER_STATUSES = frozenset({429, 502, 503, 504})
MAX_RETRY_AFTER = 86400


def retry_after_seconds(value: str | None, now: dt.datetime) -> float | None:
    """A ``Retry-After`` value (seconds or an HTTP date, ``now`` naive UTC) in
    seconds, capped at 24 h; None when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(min(int(text), MAX_RETRY_AFTER))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    seconds = (when - now.replace(tzinfo=dt.timezone.utc)).total_seconds()
    return min(max(seconds, 0.0), float(MAX_RETRY_AFTER))


def delay_after(attempt: int, rng: random.Random) -> float | None:
    """Seconds before the next attempt after attempt number ``attempt`` failed, with
    jitter; None after the last."""
    if attempt > len(DELAYS):
        return None
    base = DELAYS[attempt - 1]
    return base * rng.uniform(1 - JITTER, 1 + JITTER)


def judge(
    answer: Answer,
    attempt: int,
    started: dt.datetime,
    ended: dt.datetime,
    rng: random.Random,
) -> Outcome:
    """What attempt number ``attempt`` comes to: done on a 2xx, done and the
    subscription disabled on a 410, else retried on schedule (or failed)."""
    status = answer.status_code

    def outcome(state: str, next_at: dt.datetime | None = None, gone: bool = False) -> Outcome:
        return Outcome(started, status, answer.error, answer.duration_ms, state, next_at, gone=gone)

    if status is not None and 200 <= status < 300:
        return outcome("done")
    if status == 410:
        return outcome("done", gone=True)
    delay = delay_after(attempt, rng)
    if delay is None:
        return outcome("failed")
    if status in RETRY_AFTER_STATUSES:
        asked = retry_after_seconds(answer.retry_after, ended)
        delay = asked if asked is not None else delay
    return outcome("pending", ended + dt.timedelta(seconds=delay))
