"""An event's page (``site.md`` §2 "Event"): ``/event/{slug}/``, for an occurrence of
a series too (each has its own slug).

The event is what an anonymous ``GET /events/{id}`` answers (``wire.events``, with
its JSON-LD); not public (draft, pending, future, private, trashed) is a 404, never
a 403, and an event hidden from listings keeps its page. A password-protected event
shows its title and dates and the password form (``password_form``) until the form
is sent the right password.
"""

from __future__ import annotations

import datetime as dt
import typing as t

from ..errors import RestError
from ..models import Event
from ..queries.lookups.events import event_by_slug
from ..queries.lookups.related import load_related
from ..responders import Call
from ..rules.permissions import can_read, can_read_content
from ..settings import Settings
from ..wire.events import event_data
from ..wire.plain_text import plain_text
from ..wire.reply import Reply
from .archive import EventFilter, list_events, page_view
from .calendar_links import calendar_links, map_link
from .cards import card
from .frame import Frame, page_reply
from .links import SiteLinks
from .password_form import Attempt, attempt_of
from .rule_words import rule_in_words

#: how many of a series' next occurrences the page lists
NEXT_OCCURRENCES = 5
DESCRIPTION_LENGTH = 160


def public_event(slug: str) -> Event:
    """:raises RestError: 404 for an unknown slug or an event anonymous readers may
    not read (never 403: a page does not reveal that a draft exists)."""
    event = event_by_slug(slug)
    if event is None or event.status == "trash" or not can_read(None, event):
        raise RestError("rest_no_route", 404)
    return event


def event_page(call: Call, settings: Settings, slug: str, *, posted: bool = False) -> Reply:
    """The page of the event ``slug``; ``posted``: the password form's ``POST``."""
    event = public_event(slug)
    attempt = attempt_of(call, event) if posted else Attempt()
    unlocked = can_read_content(None, event, attempt.password, None)
    related = load_related([event], None, call.language, call.total)
    view = page_view(call, settings)
    data = event_data(event, related, view, redact=not unlocked)
    shown = card(data)
    links = SiteLinks(call.urls, call.language)
    image = data.get("image") if isinstance(data.get("image"), dict) else None
    frame = Frame(
        title=event.title,
        path=f"/event/{event.slug}/",
        api_query=[("include", str(event.id))],
        description=summary(data) if unlocked else event.title,
        og_type="article",
        image=image["url"] if image and unlocked else "",
    )
    before, after = neighbours(call, settings, data) if unlocked else (None, None)
    master = event.series_master_id or (event.id if event.recurrence else None)
    context = {
        "event": shown,
        "data": data,
        "unlocked": unlocked,
        "protected": bool(event.password),
        "attempt": attempt,
        "other_zone": data["timezone"] != settings.timezone,
        "rule": rule_in_words(data["recurrence"], call.language, call.translate),
        "occurrences": next_occurrences(call, settings, master, event.id) if master else [],
        "calendar": calendar_links(data, links.api(f"events/{event.id}.ics")),
        "map_link": map_link(data["venue"]) if isinstance(data.get("venue"), dict) else None,
        "image": image,
        "previous_event": before,
        "next_event": after,
    }
    reply = page_reply(call, settings, frame, "event.html", context)
    if posted:
        reply.status = attempt.status
        reply.headers.append(("Cache-Control", "no-store"))
        reply.headers.extend(attempt.headers)
    return reply


def summary(data: t.Mapping[str, t.Any]) -> str:
    """The meta description: the excerpt, else the description, as plain text."""
    text = " ".join(plain_text(data.get("excerpt") or data.get("description") or "").split())
    if len(text) > DESCRIPTION_LENGTH:
        text = text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
    return text or str(data["title"])


def next_occurrences(call: Call, settings: Settings, master: int, own: int) -> list[t.Any]:
    """The series' next occurrences from today, the page's own left out."""
    today = call.clock.now().astimezone(settings.site_zone).date()
    wanted = EventFilter((("ends_after", f"{today} 00:00:00"), ("strict_dates", "true")))
    listing = list_events(call, settings, wanted, per_page=NEXT_OCCURRENCES + 1, series=master)
    return [card(item) for item in listing.events if item["id"] != own][:NEXT_OCCURRENCES]


def neighbours(
    call: Call, settings: Settings, data: t.Mapping[str, t.Any]
) -> tuple[dict[str, t.Any] | None, dict[str, t.Any] | None]:
    """The listed events that start just before and just after this one."""
    start = dt.datetime.strptime(data["start_date"], "%Y-%m-%d %H:%M:%S")
    stamp = start.strftime("%Y-%m-%d %H:%M:%S")

    def first(bound: str, newest_first: bool) -> dict[str, t.Any] | None:
        wanted = EventFilter(((bound, stamp), ("strict_dates", "true")))
        found = list_events(call, settings, wanted, per_page=2, newest_first=newest_first)
        others = [item for item in found.events if item["id"] != data["id"]]
        return others[0] if others else None

    return first("starts_before", True), first("starts_after", False)
