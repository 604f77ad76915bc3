"""The last parsing tier: English prose ("December 5, 2026 7pm") through dateparser.

dateparser is imported on first use only: importing it costs about a second, and
machine formats and relative phrases never need it.
"""

from __future__ import annotations

import re
import threading
import warnings
from datetime import datetime, tzinfo

# dateparser happily reads "a" or "the 5th" as dates; only hand it text that looks like one.
_FALLBACK_HINT = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|ago|from|now|later|after|before|hence|today|tomorrow|yesterday"
    r"|(?:sec|second|minute|hour|day|week|month|year)s?)",
    re.IGNORECASE,
)
# dateparser is not documented as thread-safe and warnings.catch_warnings() is process-global.
_DATEPARSER_LOCK = threading.Lock()


def dateparser_parse(text: str, tz: tzinfo, now: datetime) -> datetime | None:
    """Natural-language fallback; imports dateparser on first use only."""
    if not _FALLBACK_HINT.search(text):
        return None
    import dateparser  # deliberately lazy: importing it costs ~1s

    settings = {
        "RELATIVE_BASE": now,
        "PREFER_DAY_OF_MONTH": "first",  # "Dec 2026" → Dec 1, like strtotime
    }
    with _DATEPARSER_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dateparser.parse(text, languages=["en"], settings=settings)
    if result is None:
        return None
    if result.tzinfo is not None:  # "7pm EST": honour the stated zone, return tz wall time
        result = result.astimezone(tz).replace(tzinfo=None)
    return result
