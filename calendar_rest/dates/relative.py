"""PHP ``strtotime()``'s relative phrases, without dateparser.

"tomorrow 9am", "next monday", "+1 week", "3 days ago": a small grammar whose rules
match timelib's (PHP's date library) exactly, including its quirks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from .zones import DateParseError

_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
# unit prefix → (field, multiplier); weeks/fortnights are days, like timelib.
_UNITS = {
    "se": ("seconds", 1),
    "mi": ("minutes", 1),
    "ho": ("hours", 1),
    "da": ("days", 1),
    "we": ("days", 7),
    "fo": ("days", 14),
    "mo": ("months", 1),
    "ye": ("years", 1),
}
_UNIT = r"(sec(?:ond)?s?|min(?:ute)?s?|hours?|days?|weeks?|fortnights?|months?|years?)"
_WEEKDAY = (
    r"(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
    r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
)
_END = r"(?=\s|$)"
# "next"/"last" as numbers, "this" as 0 (timelib's reltext values).
_REL_TEXT = {"this": 0, "next": 1, "last": -1, "previous": -1}


@dataclass
class _Rel:
    """Accumulated strtotime state; applied like timelib's ``timelib_update_ts``."""

    day: date | None = None
    clock: tuple[int, int, int] | None = None
    weekday: int | None = None
    weekday_behavior: int = 0  # 1: today counts ("monday"); 0: strictly after ("next monday")
    rel: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("years", "months", "days", "hours", "minutes", "seconds"), 0
        )
    )
    meaningful: bool = False


def _tok_date(m: re.Match[str], st: _Rel) -> None:
    st.day = date(int(m[1]), int(m[2]), int(m[3]))


def _tok_time12(m: re.Match[str], st: _Rel) -> None:
    hour, minute, second = int(m[1]), int(m[2] or 0), int(m[3] or 0)
    if not 1 <= hour <= 12:
        raise DateParseError(f"invalid hour: {m[0]!r}")
    st.clock = (hour % 12 + (12 if m[4] == "p" else 0), minute, second)


def _tok_time24(m: re.Match[str], st: _Rel) -> None:
    st.clock = (int(m[1]), int(m[2]), int(m[3] or 0))


def _tok_relative(m: re.Match[str], st: _Rel) -> None:
    amount = 1 if m[2] in ("a", "an") else int(m[2])
    name, mult = _UNITS[m[3][:2]]
    st.rel[name] += (-amount if m[1] == "-" else amount) * mult


def _tok_word(m: re.Match[str], st: _Rel) -> None:
    # timelib: these reset the time (TIMELIB_UNHAVE_TIME); "now" changes nothing.
    word = m[1]
    if word == "now":
        return
    st.clock = (12, 0, 0) if word == "noon" else (0, 0, 0)
    if word == "tomorrow":
        st.rel["days"] += 1
    elif word == "yesterday":
        st.rel["days"] -= 1


def _tok_weekday(m: re.Match[str], st: _Rel) -> None:
    amount = _REL_TEXT[m[1]] if m[1] else 0
    st.weekday = _WEEKDAYS[m[2][:3]]
    st.weekday_behavior = 1 if m[1] in (None, "this") else 0
    if amount < 0:
        st.rel["days"] -= 7
    st.clock = (0, 0, 0)  # a day name resets the time, even one given earlier (PHP quirk)


def _tok_reltext(m: re.Match[str], st: _Rel) -> None:
    name, mult = _UNITS[m[2][:2]]
    st.rel[name] += _REL_TEXT[m[1]] * mult


def _tok_ago(_m: re.Match[str], st: _Rel) -> None:
    # timelib: "ago" negates every relative amount seen so far.
    for key in st.rel:
        st.rel[key] = -st.rel[key]


_Handler = Callable[[re.Match[str], _Rel], None]
_TOKENS: tuple[tuple[re.Pattern[str], _Handler | None], ...] = tuple(
    (re.compile(r"\s*" + pattern + _END), handler)
    for pattern, handler in (
        (r"(\d{4})-(\d{1,2})-(\d{1,2})", _tok_date),
        (r"(\d{1,2})(?:[:.](\d{2}))?(?:[:.](\d{2}))?\s*([ap])\.?m\.?", _tok_time12),
        (r"t?(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?", _tok_time24),
        (r"([+-]?)\s*(\d+|an?)\s*" + _UNIT, _tok_relative),
        (r"(now|today|midnight|noon|tomorrow|yesterday)", _tok_word),
        (r"(?:(this|next|last|previous)\s+)?" + _WEEKDAY, _tok_weekday),
        (r"(this|next|last|previous)\s+" + _UNIT, _tok_reltext),
        (r"ago", _tok_ago),
        (r"(?:at|on|in|and)", None),  # filler words: "tomorrow at 9am", "in 3 days"
    )
)


def _scan(text: str) -> _Rel | None:
    """Tokenise ``text`` with the grammar; None if any part is not understood."""
    st = _Rel()
    pos, end = 0, len(text)
    while pos < end and text[pos:].strip():
        for pattern, handler in _TOKENS:
            m = pattern.match(text, pos)
            if m is not None:
                if handler is not None:
                    handler(m, st)
                    st.meaningful = True
                pos = m.end()
                break
        else:
            return None
    return st


def _add_months(d: date, months: int) -> date:
    """Month arithmetic with PHP overflow: Jan 31 + 1 month = Mar 3 (not Feb 28)."""
    year, month0 = divmod(d.year * 12 + d.month - 1 + months, 12)
    return date(year, month0 + 1, 1) + timedelta(days=d.day - 1)


def _apply(st: _Rel, now: datetime) -> datetime:
    """Resolve grammar state against ``now`` in timelib's order: weekday, then relatives."""
    day = st.day if st.day is not None else now.date()
    if st.clock is not None:
        clock = time(*st.clock)
    elif st.day is not None:
        clock = time(0, 0, 0)  # an explicit date without time means midnight
    else:
        clock = now.time().replace(microsecond=0)
    rel = st.rel
    if st.weekday is not None:
        diff = st.weekday - day.weekday()
        if (rel["days"] < 0 and diff < 0) or (rel["days"] >= 0 and diff <= -st.weekday_behavior):
            diff += 7
        day += timedelta(days=diff)
    day = _add_months(day, rel["years"] * 12 + rel["months"])
    return datetime.combine(day, clock) + timedelta(
        days=rel["days"], hours=rel["hours"], minutes=rel["minutes"], seconds=rel["seconds"]
    )


def grammar_parse(text: str, now: datetime) -> datetime | None:
    """strtotime-compatible relative phrases without dateparser; None if not understood."""
    st = _scan(text.lower().replace(",", " "))
    if st is None or not st.meaningful:
        return None
    return _apply(st, now)
