"""Wall clocks that test a VTIMEZONE against zoneinfo (``tests/test_vtimezone.py``,
``tests/test_feeds_clients.py``): an hour beyond each side of every offset change
zoneinfo makes in a span of years (found without the code under test), and noon on
the first and fifteenth of every month, each one a wall clock that exists once.
"""

from __future__ import annotations

import datetime as dt
import functools
import typing as t
from zoneinfo import ZoneInfo

UTC = dt.timezone.utc
#: how far apart the scan looks for offset changes (no zone changes twice within it)
STEP = dt.timedelta(days=5)


def offset_changes(zone: ZoneInfo, first_year: int, last_year: int) -> list[dt.datetime]:
    """The UTC instants (aware) at which ``zone`` changes its offset in those years."""
    found = []
    moment = dt.datetime(first_year, 1, 1, tzinfo=UTC)
    end = dt.datetime(last_year + 1, 1, 1, tzinfo=UTC)
    offset = _offset(zone, moment)
    while moment < end:
        later = min(moment + STEP, end)
        if _offset(zone, later) != offset:
            low, high = moment, later  # the change is in (low, high]
            while high - low > dt.timedelta(seconds=1):
                middle = low + (high - low) / 2
                middle = middle.replace(microsecond=0)
                if _offset(zone, middle) == offset:
                    low = middle
                else:
                    high = middle
            found.append(high)
            offset = _offset(zone, high)
            later = high
        moment = later
    return found


def probe_walls(zone: ZoneInfo, first_year: int, last_year: int) -> list[dt.datetime]:
    """Naive wall clocks of ``zone`` that exist exactly once, in time order."""
    walls = []
    for change in offset_changes(zone, first_year, last_year):
        before, after = _offset(zone, change - dt.timedelta(seconds=1)), _offset(zone, change)
        margin = abs(after - before) + dt.timedelta(hours=1)
        walls.append((change + before - margin).replace(tzinfo=None))
        walls.append((change + after + margin).replace(tzinfo=None))
    for year in range(first_year, last_year + 1):
        for month in range(1, 13):
            walls += [dt.datetime(year, month, day, 12) for day in (1, 15)]
    return sorted(wall for wall in set(walls) if _exists_once(zone, wall))


def expected_unix(zone: dt.tzinfo, walls: t.Iterable[dt.datetime]) -> list[int]:
    """The UTC instant of each wall clock in ``zone``, as Unix seconds."""
    return [int(wall.replace(tzinfo=zone).timestamp()) for wall in walls]


def _exists_once(zone: ZoneInfo, wall: dt.datetime) -> bool:
    first, second = wall.replace(tzinfo=zone, fold=0), wall.replace(tzinfo=zone, fold=1)
    back = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    return first.utcoffset() == second.utcoffset() and back == wall


def _offset(zone: ZoneInfo, moment: dt.datetime) -> dt.timedelta | None:
    return moment.astimezone(zone).utcoffset()


@functools.cache
def every_zone() -> tuple[str, ...]:
    """Every IANA name zoneinfo knows here that the API accepts, sorted."""
    import zoneinfo

    from calendar_rest.dates import is_valid_timezone

    return tuple(sorted(name for name in zoneinfo.available_timezones() if is_valid_timezone(name)))
