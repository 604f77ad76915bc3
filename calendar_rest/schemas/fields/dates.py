"""Dates: the loose dates TEC reads (``tomorrow 8pm``), the strict modification
bounds a sync client sends, and a series' RFC 5545 lines.
"""

from __future__ import annotations

import datetime as dt
import re
import typing as t

from ...dates import DateParseError, parse_datetime, resolve_timezone
from ...dates.recurrence import RecurrenceError, normalise_lines
from .base import JsonSchema, WPField

#: years a DATETIME column holds on every backend (MySQL starts at 1000)
YEARS = range(1000, 9999)
#: the zone a loose date is test-read in (the event's is not known yet)
UTC_ZONE = resolve_timezone("UTC")


class LooseDate(WPField):
    """Anything ``dates.parse_datetime`` understands; the raw value is kept, because the
    zone it is read in (the event's) is only known once every field is loaded."""

    def json_schema(self) -> JsonSchema:
        return {"type": "string"}

    def _deserialize(
        self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any
    ) -> str | int | float:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail("bad_date")
        try:
            parsed = parse_datetime(value, UTC_ZONE)
        except (DateParseError, OverflowError, ValueError):
            raise self.fail("bad_date") from None
        if parsed.year not in YEARS:
            raise self.fail("bad_date")
        return value.strip() if isinstance(value, str) else value


#: WordPress 5.7's ``modified_after``/``modified_before`` (RFC 3339, seconds required),
#: also with a space for ``T`` (a record's ``modified`` passed back unchanged) and a
#: space for an offset's ``+`` (a query string reads an unencoded ``+`` as a space)
MODIFIED_RE = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ](?P<time>[0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?:\.[0-9]+)?(?:(?P<utc>[Zz])|(?P<sign>[-+ ])(?P<hours>[0-9]{2}):(?P<minutes>[0-9]{2}))?"
)


class ModifiedDate(WPField):
    """A modification-time bound: naive for site local time, aware when the value
    names UTC or an offset; fractional seconds are dropped, since ``modified`` is
    compared at whole-second resolution. Strict, unlike ``LooseDate``: a sync client
    must never have a typo read as some other moment."""

    def json_schema(self) -> JsonSchema:
        return {"type": "string", "format": "date-time"}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> dt.datetime:
        match = MODIFIED_RE.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            raise self.fail("bad_modified_date")
        try:
            moment = dt.datetime.fromisoformat(f"{match['date']}T{match['time']}")
            if match["utc"]:
                moment = moment.replace(tzinfo=dt.timezone.utc)
            elif match["sign"]:
                if int(match["minutes"]) > 59:
                    raise ValueError(match["minutes"])
                offset = dt.timedelta(hours=int(match["hours"]), minutes=int(match["minutes"]))
                sign = -1 if match["sign"] == "-" else 1
                moment = moment.replace(tzinfo=dt.timezone(sign * offset))
        except ValueError:  # a day, hour or offset out of range
            raise self.fail("bad_modified_date") from None
        if moment.year not in YEARS:
            raise self.fail("bad_modified_date")
        return moment


class Recurrence(WPField):
    """A series' RFC 5545 lines (``RRULE``, ``RDATE``, ``EXDATE``), each checked and
    normalised (calendar.md §4.2); ``null`` and ``[]`` mean "not recurring". The cap
    is checked when the series' dates are known (``repository.series``)."""

    repeatable = True
    #: ``null`` is "not recurring", not an absent parameter
    keeps_null = True

    def __init__(self, **kwargs: t.Any) -> None:
        super().__init__(allow_none=True, **kwargs)

    def json_schema(self) -> JsonSchema:
        return {"type": "array", "items": {"type": "string"}}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail("rec_not_list")
        try:
            return normalise_lines(value)
        except RecurrenceError as exc:
            raise self.fail(exc.key, index=exc.index, line=exc.line, **exc.values) from None

    def deserialize(
        self, value: t.Any, attr: str | None = None, data: t.Any = None, **kw: t.Any
    ) -> t.Any:
        return [] if value is None else super().deserialize(value, attr, data, **kw)
