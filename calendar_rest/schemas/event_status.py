"""Event status and attendance mode (anchors.md §1, schema.org ``eventStatus`` and
``eventAttendanceMode``): the values a client may send, and the one rule that ties
them together (an online or mixed event, or one moved online, says where to join).

The rule is checked twice: here on what a write sends (all the validators library can
know), and by the repository against the stored event an update changes.
"""

from __future__ import annotations

import typing as t

from marshmallow import ValidationError

from .messages import ParamMessage

EVENT_STATUSES = ("scheduled", "canceled", "postponed", "rescheduled", "moved_online")
ATTENDANCE_MODES = ("offline", "online", "mixed")
#: the attendance modes whose attendees join at ``online_url``
ONLINE_MODES = frozenset({"online", "mixed"})


def needs_online_url(event_status: str, attendance_mode: str) -> bool:
    """Whether an event with these values must name where attendees join."""
    return attendance_mode in ONLINE_MODES or event_status == "moved_online"


def missing_online_url() -> ValidationError:
    """The 400 of an online event without ``online_url``."""
    return ValidationError(
        {"online_url": [ParamMessage("online_url_required", param="online_url")]}
    )


def check_sent(data: t.Mapping[str, t.Any], *, creating: bool) -> None:
    """Refuse a write whose own values need an online URL it clears (or, creating, does
    not send). :raises ValidationError: naming ``online_url``."""
    status = data.get("event_status", "scheduled")
    mode = data.get("attendance_mode", "offline")
    if not needs_online_url(status, mode):
        return
    if data.get("online_url") == "" or (creating and "online_url" not in data):
        raise missing_online_url()
