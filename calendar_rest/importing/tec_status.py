"""A TEC record's status and attendance (anchors.md §1) → the write fields holding them.

TEC core (5.11 and later, the former Event Status extension) keeps the status in the
``_tribe_events_status`` post meta (``scheduled``, ``canceled``, ``postponed``; the
Virtual Events add-on adds ``moved_online``) and its text in
``_tribe_events_status_reason``. Virtual Events marks an online event with
``_tribe_events_is_virtual``, says ``virtual`` or ``hybrid`` in
``_tribe_virtual_events_type`` and keeps the join link in ``_tribe_events_virtual_url``.
TEC's REST answer carries none of them unless the site exposes its meta, so each is
read where a site may put it: the bare name, the name without its leading ``_``, a
``meta`` object, or the Virtual Events REST names (``is_virtual``, ``virtual_url``).
A calendar_rest source says it in its own fields, which come first.
"""

from __future__ import annotations

import typing as t

from ..rules.markup import Markup
from ..schemas.event_status import ATTENDANCE_MODES, EVENT_STATUSES
from ..schemas.fields import MAX_URL, is_url
from .common import ImportOptions, filtered

TRUE_WORDS = frozenset({"1", "yes", "true", "on"})


def status_args(options: ImportOptions, record: dict[str, t.Any]) -> dict[str, t.Any]:
    """The status, its reason, the attendance mode and the join URL the source gives."""
    args: dict[str, t.Any] = {}
    status = _found(record, "event_status", "_tribe_events_status")
    if isinstance(status, str) and status.strip().lower() in EVENT_STATUSES:
        args["event_status"] = status.strip().lower()
    reason = _found(record, "event_status_reason", "_tribe_events_status_reason")
    if isinstance(reason, str) and reason:
        args["event_status_reason"] = filtered(options, reason, Markup.POST)
    url = _found(record, "online_url", "_tribe_events_virtual_url", "virtual_url")
    if not (isinstance(url, str) and is_url(url.strip()) and len(url.strip()) <= MAX_URL):
        if args.get("event_status") == "moved_online":
            del args["event_status"]  # moved online without a link: could not be written
        return args
    mode = record.get("attendance_mode")
    if isinstance(mode, str) and mode in ATTENDANCE_MODES:
        args["attendance_mode"] = mode
    elif _truthy(_found(record, "is_virtual", "_tribe_events_is_virtual")):
        kind = _found(record, "virtual_events_type", "_tribe_virtual_events_type")
        args["attendance_mode"] = "mixed" if kind == "hybrid" else "online"
    args["online_url"] = url.strip()
    return args


def _found(record: dict[str, t.Any], *names: str) -> t.Any:
    """The first value a name (bare, without its ``_``, or in ``meta``) holds."""
    meta = record.get("meta")
    places = [record, meta] if isinstance(meta, dict) else [record]
    for name in names:
        for place in places:
            for key in (name, name.lstrip("_")):
                value = place.get(key)
                if isinstance(value, list) and value:  # WordPress meta: a list of values
                    value = value[0]
                if value not in (None, ""):
                    return value
    return None


def _truthy(value: t.Any) -> bool:
    return value is True or (isinstance(value, (str, int)) and str(value).lower() in TRUE_WORDS)
