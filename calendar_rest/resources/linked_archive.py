"""From ``GET /venues`` / ``GET /organizers`` arguments to resolved filters.

Runs in the validation phase: an unknown event or a status the caller may not ask
for is a 400 naming the parameter, all failures reported together. Also builds the
echo of the effective query for ``rest_url`` and the pagination links: TEC's order,
then the filters TEC forgets (we keep every filter).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t

from ..errors import InvalidParams
from ..models import POST_STATUSES, Event, User
from ..permissions import has_cap
from ..queries.linked import LinkedFilters
from ..schemas.messages import ParamMessage
from ..search import query_words
from ..settings import Settings

#: TEC's order of the echoed query, then what TEC forgets to echo
ECHO_ORDER = (
    "page", "per_page", "event", "has_events", "status", "search", "only_with_upcoming",
    "i18n_language",
)
#: TEC's ``tribe_is_truthy`` words
TRUTHY = frozenset({"1", "true", "yes", "y", "on", "enable", "enabled"})


@dataclasses.dataclass
class LinkedArchiveRequest:
    filters: LinkedFilters
    page: int
    per_page: int
    echo: dict[str, str]


def truthy(value: t.Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in TRUTHY


def resolve_linked_archive(
    args: dict[str, t.Any], user: User | None, language: str, search_kind: str,
    settings: Settings,
) -> LinkedArchiveRequest:
    """Turn validated args into filters; :raises InvalidParams: for bad references."""
    filters = LinkedFilters(language=language, search_kind=search_kind)
    echo: dict[str, str] = {}
    errors: dict[str, ParamMessage] = {}
    may_edit = has_cap(user, "edit_posts")
    wanted = args.get("status")
    if not wanted:
        echo["status"] = "any" if may_edit else "publish"
    elif any(status not in (POST_STATUSES if may_edit else ("publish",)) for status in wanted):
        errors["status"] = ParamMessage("bad_status", param="status")
    else:
        filters.statuses = list(dict.fromkeys(wanted))
        echo["status"] = ",".join(filters.statuses)
    if "event" in args:
        event = Event.get_or_none(Event.id == args["event"])
        if event is None:
            errors["event"] = ParamMessage("unknown_event", param="event")
        filters.event = event
        echo["event"] = str(args["event"])
    if errors:
        raise InvalidParams(errors)
    if "has_events" in args:
        filters.has_events = truthy(args["has_events"])
        echo["has_events"] = str(args["has_events"])
    if truthy(args.get("only_with_upcoming", False)):
        filters.upcoming_after = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
        echo["only_with_upcoming"] = "1"
    if "search" in args:
        filters.search_words = query_words(args["search"])
        echo["search"] = args["search"]
    if "i18n_language" in args:
        echo["i18n_language"] = args["i18n_language"]
    per_page = min(args.get("per_page", settings.default_per_page), settings.max_per_page)
    echo.update(page=str(args["page"]), per_page=str(per_page))
    ordered = {key: echo[key] for key in ECHO_ORDER if key in echo}
    return LinkedArchiveRequest(filters, args["page"], per_page, ordered)
