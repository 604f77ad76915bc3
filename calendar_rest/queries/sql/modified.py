"""WordPress 5.7's sync parameters, shared by the event, venue and organizer lists.

``modified_after``/``modified_before`` bound ``modified_utc`` strictly, at whole-second
resolution; ``orderby=modified`` sorts by it, ties broken by ID in the same direction,
so that a page boundary is one well-defined position. Each bound is a range condition
on the table's own ``modified_utc`` column, which an index serves
(``models``: ``(modified_utc, id)`` on events, ``(language, status, modified_utc,
id)`` on venues and organizers).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

import peewee as pw

from ...dates import format_datetime, to_utc
from ...models import PostModel

BOUNDS = ("modified_after", "modified_before")
ONE_SECOND = dt.timedelta(seconds=1)


@dataclasses.dataclass
class ModifiedFilters:
    """Resolved bounds (naive UTC, whole seconds, both exclusive) and order."""

    after: dt.datetime | None = None
    before: dt.datetime | None = None
    #: None: the list's own default order; else by ``modified``, newest first or not
    descending: bool | None = None


def resolve_modified(
    args: t.Mapping[str, t.Any], zone: dt.tzinfo
) -> tuple[ModifiedFilters, dict[str, str]]:
    """The filters and their echo for ``rest_url``.

    A bound without an offset is site time (``zone``). Bounds echo as UTC with ``Z``:
    unambiguous even at a DST fold. ``order`` counts only with ``orderby`` (WordPress
    lists ignore it otherwise), where it defaults to ``desc``.
    """
    filters = ModifiedFilters()
    echo: dict[str, str] = {}
    for name in BOUNDS:
        if name in args:
            bound = to_utc(args[name], zone).replace(microsecond=0)
            setattr(filters, name.removeprefix("modified_"), bound)
            echo[name] = format_datetime(bound).replace(" ", "T") + "Z"
    if "orderby" in args:
        order = args.get("order", "desc")
        filters.descending = order == "desc"
        echo.update(orderby=args["orderby"], order=order)
    return filters, echo


def modified_conditions(model: type[PostModel], filters: ModifiedFilters) -> list[pw.Expression]:
    """Range conditions on ``modified_utc``. "After X" is "at or after X + 1 s", which
    also excludes a stored value with a fraction of X's second (same second: equal)."""
    conditions = []
    if filters.after is not None:
        conditions.append(model.modified_utc >= filters.after + ONE_SECOND)
    if filters.before is not None:
        conditions.append(model.modified_utc < filters.before)
    return conditions


def list_order(
    model: type[PostModel], filters: ModifiedFilters | None, default: t.Sequence[pw.Node]
) -> list[pw.Node]:
    """``default`` unless ``orderby=modified`` was asked for."""
    if filters is None or filters.descending is None:
        return list(default)
    if filters.descending:
        return [model.modified_utc.desc(), model.id.desc()]
    return [model.modified_utc.asc(), model.id.asc()]
