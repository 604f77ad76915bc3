"""The failed-login counters and locks of some keys (``auth.Throttle``)."""

from __future__ import annotations

import datetime as dt

from ...models import LoginThrottle


def throttle_states(keys: list[str], now: dt.datetime) -> dict[str, LoginThrottle]:
    """The unexpired rows of ``keys``, in one query."""
    rows = LoginThrottle.select().where(LoginThrottle.key.in_(keys) & (LoginThrottle.expires > now))
    return {row.key: row for row in rows}
