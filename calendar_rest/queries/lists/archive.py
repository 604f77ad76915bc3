"""The events archive as SQL: every TEC filter, each one served by an index.

Dates are compared on the UTC columns. Conditions that cannot use an index alone get
an index-friendly companion: "ends before/after X" also bounds the start date (an
event starts no later than it ends, and no earlier than its end minus the longest
event on record), so every query is a range scan on ``start_utc``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import operator
import typing as t

import peewee as pw

from ...db import backend_name
from ...models import Event, EventOrganizer, EventTerm, User, Venue
from ..sql.linked_json import Linked, carries_linked, linked_columns, split_linked
from ..sql.modified import ModifiedFilters, list_order, modified_conditions
from ..sql.rows import as_rows, fetch_rows
from ..sql.statements import Statement, built, by_primary_key, reader
from ..sql.visibility import listable
from ..sql.word_search import every_word, walks_words
from . import counts
from .counts import ByRanges, RangesOf, counted


@dataclasses.dataclass
class ArchiveFilters:
    """Validated, resolved archive filters; every bound is naive UTC."""

    language: str
    start_min: dt.datetime | None = None  # start >= (start_date)
    end_max: dt.datetime | None = None  # end <= (end_date)
    starts_before: dt.datetime | None = None  # start < X
    starts_after: dt.datetime | None = None  # start > X
    ends_before: dt.datetime | None = None  # end < X
    ends_after: dt.datetime | None = None  # end > X
    search_words: list[str] = dataclasses.field(default_factory=list)
    #: groups of term IDs: an event must carry one term of every group
    term_groups: list[list[int]] = dataclasses.field(default_factory=list)
    venues: list[int] | None = None
    organizers: list[int] | None = None
    featured: bool | None = None
    ticketed: bool | None = None
    statuses: list[str] | None = None
    #: ``event_status``: only these (None: every status, anchors.md §1)
    event_statuses: list[str] | None = None
    include: list[int] | None = None
    post_parent: int | None = None
    #: True: the venue must have coordinates; a list: the venue must be one of these
    geo_venues: bool | list[int] | None = None
    max_event_seconds: int = 0
    #: ``modified_after``/``modified_before`` and ``orderby=modified``
    modified: ModifiedFilters = dataclasses.field(default_factory=ModifiedFilters)
    #: only the rows of this series (its master's ID): ``/events/{id}/occurrences``
    series: int | None = None
    #: ``hide_subsequent_recurrences``: of each series, only its first matching row
    first_of_series: bool = False


def archive_query(
    filters: ArchiveFilters,
    user: User | None,
    *,
    counting: bool = False,
    walk_words: bool = False,
) -> pw.ModelSelect[Event]:
    """The filtered, unordered archive selection for ``user``.

    ``counting`` writes the term and organizer filters as ``id IN (links of those
    terms)``, driven from the ``(term, event)`` index, which suits a COUNT of every
    match; a page instead walks the archive index in order with a correlated EXISTS
    on ``(event, term)`` and stops after ``per_page`` matches. ``walk_words`` does the
    same for the search words (``word_search.walks_words`` says when it pays).
    """
    conditions: list[pw.ColumnBase] = [
        Event.hide_from_listings == False,  # noqa: E712 - SQL comparison
        Event.language == filters.language,
        listable(Event, user, filters.statuses),
    ]
    conditions += _date_conditions(filters)
    conditions += modified_conditions(Event, filters.modified)
    conditions += _link_conditions(filters, counting)
    conditions += every_word(Event, "e", filters.search_words, user, walk=walk_words)
    for flag, value in (("featured", filters.featured), ("ticketed", filters.ticketed)):
        if value is not None:
            conditions.append(getattr(Event, flag) == value)
    if filters.event_statuses is not None:  # a column of the archive index
        conditions.append(Event.event_status.in_(filters.event_statuses))
    if filters.include is not None:
        conditions.append(Event.id.in_(filters.include or [0]))
    if filters.post_parent is not None:
        conditions.append(Event.post_parent == filters.post_parent)
    if filters.series is not None:
        conditions.append((Event.id == filters.series) | (Event.series_master == filters.series))
    if filters.first_of_series:
        conditions.append(_first_of_series(conditions))
    return Event.select().where(functools.reduce(operator.and_, conditions))


def archive_count(
    filters: ArchiveFilters, user: User | None, key: tuple[t.Any, ...] | None = None
) -> Statement:
    """The statement whose rows are the archive's total (``counts.CountCache``);
    ``key``: what the filters and reader are built under (``statements.built``)."""
    return counted(
        key or _built_as(filters, user), lambda: archive_query(filters, user, counting=True)
    )


def _built_as(filters: ArchiveFilters, user: User | None) -> tuple[t.Any, ...]:
    return ("archive", repr(filters), reader(user))


def archive_ranges(
    filters: ArchiveFilters, user: User | None, key: tuple[t.Any, ...] | None = None
) -> ByRanges:
    """The archive's total by ranges of event IDs (``counts.ByRanges``); not for
    ``hide_subsequent_recurrences`` (whether a row is its series' first depends on
    the series' other rows)."""
    width = counts.ID_RANGE
    key = (*(key or _built_as(filters, user)), width)
    divide = "DIV" if backend_name(Event._meta.database) == "mysql" else "/"
    # integer division, spelled out (Peewee would render an operator named DIV as "/")
    range_number = pw.NodeList((Event.id, pw.SQL(divide), pw.SQL(str(width))), parens=True)

    def grouped() -> pw.ModelSelect[Event]:
        query = archive_query(filters, user, counting=True)
        return query.select(range_number, pw.fn.COUNT(pw.SQL("1"))).group_by(pw.SQL("1"))

    def ranged() -> pw.ModelSelect[Event]:
        # a page's correlated forms: each row of the range is checked by a seek
        query = archive_query(filters, user, walk_words=True)
        return query.where(Event.id.between(0, 0)).select(pw.fn.COUNT(pw.SQL("1")))

    return ByRanges(
        built(("grouped", *key), grouped), by_primary_key(built(("ranged", *key), ranged)), width
    )


def archive_total(filters: ArchiveFilters, user: User | None) -> tuple[Statement, RangesOf | None]:
    """What the archive's total is counted and kept by (``Call.total``)."""
    key = _built_as(filters, user)
    if filters.first_of_series:
        return archive_count(filters, user, key), None
    return archive_count(filters, user, key), lambda: archive_ranges(filters, user, key)


def walks(
    filters: ArchiveFilters,
    user: User | None,
    matches: int,
    wanted: int,
    count: t.Callable[[Statement, RangesOf | None], int],
) -> bool:
    """Whether a page of ``wanted`` rows (offset + per page) walks the archive in order
    for its search words, given the filter's total ``matches``: a common word walks, a
    rare one gathers its matches first, judged against what the other filters leave
    (counted by ``count``, which may keep it: ``queries.counts``)."""
    if not filters.search_words:
        return False
    unsearched = dataclasses.replace(filters, search_words=[])
    return walks_words(matches, count(*archive_total(unsearched, user)), wanted)


def _first_of_series(conditions: list[pw.ColumnBase]) -> pw.ColumnBase:
    """Stand-alone events, and of each series the earliest row meeting every other
    condition (TEC Pro's ``hide_subsequent_recurrences``): a window function ranks the
    matching rows of each series by start, then ID."""
    series = pw.fn.COALESCE(Event.series_master, Event.id)
    rank = pw.fn.ROW_NUMBER().over(partition_by=[series], order_by=[Event.start_utc, Event.id])
    ranked = (
        Event.select(Event.id.alias("ranked_id"), rank.alias("series_rank"))
        .where(functools.reduce(operator.and_, conditions))
        .alias("ranked")
    )
    firsts = pw.Select(from_list=[ranked], columns=[pw.SQL("ranked_id")]).where(
        pw.SQL("series_rank = 1")
    )
    return Event.id.in_(firsts)


def _date_conditions(filters: ArchiveFilters) -> list[pw.Expression]:
    conditions = []
    slack = dt.timedelta(seconds=filters.max_event_seconds)
    if filters.start_min is not None:
        conditions.append(Event.start_utc >= filters.start_min)
    if filters.end_max is not None:
        conditions += [Event.end_utc <= filters.end_max, Event.start_utc <= filters.end_max]
    if filters.starts_before is not None:
        conditions.append(Event.start_utc < filters.starts_before)
    if filters.starts_after is not None:
        conditions.append(Event.start_utc > filters.starts_after)
    if filters.ends_before is not None:
        conditions += [Event.end_utc < filters.ends_before, Event.start_utc < filters.ends_before]
    if filters.ends_after is not None:
        conditions += [
            Event.end_utc > filters.ends_after,
            Event.start_utc > filters.ends_after - slack,
        ]
    return conditions


def _linked_to(
    link: type[EventTerm] | type[EventOrganizer],
    target: pw.Field,
    ids: list[int],
    counting: bool,
) -> pw.ColumnBase:
    """Events linked to one of ``ids`` through ``link``: IN for counts, EXISTS for pages."""
    matching = target.in_(ids or [0])
    if counting:
        return Event.id.in_(link.select(link.event).where(matching))
    return pw.fn.EXISTS(link.select(link.event).where((link.event == Event.id) & matching))


def _link_conditions(filters: ArchiveFilters, counting: bool) -> list[pw.ColumnBase]:
    conditions = [
        _linked_to(EventTerm, EventTerm.term, group, counting) for group in filters.term_groups
    ]
    if filters.venues is not None:
        conditions.append(Event.venue.in_(filters.venues or [0]))
    if filters.organizers is not None:
        conditions.append(
            _linked_to(EventOrganizer, EventOrganizer.organizer, filters.organizers, counting)
        )
    if filters.geo_venues is True:
        conditions.append(
            Event.venue.in_(
                Venue.select(Venue.id).where(
                    Venue.geo_lat.is_null(False) & Venue.geo_lng.is_null(False)
                )
            )
        )
    elif isinstance(filters.geo_venues, list):
        conditions.append(Event.venue.in_(filters.geo_venues or [0]))
    return conditions


class Page(t.NamedTuple):
    """A page of events, in order, the venues they name and each event's organizers
    and terms (``linked_json.py``; None: the backend reads them apart), all read with
    them."""

    events: list[Event]
    venues: list[Venue]
    linked: dict[int, Linked] | None


def archive_page(
    filters: ArchiveFilters, user: User | None, walk: bool, limit: int, offset: int
) -> Page:
    """One page in TEC's order: start date, then ID (or by ``modified`` when asked).

    The filtered statement selects IDs only (served by the covering archive index,
    and built once per filter: ``statements.built``); the rows then come from a
    prepared look-up by primary key, each with its venue's (and its organizers and
    terms where the backend aggregates them).
    """

    def ordered_ids() -> pw.ModelSelect[Event]:
        order = list_order(Event, filters.modified, (Event.start_utc, Event.id))
        query = archive_query(filters, user, walk_words=walk).select(Event.id)
        return query.order_by(*order).limit(limit).offset(offset)

    key = ("archive", repr(filters), reader(user), walk, limit, offset)
    sql, params = built(key, ordered_ids)
    database = Event._meta.database
    ids = [row[0] for row in database.execute_sql(sql, list(params)).fetchall()]
    carried = carries_linked(database)
    if not ids:
        return Page([], [], {} if carried else None)

    def by_ids() -> pw.ModelSelect[Event]:  # built once per backend and page length
        aggregated = linked_columns(database) if carried else ()
        return (
            Event.select(Event, Venue, *aggregated)
            .join(Venue, pw.JOIN.LEFT_OUTER, on=(Venue.id == Event.venue_id))
            .where(Event.id.in_(ids))
        )

    rows = {
        event.id: (event, extra)
        for event, extra in fetch_rows(
            Event, ("events_with_venues_by_ids", len(ids), carried), by_ids, ids
        )
    }
    found = [rows[event_id] for event_id in ids if event_id in rows]
    venues: dict[int, t.Sequence[t.Any]] = {}
    linked: dict[int, Linked] | None = {} if carried else None
    for event, extra in found:
        venue_row, event_linked = split_linked(database, extra)
        if venue_row[0] is not None:
            venues[venue_row[0]] = venue_row
        if linked is not None and event_linked is not None:
            linked[event.id] = event_linked
    return Page([event for event, _ in found], as_rows(Venue, venues.values()), linked)
