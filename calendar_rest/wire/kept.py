"""Representations rendered once per content: linked records, and whole events.

Venues, organizers and terms recur from event to event, from page to page and from
list to list, and rendering them is much of a read's cost; an event is read again far
more often than it changes. A representation is kept under a key that holds
everything it is made from (the record's row, its image's row, its translation group,
what it embeds and how it is shown), so an edit makes a new key and shows at once,
and the old entry just ages out (``memo.py``). Kept values are shared between
responses: nothing may change one in place.
"""

from __future__ import annotations

import typing as t

import orjson
import peewee as pw

from ..caching.memo import Memo

#: what the memo of linked records may hold, in bytes of JSON counted twice (each key
#: holds the record's row, about as large as its representation): a venue's
#: description can be long, and a count of entries alone would not bound the memory
KEPT_BYTES = 32 * 1024 * 1024
#: the same for whole events. A process holds about 1.7 times the weight in memory (the
#: dicts and their keys): measured on the bench's events, 1,385 single reads (6 kB of
#: JSON each, JSON-LD included) weigh 16.8 MB and take 28.7 MB; so this bound keeps
#: about 2,700 single reads, or more list items, in about 55 MB
EVENT_BYTES = 32 * 1024 * 1024


def _weigh(value: dict[str, t.Any]) -> int:
    return 2 * len(orjson.dumps(value))


#: venues, organizers and terms: few, and shown again and again
LINKED: Memo[t.Hashable, dict[str, t.Any]] = Memo(4096, max_weight=KEPT_BYTES, weigh=_weigh)
#: whole events (``wire.events.event_data``): many, so they have a memo of their own,
#: where reading a long list of them never drops a venue or a term
EVENTS: Memo[t.Hashable, dict[str, t.Any]] = Memo(4096, max_weight=EVENT_BYTES, weigh=_weigh)

#: a record's stored values, as a key
Row = tuple[t.Any, ...]


def row_of(record: pw.Model | None) -> Row | None:
    """Everything ``record`` holds, hashable (None for no record): a read-only row
    (``queries.rows``, a tuple) is its stored values already; an instance gives its
    fields and values."""
    if record is None:
        return None
    if isinstance(record, tuple):
        return record
    return tuple(record.__data__.items())


def kept(key: t.Hashable, render: t.Callable[[], dict[str, t.Any]]) -> dict[str, t.Any]:
    """A venue's, organizer's or term's ``render()``, or what it made under the same
    ``key``, which must hold every input ``render`` reads."""
    return LINKED.get(key, render)


def kept_event(key: t.Hashable, render: t.Callable[[], dict[str, t.Any]]) -> dict[str, t.Any]:
    """The same as :func:`kept`, for whole events (:data:`EVENTS`)."""
    return EVENTS.get(key, render)
