"""What one series write may copy into its occurrences (calendar.md §4.1, §4.6),
checked with the write's other checks, before the write lock is taken.

Every occurrence of a series is an event of its own, with its own links (organizers,
categories, tags) and its own copy of the series' text: a write that creates the
occurrences, or changes their links or text, writes occurrences × links rows and
occurrences × text characters while every other writer waits. The caps here
(``schemas.events.MAX_SERIES_LINKS``, ``MAX_SERIES_TEXT``) bound that work; the cap on
occurrences (``recurrence_max_occurrences``) is checked here too, so that a series too
long is refused before the lock as well as under it.
"""

from __future__ import annotations

import typing as t

from ..dates import resolve_timezone
from ..dates.recurrence import Anchor, localise_lines
from ..errors import RestError
from ..i18n.messages import MESSAGES
from ..models import Event
from ..queries.lookups.series import live_row_count, master_of, organizer_ids, term_ids_by_taxonomy
from ..schemas.events import MAX_SERIES_LINKS, MAX_SERIES_TEXT
from ..wordpress.taxonomies import CATEGORIES, TAGS
from .events import EventWrite, apply_dates
from .posts import WriteContext
from .series import SeriesLimits, expand
from .series_values import (
    LINKS,
    TEXT_FIELDS,
    Base,
    anchor_of,
    base_of,
    moved_anchor,
    moved_lines,
    reexpands,
)


class TooManyCopies(RestError):
    """``rest_too_many_items`` naming ``recurrence``: the series' occurrences would hold
    more links or text than one write may give them (each cap has its sentence)."""

    def __init__(self, limit: int, message_key: str) -> None:
        super().__init__(
            "rest_too_many_items",
            400,
            "recurrence",
            limit,
            data={"param": "recurrence", "max": limit},
        )
        self.message_key = message_key

    def message(self, translate: t.Callable[[str], str] = str) -> str:
        return translate(MESSAGES[self.message_key]) % self.message_args


def check_series_size(
    write: EventWrite, event: Event | None, ctx: WriteContext, limits: SeriesLimits
) -> None:
    """Refuse a write whose series would be too long or hold too much (see the module
    docstring); ``event``: the event updated (None on creates). Never writes.

    :raises InvalidParams: more occurrences than ``recurrence_max_occurrences``.
    :raises TooManyCopies: past ``MAX_SERIES_LINKS`` or ``MAX_SERIES_TEXT``.
    """
    args = write.args
    master = master_of(event) if event is not None else None
    if master is None or event is None:
        if not args.get("recurrence"):
            return  # a stand-alone event stays one
        draft = _draft(args, ctx, event)
        zone = resolve_timezone(draft.timezone)
        anchor = Anchor(draft.start_local, draft.end_local, zone, draft.all_day)
        lines = localise_lines(args["recurrence"], zone, anchor.all_day)
        rows = len(expand(lines, anchor, ctx.now, limits, cap=True))
        _refuse(rows, write, _current(event) if event is not None else {}, True, True)
        return
    if args.get("scope") == "this" or (args.get("scope") is None and event.id != master.id):
        return  # one occurrence: nothing is copied
    if "recurrence" in args and not args["recurrence"]:
        return  # the series ends
    base = base_of(master)
    rows = live_row_count(master.id)
    if reexpands(args):
        old = anchor_of(master, base)
        anchor = moved_anchor(args, ctx, old, event, base)
        lines = moved_lines(args, master, base, old, anchor)
        rows = max(rows, len(expand(lines, anchor, ctx.now, limits, cap=True)))
    again = reexpands(args)
    _refuse(rows, write, base, again or bool(set(LINKS) & set(args)), again)


def _refuse(rows: int, write: EventWrite, current: Base, links: bool, text: bool) -> None:
    """Refuse ``rows`` occurrences holding the links and text the write leaves them
    (``current``: the values it does not send), where the write gives them links
    (``links``) or text (``text``, or when it sends some)."""
    args = write.args
    if links:
        sent: dict[str, t.Sized | None] = {
            "organizer": write.organizers,
            **{taxonomy.collection: write.terms.get(taxonomy) for taxonomy in (CATEGORIES, TAGS)},
        }
        count = sum(
            len(chosen) if chosen is not None else len(current.get(field) or ())
            for field, chosen in sent.items()
        )
        if rows * count > MAX_SERIES_LINKS:
            raise TooManyCopies(MAX_SERIES_LINKS, "too_many_series_links")
    if text or set(TEXT_FIELDS) & set(args):
        length = sum(
            len(args[field] or "") if field in args else len(current.get(field) or "")
            for field in TEXT_FIELDS
        )
        if rows * length > MAX_SERIES_TEXT:
            raise TooManyCopies(MAX_SERIES_TEXT, "too_many_series_text")


def _current(event: Event) -> Base:
    """A stand-alone event's links and text, as a series' base holds them."""
    by_taxonomy = term_ids_by_taxonomy(event.id)
    return {
        "organizer": organizer_ids(event.id),
        CATEGORIES.collection: by_taxonomy.get(CATEGORIES.name, []),
        TAGS.collection: by_taxonomy.get(TAGS.name, []),
        **{field: getattr(event, field) for field in TEXT_FIELDS},
    }


def _draft(args: dict[str, t.Any], ctx: WriteContext, event: Event | None) -> Event:
    """The dates an event has after the write (``events.apply_dates`` on a copy)."""
    draft = Event()
    if event is not None:
        draft.timezone, draft.all_day = event.timezone, event.all_day
        draft.start_local, draft.end_local = event.start_local, event.end_local
    if "all_day" in args:
        draft.all_day = args["all_day"]
    apply_dates(draft, args, ctx, event is None)
    return draft
