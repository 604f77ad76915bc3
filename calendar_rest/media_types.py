"""The media types the service answers with, and the choice between them (``Accept``).

``/events`` and its single routes offer JSON and iCalendar (``calendar.md`` §2.1):
Werkzeug's ``MIMEAccept.best_match`` compares quality, then specificity, and JSON,
offered first, wins a tie, so a missing ``Accept``, ``*/*`` or a browser's gets JSON.
"""

from __future__ import annotations

import functools

from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

JSON = "application/json"
CALENDAR = "text/calendar"
#: what a negotiated route offers, JSON first (the default and the tie-breaker)
OFFERED = (JSON, CALENDAR)
CALENDAR_CONTENT_TYPE = "text/calendar; charset=utf-8"
#: the public pages (``site/``), and the site root ``/`` to a browser
HTML = "text/html"
HTML_CONTENT_TYPE = "text/html; charset=utf-8"


@functools.lru_cache(maxsize=512)
def negotiate(accept: str | None) -> str:
    """The media type a negotiated route answers ``Accept`` with: never nothing (an
    unacceptable ``Accept`` gets JSON, never a 406)."""
    if not accept:
        return JSON
    chosen = parse_accept_header(accept, MIMEAccept).best_match(OFFERED, default=JSON)
    return chosen or JSON


@functools.lru_cache(maxsize=512)
def prefers_html(accept: str | None) -> bool:
    """Whether ``Accept`` ranks ``text/html`` above ``application/json`` (what browsers
    send): the site root's one negotiation between its page and its JSON index
    (``site.md`` §1); a tie, or no ``Accept``, is JSON."""
    if not accept:
        return False
    ranked = parse_accept_header(accept, MIMEAccept)
    return ranked.quality(HTML) > ranked.quality(JSON)
