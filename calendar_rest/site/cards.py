"""An event as a page shows it, made from the API's shape of it (``wire.events``):
its dates in the site's time zone, parsed once, and the few fields the templates
read. The API renders the event; a card only reads it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

from .rendering import Formats
from .texts import ALL_DAY

STAMP = "%Y-%m-%d %H:%M:%S"


@dataclasses.dataclass(frozen=True)
class Card:
    """One listed event."""

    data: dict[str, t.Any]
    start: dt.datetime
    end: dt.datetime

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def all_day(self) -> bool:
        return bool(self.data.get("all_day"))

    @property
    def first_day(self) -> dt.date:
        return self.start.date()

    @property
    def last_day(self) -> dt.date:
        """The last day the event covers (an end at midnight ends the day before)."""
        if self.end > self.start and self.end.time() == dt.time() and not self.all_day:
            return (self.end - dt.timedelta(seconds=1)).date()
        return max(self.end.date(), self.start.date())

    @property
    def multi_day(self) -> bool:
        return self.last_day > self.first_day

    def covers(self, day: dt.date) -> bool:
        return self.first_day <= day <= self.last_day

    @property
    def venue(self) -> dict[str, t.Any] | None:
        venue = self.data.get("venue")
        return venue if isinstance(venue, dict) and venue else None

    def when(self, formats: Formats, translate: t.Callable[[str], str]) -> str:
        """The date and time range in words: ``Saturday, November 28, 2026, 10:00 AM –
        12:00 PM``; all-day events say so; multi-day events name both days."""
        first, last = self.first_day, self.last_day
        if self.all_day:
            if first == last:
                return f"{formats.date(first)} · {translate(ALL_DAY)}"
            return f"{formats.date(first)} – {formats.date(last)} · {translate(ALL_DAY)}"
        start = f"{formats.date(first)}, {formats.time(self.start)}"
        if self.multi_day:
            return f"{start} – {formats.date(self.end.date())}, {formats.time(self.end)}"
        if self.end == self.start:
            return start
        return f"{start} – {formats.time(self.end)}"

    def sort_key(self) -> tuple[bool, dt.datetime, int]:
        """All-day events first, then by start (the month grid's order)."""
        return (not self.all_day, self.start, self.id)


def card(data: dict[str, t.Any]) -> Card:
    start = dt.datetime.strptime(data["start_date"], STAMP)
    end = dt.datetime.strptime(data["end_date"], STAMP)
    return Card(data, start, end)


def by_month(cards: t.Iterable[Card]) -> list[tuple[dt.date, list[Card]]]:
    """Cards under month headings, in the order given (the list view's groups)."""
    groups: list[tuple[dt.date, list[Card]]] = []
    for item in cards:
        month = item.first_day.replace(day=1)
        if not groups or groups[-1][0] != month:
            groups.append((month, []))
        groups[-1][1].append(item)
    return groups
