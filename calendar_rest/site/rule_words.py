"""A series' rule in words (``site.md`` §2 "Event"): the ``RRULE`` line the API puts
in ``recurrence`` read back as "Every 2 weeks on Monday, Wednesday, 10 times" in the
page's language. What the sentence cannot say (``BYSETPOS``, hours…) leaves it
shorter, never wrong: the list of next occurrences shows the dates themselves."""

from __future__ import annotations

import datetime as dt
import typing as t

from babel.dates import format_date, get_day_names

from ..i18n.messages import N_

#: RFC 5545 weekday codes → Babel's weekday numbers (Monday = 0)
WEEKDAYS = {"MO": 0, "TU": 1, "WE": 2, "TH": 3, "FR": 4, "SA": 5, "SU": 6}
EVERY = {
    "DAILY": (N_("Every day"), N_("Every %(n)s days")),
    "WEEKLY": (N_("Every week"), N_("Every %(n)s weeks")),
    "MONTHLY": (N_("Every month"), N_("Every %(n)s months")),
    "YEARLY": (N_("Every year"), N_("Every %(n)s years")),
}
ON_DAYS = N_("on %(days)s")
TIMES = N_("%(n)s times")
UNTIL = N_("until %(date)s")


def rule_parts(lines: t.Iterable[str]) -> dict[str, str]:
    """The parts of the first ``RRULE`` line (none: {})."""
    for line in lines:
        name, _, value = line.partition(":")
        if name.upper() == "RRULE":
            pairs = (part.partition("=") for part in value.split(";") if part)
            return {key.upper(): item for key, _, item in pairs}
    return {}


def rule_in_words(lines: t.Iterable[str], language: str, translate: t.Callable[[str], str]) -> str:
    """The rule of ``lines`` as a sentence ("" when there is no rule)."""
    parts = rule_parts(lines)
    frequency = EVERY.get(parts.get("FREQ", ""))
    if frequency is None:
        return ""
    interval = parts.get("INTERVAL", "1")
    if interval.isdigit() and int(interval) > 1:
        words = [translate(frequency[1]) % {"n": interval}]
    else:
        words = [translate(frequency[0])]
    names = get_day_names("wide", locale=language)
    days = [code[-2:] for code in parts.get("BYDAY", "").split(",") if code[-2:] in WEEKDAYS]
    if days:
        listed = ", ".join(names[WEEKDAYS[code]] for code in days)
        words.append(translate(ON_DAYS) % {"days": listed})
    if parts.get("COUNT", "").isdigit():
        words.append(translate(TIMES) % {"n": parts["COUNT"]})
    elif until := parts.get("UNTIL"):
        try:
            day = dt.datetime.strptime(until[:8], "%Y%m%d").date()
        except ValueError:
            return ", ".join(words)
        words.append(translate(UNTIL) % {"date": format_date(day, "long", locale=language)})
    return ", ".join(words)
