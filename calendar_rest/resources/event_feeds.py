"""The iCalendar representations of events (``calendar.md`` §1-§4.7): ``/events.ics``,
``/events/{id}.ics``, and ``/events``, ``/events/{id}``, ``/events/by-slug/{slug}``
asked with ``Accept: text/calendar``.

A ``.ics`` route is its JSON route with the media type fixed, so the same checks,
errors and visibility apply, and both give the same bytes: the archive feed answers
every match of the archive's filters (no paging), each series once and whole; the
single feed answers one event, a whole series, or one instance of a series.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as dt
import functools
import importlib.metadata
import json
import logging
import typing as t
from urllib.parse import urlsplit

from werkzeug.http import http_date

from ..i18n.messages import N_
from ..media_types import CALENDAR, CALENDAR_CONTENT_TYPE
from ..models import Event
from ..queries.filters.event_filters import ArchiveRequest
from ..queries.lists.archive import archive_query
from ..queries.lists.feeds import feed_keys, feed_units, is_master, series_of
from ..queries.lookups.events import event_by_id
from ..queries.lookups.related import load_related
from ..queries.lookups.site_state import last_write
from ..responders import Call, Resource
from ..routes import accepts
from ..rules.permissions import can_read_content
from ..schemas import events as event_args
from ..wire.events import EventView, event_data
from ..wire.icalendar_feed import FeedEvent, FeedInfo, calendar_bytes
from ..wire.reply import Reply

log = logging.getLogger("calendar_rest")
#: the default ``X-WR-CALNAME``, before `` – <site host>``
DEFAULT_CALENDAR_NAME = N_("Events")


class EventFeeds(Resource):
    """The feed responders and representations; ``Events`` supplies the rest."""

    # What the feeds call on the JSON resource: ``Events`` defines them; this mixin is
    # never bound to a route on its own (``RESOURCE_CLASSES`` names ``Events``).

    @abc.abstractmethod
    def view(self, call: Call, *, single: bool = False) -> EventView:
        """How events are represented for this call (``Events.view``)."""

    @abc.abstractmethod
    def on_get_collection(self, call: Call) -> Reply:
        """The archive, JSON or calendar by ``call.media_type``."""

    @abc.abstractmethod
    def read(self, call: Call, event: Event | None, event_id: int) -> Reply:
        """One event, JSON or calendar by ``call.media_type``."""

    @accepts(event_args.EventArchiveArgs, collect_errors=True)
    def on_get_ics(self, call: Call) -> Reply:
        """``/events.ics``: the archive as one calendar, whatever ``Accept`` says."""
        return self.on_get_collection(dataclasses.replace(call, media_type=CALENDAR))

    @accepts(event_args.EventReadArgs)
    def on_get_item_ics(self, call: Call, id: int) -> Reply:
        """``/events/{id}.ics``: what ``GET /events/{id}`` answers, as a calendar."""
        return self.read(dataclasses.replace(call, media_type=CALENDAR), event_by_id(id), id)

    # -- the representations ---------------------------------------------------------

    def archive_feed(self, call: Call, args: dict[str, t.Any], archive: ArchiveRequest) -> Reply:
        """Every event and series the archive query matches (§1.2), earliest first."""
        cap = self.settings.feed_max_events
        keys = feed_keys(archive_query(archive.filters, call.user), cap)
        if keys.cut:
            log.warning("the feed %s was cut at feed_max_events=%d", call.urls.rest_base, cap)
        units = feed_units(keys.ids)
        source = call.urls.rest_link("events.ics", call.query)
        body = self.calendar(call, args, units, self.site_calendar_name(call), source)
        headers = [("Content-Disposition", 'inline; filename="events.ics"')]
        written = last_write()
        if written:
            headers.append(("Last-Modified", http_date(written)))
        return Reply(body, headers=headers, content_type=CALENDAR_CONTENT_TYPE)

    def event_feed(self, call: Call, event: Event) -> Reply:
        """One event, a whole series (its master), or one instance of a series (§1.3)."""
        unit = series_of(event)
        source = call.urls.rest_link(f"events/{event.id}.ics", call.query)
        body = self.calendar(call, call.args, [unit], event.title, source)
        modified = max(member.modified_utc for member in unit)
        headers = [
            ("Content-Disposition", f'inline; filename="event-{event.id}.ics"'),
            ("Last-Modified", http_date(modified.replace(tzinfo=dt.timezone.utc))),
        ]
        return Reply(body, headers=headers, content_type=CALENDAR_CONTENT_TYPE, about=event.id)

    def calendar(
        self,
        call: Call,
        args: dict[str, t.Any],
        units: list[list[Event]],
        name: str,
        source: str,
    ) -> bytes:
        """The VCALENDAR of ``units`` (each an event, or a master and its exceptions)."""
        events = [event for unit in units for event in unit]
        related = load_related(events, call.user, call.language, call.total)
        view = self.view(call)
        password, context = args.get("password"), args.get("context")
        items = []
        for unit in units:
            master = unit[0]
            series = is_master(master)
            for event in unit:
                redact = not can_read_content(call.user, event, password, context)
                data = event_data(event, related, view, redact=redact)
                items.append(self.feed_event(event, data, master, series=series))
        info = FeedInfo(
            name=name,
            site_zone=self.settings.timezone,
            refresh_minutes=self.settings.feed_refresh_minutes,
            source=source,
            version=product_version(),
        )
        return calendar_bytes(info, items)

    def feed_event(
        self, event: Event, data: dict[str, t.Any], master: Event, *, series: bool
    ) -> FeedEvent:
        """How ``event`` is exported: a master with its lines, an exception (or a lone
        instance) with its ``RECURRENCE-ID``, or a stand-alone event."""
        if series and event is master:
            return FeedEvent(event, data, recurrence=tuple(json.loads(event.recurrence)))
        if event.series_master_id is not None:
            original = event.original_start or event.start_local
            zone = master.timezone if series else self.series_zone(event)
            return FeedEvent(event, data, recurrence_id=original, series_zone=zone)
        return FeedEvent(event, data)

    @staticmethod
    def series_zone(event: Event) -> str:
        """The zone of the series of a lone instance: its master's."""
        master = event_by_id(event.series_master_id) if event.series_master_id else None
        return master.timezone if master is not None else event.timezone

    def site_calendar_name(self, call: Call) -> str:
        """``calendar_name``, else "Events" in the request's language – the site host."""
        if self.settings.calendar_name:
            return self.settings.calendar_name
        name = call.translate(DEFAULT_CALENDAR_NAME)
        host = urlsplit(call.urls.site).hostname
        return f"{name} – {host}" if host else name


def alternate_feed(reply: Reply, call: Call) -> Reply:
    """A JSON archive page with ``Link: <…/events.ics?<same query>>; rel="alternate"``
    (§1.5), after its paging links."""
    feed = call.urls.rest_link("events.ics", call.query)
    alternate = f'<{feed}>; rel="alternate"; type="{CALENDAR}"'
    links = [value for name, value in reply.headers if name == "Link"]
    reply.headers = [(name, value) for name, value in reply.headers if name != "Link"]
    reply.headers.append(("Link", ", ".join([*links, alternate])))
    return reply


@functools.cache
def product_version() -> str:
    """The installed version, for ``PRODID``."""
    try:
        return importlib.metadata.version("calendar-rest")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "0"
