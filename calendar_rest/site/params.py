"""The query parameters every view reads, TEC's aliases included.

A bad value is a 400 naming the parameter as the visitor sent it (``date`` or
``tribe-bar-date``); a parameter a view does not read is ignored, as WordPress
ignores unknown query variables.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import typing as t

from ..errors import bad_param

DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MONTH_RE = re.compile(r"^\d{4}-\d{2}$")
YES = frozenset({"1", "true", "yes", "on"})
NO = frozenset({"", "0", "false", "no", "off"})


@dataclasses.dataclass(frozen=True)
class ViewQuery:
    """What the visitor asked of a view beyond its path."""

    #: the day to start from (list), show (day) or whose month to show (month)
    date: dt.date | None = None
    #: the words of the API's ``search``
    search: str | None = None
    #: the list's past events, newest first
    past: bool = False

    def pairs(self) -> list[tuple[str, str]]:
        """The query string that asks for this again (the links between pages)."""
        pairs = []
        if self.search:
            pairs.append(("search", self.search))
        if self.past:
            pairs.append(("past", "1"))
        return pairs


def _text(params: t.Mapping[str, t.Any], *names: str) -> tuple[str, str] | None:
    """The first of ``names`` present, with its value; a list value is refused."""
    for name in names:
        if name in params:
            value = params[name]
            if not isinstance(value, str):
                raise bad_param(name)
            return name, value
    return None


def parse_day(name: str, text: str) -> dt.date:
    """``YYYY-MM-DD``. :raises InvalidParams: naming ``name``."""
    if not DAY_RE.match(text):
        raise bad_param(name)
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise bad_param(name) from None


def parse_month(name: str, text: str) -> dt.date:
    """``YYYY-MM`` (or a day of it): the month's first day."""
    if MONTH_RE.match(text):
        text += "-01"
    return parse_day(name, text).replace(day=1)


def view_query(params: t.Mapping[str, t.Any], *, month: bool = False) -> ViewQuery:
    """The view's parameters: ``date`` (``tribe-bar-date``), ``search``
    (``tribe-bar-search``) and ``past=1`` (``eventDisplay=past``)."""
    date = None
    given = _text(params, "date", "tribe-bar-date")
    if given is not None and given[1] != "":
        date = parse_month(*given) if month else parse_day(*given)
    search = None
    given = _text(params, "search", "tribe-bar-search")
    if given is not None and given[1].strip():
        search = given[1].strip()
    past = False
    given = _text(params, "past")
    if given is not None:
        if given[1].lower() not in YES | NO:
            raise bad_param("past")
        past = given[1].lower() in YES
    given = _text(params, "eventDisplay")
    if given is not None and given[1] == "past":
        past = True
    return ViewQuery(date, search, past)


def page_number(text: str | int) -> int:
    """A ``/page/{n}/`` number: 1 or more. :raises InvalidParams: ``page``."""
    number = int(text)
    if number < 1:
        raise bad_param("page")
    return number
