"""From ``GET /venues`` / ``GET /organizers`` arguments to resolved filters.

Runs in the validation phase: an unknown event or a status the caller may not ask
for is a 400 naming the parameter, all failures reported together. Also builds the
echo of the effective query for ``rest_url`` and the pagination links: TEC's order,
then the filters TEC forgets (we keep every filter); the pager puts ``page`` and
``per_page`` in front of it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

from ...errors import ParamErrors
from ...models import User
from ...rules.search import query_words
from ..lists.linked import LinkedFilters
from ..lookups.events import readable_event
from ..sql.modified import resolve_modified
from ..sql.visibility import requested_statuses

#: TEC's order of the echoed query (after ``page`` and ``per_page``), then what TEC
#: forgets to echo
ECHO_ORDER = (
    "event",
    "has_events",
    "status",
    "search",
    "only_with_upcoming",
    "modified_after",
    "modified_before",
    "orderby",
    "order",
    "i18n_language",
)
#: TEC's ``tribe_is_truthy`` words
TRUTHY = frozenset({"1", "true", "yes", "y", "on", "enable", "enabled"})


@dataclasses.dataclass
class LinkedArchiveRequest:
    filters: LinkedFilters
    #: the effective query, in TEC's order
    echo: dict[str, str]


def truthy(value: t.Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in TRUTHY


def resolve_linked_archive(
    args: dict[str, t.Any],
    user: User | None,
    language: str,
    search_kind: str,
    now_utc: dt.datetime,
    site_zone: dt.tzinfo,
) -> LinkedArchiveRequest:
    """Turn validated args into filters; :raises InvalidParams: for bad references.
    ``site_zone`` reads a ``modified_*`` bound sent without an offset."""
    filters = LinkedFilters(language=language, search_kind=search_kind)
    echo: dict[str, str] = {}
    errors = ParamErrors()
    with errors.collecting():
        filters.statuses, echo["status"] = requested_statuses(args.get("status"), user)
    if "event" in args:
        filters.event = readable_event(args["event"], user)
        if filters.event is None:  # a hidden event is refused as a missing one
            errors.add("event", "unknown_event")
        echo["event"] = str(args["event"])
    errors.raise_if_any()
    if "has_events" in args:
        filters.has_events = truthy(args["has_events"])
        echo["has_events"] = str(args["has_events"])
    if truthy(args.get("only_with_upcoming", False)):
        filters.upcoming_after = now_utc
        echo["only_with_upcoming"] = "1"
    if "search" in args:
        filters.search_words = query_words(args["search"])
        echo["search"] = args["search"]
    filters.modified, modified_echo = resolve_modified(args, site_zone)
    echo.update(modified_echo)
    if "i18n_language" in args:
        echo["i18n_language"] = args["i18n_language"]
    return LinkedArchiveRequest(filters, {key: echo[key] for key in ECHO_ORDER if key in echo})
